//! A workload file's `[database]` section: which database (a URL, or an instance spindle starts
//! for the experiment with the settings given) and which workload runs on it (Hammer, the log
//! test or the large operations), validated before anything runs, every mistake named as
//! `FILE line N (key)`. `spindle ab` runs two such files against each other; `placement` plans
//! its workload as the same `DbWorkload`.

mod target;
mod workload;

use super::spec_file::{Raw, SpecFile};
use super::values::{bad, duration_of};
use crate::origin::{Origin, Setting};
use crate::usage::UsageError;
use serde::Deserialize;
use spindle_db::DbUrl;
use spindle_db::hammer::RunPlan;
use spindle_db::logtest::LogTestPlan;
use spindle_db::managed::{MAX_CONNECTIONS, ManagedEngine};
use spindle_runner::workload::Workload;
use spindle_runner::workload::database::Database;
use spindle_runner::workload::hammer::Hammer;
use spindle_runner::workload::largeops::{LargeOps, OpsPlan};
use spindle_runner::workload::logtest::LogTest;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use toml::Spanned;

/// More sessions than this in one process is a typo.
pub const MAX_SESSIONS: u64 = 100_000;
/// More customers than this is a typo (a terabyte of them).
pub const MAX_CUSTOMERS: u64 = 1_500_000_000;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDatabase {
    /// A database spindle does not start: `postgres://user@host/db`, `sqlite:///path/file.db`.
    pub url: Option<Spanned<String>>,
    /// Or an instance spindle starts for the experiment: `postgres` or `mariadb`...
    pub engine: Option<Spanned<String>>,
    /// ...with its data in a directory spindle makes here...
    pub dir: Option<Spanned<String>>,
    /// ...and its WAL or redo log in one spindle makes here (inside the data when absent).
    pub wal_dir: Option<Spanned<String>>,
    /// Its shared buffers or buffer pool.
    pub memory: Option<Raw>,
    /// Server settings of that instance, as its configuration file spells them.
    pub settings: Option<BTreeMap<String, Raw>>,
    /// `hammer` (the default), `logtest` or `largeops`.
    pub workload: Option<Spanned<String>>,
    pub rows: Option<Raw>,
    pub batch: Option<Raw>,
    pub sessions: Option<Raw>,
    pub read_ratio: Option<Raw>,
    pub settle: Option<Raw>,
}

/// Where the workload runs.
pub enum DbTarget {
    Url(DbUrl),
    /// An instance to start: data in `dir`, the log in `wal_dir`, with `settings`.
    Managed {
        engine: ManagedEngine,
        dir: PathBuf,
        wal_dir: Option<PathBuf>,
        memory: Option<u64>,
        settings: Vec<(String, String)>,
    },
}

/// What runs on a database.
#[derive(Clone)]
pub enum DbWorkload {
    /// Hammer at each session count (a point each); `load`: rows loaded when prepared (a
    /// fresh instance), else the table must be loaded already.
    Hammer {
        load: Option<u64>,
        plans: Vec<RunPlan>,
        sessions: Option<Origin>,
    },
    LogTest {
        plan: LogTestPlan,
        size: u64,
    },
    LargeOps(OpsPlan),
}

impl DbWorkload {
    /// Hammer at each of `sessions` (a point each). `load`: the rows loaded into an instance
    /// spindle starts, whose room for sessions is known now and checked, naming `origin`;
    /// `None`: a database at a URL, loaded already.
    pub fn hammer(
        load: Option<u64>,
        sessions: &[u32],
        read_pct: u8,
        duration: Duration,
        warmup: Duration,
        origin: Option<Origin>,
    ) -> Result<DbWorkload, UsageError> {
        if let (Some(_), Some(origin)) = (load, &origin) {
            let room = u64::from(MAX_CONNECTIONS) - 1;
            if let Some(n) = sessions.iter().find(|&&n| u64::from(n) > room) {
                return Err(bad(
                    origin,
                    &n.to_string(),
                    format_args!(
                        "an instance spindle starts takes {room} sessions (max_connections {MAX_CONNECTIONS} less 1 for spindle's counters)"
                    ),
                ));
            }
        }
        let plans = sessions
            .iter()
            .map(|&n| RunPlan {
                sessions: n,
                read_pct,
                rows: load.unwrap_or(0),
                warmup,
                duration,
                think: Duration::ZERO,
                rate_per_session: None,
                start: None,
            })
            .collect();
        Ok(DbWorkload::Hammer { load, plans, sessions: origin })
    }

    pub fn name(&self) -> &'static str {
        match self {
            DbWorkload::Hammer { .. } => "hammer",
            DbWorkload::LogTest { .. } => "logtest",
            DbWorkload::LargeOps(_) => "largeops",
        }
    }

    /// The points compared: each session count when there are several.
    pub fn points(&self) -> Vec<Option<String>> {
        match self {
            DbWorkload::Hammer { plans, .. } if plans.len() > 1 => {
                plans.iter().map(|p| Some(format!("sessions={}", p.sessions))).collect()
            }
            _ => vec![None],
        }
    }

    /// The workload on `db`, for the runner.
    pub fn on(&self, db: Database) -> Box<dyn Workload> {
        match self {
            DbWorkload::Hammer { load, plans, .. } => Box::new(Hammer::new(db, *load, plans.clone(), None)),
            DbWorkload::LogTest { plan, size } => {
                Box::new(LogTest::new(db, plan.clone(), vec![*size], Duration::from_secs(1)))
            }
            DbWorkload::LargeOps(plan) => Box::new(LargeOps::new(db, plan.clone())),
        }
    }
}

/// A planned `[database]` side.
pub struct DatabaseSide {
    pub target: DbTarget,
    pub workload: DbWorkload,
    /// Every setting as written (a URL's password masked), to show how two sides differ.
    pub shown: Vec<(String, String)>,
}

/// Plans `file`'s `[database]` section; `duration` and `warmup` (flags) over the file's own.
pub fn plan_database(
    file: &SpecFile,
    duration: Option<Setting>,
    warmup: Option<Setting>,
) -> Result<DatabaseSide, UsageError> {
    let spec = &file.spec;
    let time = |flag: Option<Setting>, key: &str, raw: &Option<Raw>, default: u64| -> Result<Duration, UsageError> {
        match flag.or_else(|| file.setting(key, raw)) {
            Some(s) => Ok(Duration::from_nanos(duration_of(&s)?)),
            None => Ok(Duration::from_secs(default)),
        }
    };
    let duration = time(duration, "duration", &spec.duration, 30)?;
    let warmup = time(warmup, "warmup", &spec.warmup, 5)?;
    let section = Section { file, raw: spec.database.as_ref().expect("called for a file with [database]") };
    section.only_a_database()?;
    let mut shown = Vec::new();
    let target = section.target(&mut shown)?;
    let managed = matches!(target, DbTarget::Managed { .. });
    let workload = section.workload(managed, duration, warmup, &mut shown)?;
    shown.push(("workload".into(), workload.name().into()));
    for (key, v) in [("rows", &section.raw.rows), ("batch", &section.raw.batch), ("settle", &section.raw.settle)] {
        if let Some(s) = file.setting(key, v) {
            shown.push((key.into(), s.text));
        }
    }
    Ok(DatabaseSide { target, workload, shown })
}

/// A file's `[database]` section as it is validated: each part checked where it was written.
struct Section<'a> {
    file: &'a SpecFile,
    raw: &'a RawDatabase,
}

impl Section<'_> {
    /// Where `key`'s text value was written.
    fn at(&self, key: &str, s: &Spanned<String>) -> Origin {
        self.file.origin(key, s.span().start)
    }

    fn setting(&self, key: &str, raw: &Option<Raw>) -> Option<Setting> {
        self.file.setting(key, raw)
    }

    /// A file with a `[database]` runs nothing else: no I/O targets, none of their keys.
    fn only_a_database(&self) -> Result<(), UsageError> {
        let spec = &self.file.spec;
        if let Some(t) = spec.target.first() {
            let line = t.path.as_ref().map_or(0, |p| p.span().start);
            return Err(UsageError::at(
                self.file.origin("target", line),
                "a workload file runs [[target]]s or a [database], not both: they measure different things",
            ));
        }
        for (key, value) in [("engine", &spec.engine), ("verify", &spec.verify), ("keep_file", &spec.keep_file)] {
            if let Some(v) = value {
                return Err(UsageError::at(
                    self.file.origin(key, v.span().start),
                    format_args!(
                        "{key} belongs to I/O targets; this file runs a [database] (its engine goes in [database])"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// `--sessions 100,500,800`, `sessions = 8` or `sessions = "8,32,128"`: each count from 1 to
/// `MAX_SESSIONS`.
pub fn sessions_of(s: &Setting) -> Result<Vec<u32>, UsageError> {
    s.text
        .split(',')
        .map(|one| {
            one.trim()
                .parse::<u64>()
                .ok()
                .filter(|n| (1..=MAX_SESSIONS).contains(n))
                .map(|n| n as u32)
                .ok_or_else(|| bad(&s.origin, &s.text, format_args!("each count from 1 to {MAX_SESSIONS}")))
        })
        .collect()
}
