//! What a command asks the planner for: `spindle io`'s flags, a suite member, one side of an
//! A/B experiment. Each command builds this from its own arguments, with origins that name
//! its own flags, so the planner never sees clap's types.

use crate::args::IoArgs;
use crate::origin::Setting;
use std::path::PathBuf;

/// Settings given outside a spec file, by the spec file's key names (`size`, `block`, `mix`,
/// `read`, `random`, `threads`, `depth`, `rate`, `buffered`, `write_through`, `fsync_every`,
/// and the job's `engine`, `duration`, `warmup`), each with where it came from.
#[derive(Clone, Debug, Default)]
pub struct PlanInput {
    pub targets: Vec<PathBuf>,
    pub spec: Option<PathBuf>,
    /// A named profile under the settings (`--profile`, a suite member's profile).
    pub profile: Option<Setting>,
    pub settings: Vec<(&'static str, Setting)>,
    pub sweep: Option<String>,
    pub repeat: Option<String>,
    pub keep_file: bool,
    pub force: bool,
    pub allow_destroy: bool,
    /// `--verify`.
    pub verify: bool,
}

impl PlanInput {
    /// The setting given for `key`, if any (the last one given wins).
    pub fn get(&self, key: &str) -> Option<&Setting> {
        self.settings.iter().rev().find(|(k, _)| *k == key).map(|(_, s)| s)
    }

    /// Adds `setting` for `key` when there is one.
    pub fn set(&mut self, key: &'static str, setting: Option<Setting>) {
        if let Some(s) = setting {
            self.settings.push((key, s));
        }
    }
}

impl From<&IoArgs> for PlanInput {
    fn from(a: &IoArgs) -> PlanInput {
        let mut input = PlanInput {
            targets: a.targets.clone(),
            spec: a.spec.clone(),
            profile: Setting::flag("--profile", &a.profile),
            settings: Vec::new(),
            sweep: a.sweep.clone(),
            repeat: a.repeat.clone(),
            keep_file: a.keep_file,
            force: a.force,
            allow_destroy: a.allow_destroy,
            verify: a.verify,
        };
        for (key, flag, value) in [
            ("size", "--size", &a.size),
            ("block", "--block", &a.block),
            ("mix", "--mix", &a.mix),
            ("read", "--read", &a.read),
            ("random", "--random", &a.random),
            ("threads", "--threads", &a.threads),
            ("depth", "--depth", &a.depth),
            ("rate", "--rate", &a.rate),
            ("fsync_every", "--fsync-every", &a.fsync_every),
            ("engine", "--engine", &a.engine),
            ("duration", "--duration", &a.duration),
            ("warmup", "--warmup", &a.warmup),
        ] {
            input.set(key, Setting::flag(flag, value));
        }
        input.set("buffered", Setting::switch("--buffered", a.buffered));
        input.set("write_through", Setting::switch("--write-through", a.write_through));
        input
    }
}
