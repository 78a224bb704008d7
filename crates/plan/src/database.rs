//! A workload file's `[database]` section: which database (a URL, or an instance spindle starts
//! for the experiment with the settings given) and which workload runs on it (Hammer, the log
//! test or the large operations), validated before anything runs, every mistake named as
//! `FILE line N (key)`. `spindle ab` runs two such files against each other; `placement` plans
//! its workload as the same `DbWorkload`.

use super::spec_file::{Raw, SpecFile};
use super::values::{bad, count_of, duration_of, percent_of, size_of};
use crate::origin::{Origin, Setting};
use crate::usage::UsageError;
use serde::Deserialize;
use spindle_db::DbUrl;
use spindle_db::hammer::RunPlan;
use spindle_db::logtest::{LogTestPlan, MAX_ROW_BYTES};
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
    let raw = spec.database.as_ref().expect("called for a file with [database]");
    let at = |key: &str, s: &Spanned<String>| file.origin(key, s.span().start);
    if let Some(t) = spec.target.first() {
        let line = t.path.as_ref().map_or(0, |p| p.span().start);
        return Err(UsageError::at(
            file.origin("target", line),
            "a workload file runs [[target]]s or a [database], not both: they measure different things",
        ));
    }
    for (key, value) in [("engine", &spec.engine), ("verify", &spec.verify), ("keep_file", &spec.keep_file)] {
        if let Some(v) = value {
            return Err(UsageError::at(
                file.origin(key, v.span().start),
                format_args!(
                    "{key} belongs to I/O targets; this file runs a [database] (its engine goes in [database])"
                ),
            ));
        }
    }
    let mut shown = Vec::new();
    let target = match (&raw.url, &raw.engine) {
        (Some(_), Some(engine)) => {
            return Err(UsageError::at(
                at("engine", engine),
                "url names a database spindle does not start, and engine starts one: give one or the other",
            ));
        }
        (None, None) => {
            return Err(UsageError::file(
                &file.path,
                "[database] names no database: give url = \"postgres://...\", or engine = \"postgres\" and dir = \"/mnt/vol\" for an instance spindle starts",
            ));
        }
        (Some(url), None) => {
            let parsed = spindle_db::parse_url(url.get_ref()).map_err(|why| UsageError::at(at("url", url), why))?;
            if parsed.path.is_none() && parsed.database.is_none() {
                return Err(UsageError::at(at("url", url), format_args!("{parsed} names no database; add one")));
            }
            for (key, value) in [("dir", &raw.dir), ("wal_dir", &raw.wal_dir)] {
                if let Some(v) = value {
                    return Err(UsageError::at(
                        at(key, v),
                        "belongs to an instance spindle starts (engine =), not to a url",
                    ));
                }
            }
            if let Some(v) = &raw.memory {
                return Err(UsageError::at(
                    file.origin("memory", v.span().start),
                    "belongs to an instance spindle starts (engine =), not to a url",
                ));
            }
            if let Some((key, v)) = raw.settings.as_ref().and_then(|s| s.iter().next()) {
                return Err(UsageError::at(
                    file.origin(&format!("settings.{key}"), v.span().start),
                    "spindle sets a server's settings only on an instance it starts (engine = and dir =); it does not change a server at a url",
                ));
            }
            shown.push(("url".into(), parsed.to_string()));
            DbTarget::Url(crate::database_url::password_from_env(parsed))
        }
        (None, Some(engine)) => {
            let managed = ManagedEngine::parse(engine.get_ref())
                .ok_or_else(|| bad(&at("engine", engine), engine.get_ref(), "spindle starts postgres and mariadb"))?;
            let dir = raw.dir.as_ref().ok_or_else(|| {
                UsageError::at(
                    at("engine", engine),
                    "an instance spindle starts needs dir = \"/mnt/vol\": where its data goes",
                )
            })?;
            let directory = |key: &str, d: &Spanned<String>| {
                let path = PathBuf::from(d.get_ref());
                if path.is_dir() {
                    Ok(path)
                } else {
                    Err(bad(&at(key, d), d.get_ref(), "not a directory; name a directory on the volume"))
                }
            };
            let memory = file.setting("memory", &raw.memory).map(|s| size_of(&s)).transpose()?;
            let mut settings = Vec::new();
            for (key, value) in raw.settings.iter().flatten() {
                let s = file.setting(&format!("settings.{key}"), &Some(value.clone())).expect("given");
                let valid_key =
                    !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
                if !valid_key || s.text.contains(['\n', '\r']) {
                    return Err(bad(
                        &s.origin,
                        &s.text,
                        "a server setting is a name of letters, digits, _ and . with a one-line value",
                    ));
                }
                shown.push((format!("settings.{key}"), s.text.clone()));
                settings.push((key.clone(), s.text));
            }
            shown.push(("engine".into(), managed.name().into()));
            // Where its files go is what two sides most often differ in (data and log on one
            // volume or two).
            for (key, value) in [("dir", Some(dir)), ("wal_dir", raw.wal_dir.as_ref())] {
                shown.push((key.into(), value.map_or("(inside dir)".into(), |v| v.get_ref().clone())));
            }
            if let Some(s) = file.setting("memory", &raw.memory) {
                shown.push(("memory".into(), s.text));
            }
            DbTarget::Managed {
                engine: managed,
                dir: directory("dir", dir)?,
                wal_dir: raw.wal_dir.as_ref().map(|w| directory("wal_dir", w)).transpose()?,
                memory,
                settings,
            }
        }
    };
    let managed = matches!(target, DbTarget::Managed { .. });
    let workload_name = raw.workload.as_ref().map_or("hammer", |w| w.get_ref().as_str());
    let setting = |key: &str, raw: &Option<Raw>| file.setting(key, raw);
    let not_for = |key: &str, v: &Option<Raw>| -> Result<(), UsageError> {
        match v {
            Some(v) => Err(UsageError::at(
                file.origin(key, v.span().start),
                format_args!("{key} does not apply to workload {workload_name}"),
            )),
            None => Ok(()),
        }
    };
    let workload = match workload_name {
        "hammer" => {
            not_for("batch", &raw.batch)?;
            not_for("settle", &raw.settle)?;
            let load = match setting("rows", &raw.rows) {
                Some(s) if managed => Some(count_of(&s, 1, spindle_db::keys::MAX_ROWS, "rows")?),
                Some(s) => {
                    return Err(bad(
                        &s.origin,
                        &s.text,
                        "the table at a url is loaded with spindle hammer load; rows sets the load of an instance spindle starts",
                    ));
                }
                None if managed => Some(1_000_000),
                None => None,
            };
            let read_pct = setting("read_ratio", &raw.read_ratio).map(|s| percent_of(&s)).transpose()?.unwrap_or(50);
            let (sessions, origin) = match setting("sessions", &raw.sessions) {
                Some(s) => (sessions_of(&s)?, Some(s.origin)),
                None => (vec![8], None),
            };
            shown.push(("sessions".into(), sessions.iter().map(u32::to_string).collect::<Vec<_>>().join(",")));
            shown.push(("read_ratio".into(), read_pct.to_string()));
            for (key, d) in [("duration", duration), ("warmup", warmup)] {
                shown.push((key.into(), spindle_model::units::format_duration_ns(d.as_nanos() as u64)));
            }
            DbWorkload::hammer(load, &sessions, read_pct, duration, warmup, origin)?
        }
        "logtest" => {
            for (key, v) in [("sessions", &raw.sessions), ("read_ratio", &raw.read_ratio), ("settle", &raw.settle)] {
                not_for(key, v)?;
            }
            let rows = setting("rows", &raw.rows)
                .map(|s| count_of(&s, 1, 1_000_000_000_000, "rows"))
                .transpose()?
                .unwrap_or(20_000);
            let size = setting("batch", &raw.batch)
                .map(|s| count_of(&s, 1, rows, "the transaction size (rows, at most rows)"))
                .transpose()?
                .unwrap_or(1);
            DbWorkload::LogTest { plan: LogTestPlan { rows, row_bytes: 4000.min(MAX_ROW_BYTES) }, size }
        }
        "largeops" => {
            for (key, v) in [("sessions", &raw.sessions), ("read_ratio", &raw.read_ratio)] {
                not_for(key, v)?;
            }
            let rows = setting("rows", &raw.rows)
                .map(|s| count_of(&s, 1, MAX_CUSTOMERS, "rows"))
                .transpose()?
                .unwrap_or(1_000_000);
            let batch = setting("batch", &raw.batch)
                .map(|s| count_of(&s, 1, rows, "the batch (rows, at most rows)"))
                .transpose()?
                .unwrap_or(50_000.min(rows));
            let settle = setting("settle", &raw.settle)
                .map(|s| duration_of(&s))
                .transpose()?
                .map_or(Duration::from_secs(2), Duration::from_nanos);
            DbWorkload::LargeOps(OpsPlan { rows, batch, settle, keep: false })
        }
        other => {
            let w = raw.workload.as_ref().expect("named");
            return Err(bad(&at("workload", w), other, "hammer, logtest or largeops"));
        }
    };
    shown.push(("workload".into(), workload.name().into()));
    for (key, v) in [("rows", &raw.rows), ("batch", &raw.batch), ("settle", &raw.settle)] {
        if let Some(s) = setting(key, v) {
            shown.push((key.into(), s.text));
        }
    }
    Ok(DatabaseSide { target, workload, shown })
}

/// `--sessions 100,500,800`, `sessions = 8` or `sessions = "8,32,128"`: each count from 1 to
/// [`MAX_SESSIONS`].
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
