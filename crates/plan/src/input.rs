//! What a command asks the planner for: `spindle io`'s flags, a suite member, one side of an
//! A/B experiment. Each command builds this from its own arguments, with origins that name
//! its own flags, so the planner never sees clap's types.

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
    /// `--expect`: what the volume was provisioned to deliver (`3000iops,125MB/s`).
    pub expect: Option<String>,
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
