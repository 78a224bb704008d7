//! The database a URL names, with the driver that speaks Hammer to it: the one place the
//! Hammer workload chooses by engine. SQLite is driven by blocking sessions on threads; the
//! servers by async sessions on a multi-threaded runtime of the driver's own.

use super::{Live, RunOutcome, RunPlan};
use crate::counters::{MySqlCounters, PgCounters, SqliteCounters};
use crate::load::{LoadOptions, LoadOutcome};
use crate::mysql::MySqlSession;
use crate::postgres::PgSession;
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
    Postgres(tokio::runtime::Runtime),
    MySql(tokio::runtime::Runtime),
}

impl Driver {
    pub fn new(url: &DbUrl) -> Result<Driver, DbError> {
        let kind = match (url.engine, &url.path) {
            (Engine::Sqlite, Some(path)) => Kind::Sqlite(path.clone()),
            (Engine::Postgres, _) => Kind::Postgres(runtime()?),
            (Engine::MySql, _) => Kind::MySql(runtime()?),
            (Engine::Sqlite, None) => {
                return Err(DbError::Unusable { db: url.to_string(), why: "name the database file".into() });
            }
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
            Kind::Postgres(_) | Kind::MySql(_) => None,
        }
    }

    /// The rows of a finished Hammer load in the database; an error when there is none.
    pub fn loaded_rows(&self) -> Result<u64, DbError> {
        match &self.kind {
            Kind::Sqlite(path) => crate::sqlite::loaded_rows(path),
            Kind::Postgres(rt) => rt.block_on(crate::postgres::loaded_rows(&self.url)),
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
            Kind::Postgres(rt) => rt.block_on(crate::postgres::load(&self.url, opts, progress, stop)),
            Kind::MySql(rt) => rt.block_on(crate::mysql::load(&self.url, opts, progress, stop)),
        }
    }

    /// The engine's own counters, read on the sampler's thread beside the run.
    pub fn counters(&self) -> Result<Box<dyn CounterSource>, DbError> {
        Ok(match &self.kind {
            Kind::Sqlite(path) => Box::new(SqliteCounters::new(path)),
            Kind::Postgres(_) => Box::new(PgCounters::connect(&self.url)?),
            Kind::MySql(_) => Box::new(MySqlCounters::connect(&self.url)?),
        })
    }

    /// One Hammer run: every session connected, then measured together from time zero.
    pub fn run(&self, plan: &RunPlan, stop: &'static AtomicBool, live: &Arc<Live>) -> Result<RunOutcome, DbError> {
        match &self.kind {
            Kind::Sqlite(path) => super::run(plan, |_| SqliteSession::connect(path), stop, live),
            Kind::Postgres(rt) => rt.block_on(super::run_tasks(
                plan,
                |_| {
                    let url = self.url.clone();
                    async move { PgSession::connect(&url).await }
                },
                stop,
                live.clone(),
            )),
            Kind::MySql(rt) => rt.block_on(super::run_tasks(
                plan,
                |_| {
                    let url = self.url.clone();
                    async move { MySqlSession::connect(&url).await }
                },
                stop,
                live.clone(),
            )),
        }
    }
}

/// The runtime network sessions share: as many threads as this machine has cores.
fn runtime() -> Result<tokio::runtime::Runtime, DbError> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .map_err(|e| DbError::Unusable { db: "the sessions' runtime".into(), why: e.to_string() })
}
