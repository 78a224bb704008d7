//! `spindle hammer`: Database Hammer. `load` creates its table and loads it the fastest way the
//! engine has (the load's time and rate are kept as a run, since the SAN study behind Database
//! Hammer compared load times between storage layouts); `run` hammers it with concurrent
//! sessions. Both are workloads of the runner (`spindle_runner::workload::{hammer_load,
//! hammer}`); these commands parse, check and hand over.

mod load;
mod run;

use crate::Outcome;
use crate::args::{HammerAction, HammerArgs};
use crate::database::url_of;

pub fn run(args: &HammerArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        HammerAction::Load(a) => load::load(a),
        HammerAction::Run(a) => run::run(a),
    }
}
