//! `spindle hammer`: Database Hammer (seed 000). `load` creates its table and loads it the
//! fastest way the engine has (the load's time and rate are kept as a run, since seed 000
//! compared load times between storage layouts); `run` hammers it with concurrent sessions.

mod load;
mod run;

use crate::Outcome;
use crate::args::{HammerAction, HammerArgs};
use crate::plan::PlanError;
use spindle_db::{DbUrl, Engine};
use std::path::PathBuf;

pub fn run(args: &HammerArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        HammerAction::Load(a) => load::load(a),
        HammerAction::Run(a) => run::run(a),
    }
}

fn url_of(text: &str) -> Result<DbUrl, PlanError> {
    // The message repeats the URL only as parsed (masked), never as typed.
    spindle_db::parse_url(text).map_err(|why| PlanError(format!("--db: {why}")))
}

/// The SQLite file of a URL; the other engines' drivers come next.
fn sqlite_path(url: &DbUrl) -> Result<PathBuf, PlanError> {
    url.path.clone().filter(|_| url.engine == Engine::Sqlite).ok_or_else(|| {
        PlanError(format!(
            "--db {url}: the {} driver is not built yet; this spindle runs Hammer on SQLite (sqlite:///path/to/hammer.db)",
            url.engine.name()
        ))
    })
}
