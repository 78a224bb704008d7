//! The database a URL names, with the driver that speaks Hammer to it: the one place the
//! Hammer workload chooses by engine. SQLite is driven by blocking sessions on threads; the
//! servers by async sessions on a multi-threaded runtime of the driver's own.

use super::{Live, RunOutcome, RunPlan};
use crate::counters::SqliteCounters;
use crate::load::{LoadOptions, LoadOutcome};
use crate::sqlite::SqliteSession;
use crate::{DbError, DbUrl, Engine};
use spindle_counters::CounterSource;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub struct Driver {
    url: DbUrl,
    kind: Kind,
}

enum Kind {
    /// A file, driven by blocking sessions on threads.
    Sqlite(PathBuf),
    /// Servers, driven by async sessions on a runtime of their own.
    #[cfg(feature = "postgres")]
    Postgres(tokio::runtime::Runtime),
    #[cfg(feature = "mysql")]
    MySql(tokio::runtime::Runtime),
}

impl Driver {
    pub fn new(url: &DbUrl) -> Result<Driver, DbError> {
        crate::built::check(url)?;
        let kind = match (url.engine, &url.path) {
            (Engine::Sqlite, Some(path)) => Kind::Sqlite(path.clone()),
            #[cfg(feature = "postgres")]
            (Engine::Postgres, _) => Kind::Postgres(runtime()?),
            #[cfg(feature = "mysql")]
            (Engine::MySql, _) => Kind::MySql(runtime()?),
            (Engine::Sqlite, None) => {
                return Err(DbError::Unusable { db: url.to_string(), why: "name the database file".into() });
            }
            #[cfg(not(all(feature = "postgres", feature = "mysql")))]
            _ => unreachable!("built::check refuses an engine this build lacks"),
        };
        Ok(Driver { url: url.clone(), kind })
    }

    pub fn url(&self) -> &DbUrl {
        &self.url
    }

    /// The database file, for an embedded engine (its growth is the load's bytes).
    pub fn file(&self) -> Option<&Path> {
        match &self.kind {
            Kind::Sqlite(path) => Some(path),
            #[cfg(feature = "net")]
            _ => None,
        }
    }

    /// The rows of a finished Hammer load in the database; an error when there is none.
    pub fn loaded_rows(&self) -> Result<u64, DbError> {
        match &self.kind {
            Kind::Sqlite(path) => crate::sqlite::loaded_rows(path),
            #[cfg(feature = "postgres")]
            Kind::Postgres(rt) => rt.block_on(crate::postgres::loaded_rows(&self.url)),
            #[cfg(feature = "mysql")]
            Kind::MySql(rt) => rt.block_on(crate::mysql::loaded_rows(&self.url)),
        }
    }

    /// Creates Hammer's table and loads it the fastest way the engine has.
    pub fn load(
        &self,
        opts: &LoadOptions,
        progress: &mut (dyn FnMut(u64, u64) + Send),
        stop: &'static AtomicBool,
    ) -> Result<LoadOutcome, DbError> {
        match &self.kind {
            Kind::Sqlite(path) => crate::sqlite::load(path, opts, progress, stop),
            #[cfg(feature = "postgres")]
            Kind::Postgres(rt) => rt.block_on(crate::postgres::load(&self.url, opts, progress, stop)),
            #[cfg(feature = "mysql")]
            Kind::MySql(rt) => rt.block_on(crate::mysql::load(&self.url, opts, progress, stop)),
        }
    }

    /// The engine's own counters, read on the sampler's thread beside the run.
    pub fn counters(&self) -> Result<Box<dyn CounterSource>, DbError> {
        Ok(match &self.kind {
            Kind::Sqlite(path) => Box::new(SqliteCounters::new(path)),
            #[cfg(feature = "postgres")]
            Kind::Postgres(_) => Box::new(crate::counters::PgCounters::connect(&self.url)?),
            #[cfg(feature = "mysql")]
            Kind::MySql(_) => Box::new(crate::counters::MySqlCounters::connect(&self.url)?),
        })
    }

    /// One Hammer run: every session connected, then measured together from time zero.
    pub fn run(&self, plan: &RunPlan, stop: &'static AtomicBool, live: &Arc<Live>) -> Result<RunOutcome, DbError> {
        match &self.kind {
            Kind::Sqlite(path) => super::run(plan, |_| SqliteSession::connect(path), stop, live),
            #[cfg(feature = "postgres")]
            Kind::Postgres(rt) => rt.block_on(super::run_tasks(
                plan,
                |_| {
                    let url = self.url.clone();
                    async move { crate::postgres::PgSession::connect(&url).await }
                },
                stop,
                live.clone(),
            )),
            #[cfg(feature = "mysql")]
            Kind::MySql(rt) => rt.block_on(super::run_tasks(
                plan,
                |_| {
                    let url = self.url.clone();
                    async move { crate::mysql::MySqlSession::connect(&url).await }
                },
                stop,
                live.clone(),
            )),
        }
    }
}

/// The runtime network sessions share: as many threads as this machine has cores.
#[cfg(feature = "net")]
fn runtime() -> Result<tokio::runtime::Runtime, DbError> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .map_err(|e| DbError::Unusable { db: "the sessions' runtime".into(), why: e.to_string() })
}
