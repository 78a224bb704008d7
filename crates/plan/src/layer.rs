//! The layers a target's settings are drawn from, and how they stack.

use super::input::PlanInput;
use super::spec_file::{RawTarget, SpecFile};
use super::sweep::SweepParam;
use crate::origin::{Origin, Setting};
use crate::profiles::{self, Profile};
use crate::usage::UsageError;

/// The workload settings that apply to one target, most specific first: the target's own
/// table, then command-line flags, then the file's `[defaults]`.
#[derive(Default, Clone)]
pub(super) struct Layer {
    pub(super) size: Option<Setting>,
    pub(super) block: Option<Setting>,
    pub(super) mix: Option<Setting>,
    pub(super) read: Option<Setting>,
    pub(super) random: Option<Setting>,
    pub(super) threads: Option<Setting>,
    pub(super) depth: Option<Setting>,
    pub(super) rate: Option<Setting>,
    pub(super) buffered: Option<Setting>,
    pub(super) write_through: Option<Setting>,
    pub(super) fsync_every: Option<Setting>,
}

impl Layer {
    /// The workload settings a command gave (its flags, a suite member's changes).
    pub(super) fn from_input(input: &PlanInput) -> Layer {
        Layer::from_keys(|key| input.get(key).cloned())
    }

    /// Each setting by its spec-file key.
    fn from_keys(get: impl Fn(&'static str) -> Option<Setting>) -> Layer {
        Layer {
            size: get("size"),
            block: get("block"),
            mix: get("mix"),
            read: get("read"),
            random: get("random"),
            threads: get("threads"),
            depth: get("depth"),
            rate: get("rate"),
            buffered: get("buffered"),
            write_through: get("write_through"),
            fsync_every: get("fsync_every"),
        }
    }

    pub(super) fn from_file(file: &SpecFile, t: &RawTarget) -> Layer {
        Layer {
            size: file.setting("size", &t.size),
            block: file.setting("block", &t.block),
            mix: file.setting("mix", &t.mix),
            read: file.setting("read", &t.read),
            random: file.setting("random", &t.random),
            threads: file.setting("threads", &t.threads),
            depth: file.setting("depth", &t.depth),
            rate: file.setting("rate", &t.rate),
            buffered: file.setting("buffered", &t.buffered),
            write_through: file.setting("write_through", &t.write_through),
            fsync_every: file.setting("fsync_every", &t.fsync_every),
        }
    }

    /// The settings of the profile called `name`; `origin` says who asked for it.
    pub(super) fn from_profile(name: &str, origin: &Origin) -> Result<Layer, UsageError> {
        let profile = profiles::find(name).ok_or_else(|| {
            UsageError::value(
                origin.clone(),
                name,
                format_args!("unknown profile; valid profiles: {}", profiles::names().join(", ")),
            )
        })?;
        Ok(Layer::of_profile(profile))
    }

    fn of_profile(p: &'static Profile) -> Layer {
        Layer::from_keys(|key| {
            p.setting(key).map(|text| Setting { text: text.to_string(), origin: Origin::Profile { name: p.name, key } })
        })
    }

    /// A layer that sets only the swept setting.
    pub(super) fn swept(param: SweepParam, setting: Setting) -> Layer {
        let mut layer = Layer::default();
        match param {
            SweepParam::Depth => layer.depth = Some(setting),
            SweepParam::Block => layer.block = Some(setting),
            SweepParam::Threads => layer.threads = Some(setting),
        }
        layer
    }

    /// `self` where set, else `under`. A block or mix given here hides both from below, so a
    /// target's `block` is never mixed with a default `mix`.
    pub(super) fn over(self, under: &Layer) -> Layer {
        let sizes_here = self.block.is_some() || self.mix.is_some();
        let pick = |a: Option<Setting>, b: &Option<Setting>| a.or_else(|| b.clone());
        Layer {
            size: pick(self.size, &under.size),
            block: if sizes_here { self.block } else { under.block.clone() },
            mix: if sizes_here { self.mix } else { under.mix.clone() },
            read: pick(self.read, &under.read),
            random: pick(self.random, &under.random),
            threads: pick(self.threads, &under.threads),
            depth: pick(self.depth, &under.depth),
            rate: pick(self.rate, &under.rate),
            buffered: pick(self.buffered, &under.buffered),
            write_through: pick(self.write_through, &under.write_through),
            fsync_every: pick(self.fsync_every, &under.fsync_every),
        }
    }
}
