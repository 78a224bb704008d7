//! `spindle hammer`: Database Hammer (seed 000). `load` creates its table and loads it the
//! fastest way the engine has (the load's time and rate are kept as a run, since seed 000
//! compared load times between storage layouts); `run` hammers it with concurrent sessions.

mod load;
mod run;

pub(crate) use load::load_table;
pub(crate) use run::{Prepared, hammer_once, prepare, read_pct_of};

use crate::Outcome;
use crate::args::{HammerAction, HammerArgs};
use crate::database::url_of;

use crate::usage::UsageError;
use spindle_db::{DbUrl, Engine};
use std::path::PathBuf;

pub fn run(args: &HammerArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        HammerAction::Load(a) => load::load(a),
        HammerAction::Run(a) => run::run(a),
    }
}

/// The database a URL names, with the driver that speaks to it.
enum Target {
    /// A file, driven by blocking sessions on threads.
    Sqlite(PathBuf),
    /// Servers, driven by async sessions on a runtime of their own.
    Postgres(DbUrl, tokio::runtime::Runtime),
    MySql(DbUrl, tokio::runtime::Runtime),
}

fn target_of(url: &DbUrl) -> anyhow::Result<Target> {
    match (url.engine, &url.path) {
        (Engine::Sqlite, Some(path)) => Ok(Target::Sqlite(path.clone())),
        (Engine::Postgres, _) => Ok(Target::Postgres(url.clone(), runtime()?)),
        (Engine::MySql, _) => Ok(Target::MySql(url.clone(), runtime()?)),
        (Engine::Sqlite, None) => Err(UsageError::flag("--db", url.to_string(), "name the database file").into()),
    }
}

/// The runtime network sessions share: as many threads as this machine has cores.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    Ok(tokio::runtime::Builder::new_multi_thread().worker_threads(threads).enable_all().build()?)
}
