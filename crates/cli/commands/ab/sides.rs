//! The two sides of `spindle ab`, planned before anything runs: both I/O workload files (one
//! job each), or both `[database]` workloads of one kind. One of each measures different
//! things and is refused, as is a database side whose sessions the server has no room for.

use crate::args::AbArgs;
use crate::commands::db::{managed_instance_at, registry_path};
use crate::machine::ThisMachine;
use crate::origin::Setting;
use crate::plan::{self, DatabaseSide, DbTarget, DbWorkload, PlanInput, SpecFile};
use crate::usage::UsageError;
use spindle_analysis::compare::{device_differences, spec_differences};
use spindle_db::managed::{Checkpoints, InstanceSpec};
use spindle_model::record::DeviceInfo;
use spindle_model::spec::JobSpec;
use spindle_runner::experiment::rounds::Side;
use spindle_runner::workload::Workload;
use spindle_runner::workload::database::Database;
use std::path::Path;

pub enum Planned {
    Io { a: JobSpec, b: JobSpec, warnings: Vec<String> },
    Database { a: Box<DbSide>, b: Box<DbSide> },
}

/// A database side: its plan and the database it runs on.
pub struct DbSide {
    planned: DatabaseSide,
    db: Database,
}

impl DbSide {
    pub fn into_workload(self: Box<Self>) -> Box<dyn Workload> {
        self.planned.workload.on(self.db)
    }
}

impl Planned {
    pub fn warnings(&self) -> &[String] {
        match self {
            Planned::Io { warnings, .. } => warnings,
            Planned::Database { .. } => &[],
        }
    }

    /// The points compared (a Hammer side's session counts).
    pub fn points(&self) -> Vec<Option<String>> {
        match self {
            Planned::Io { .. } => vec![None],
            Planned::Database { a, .. } => a.planned.workload.points(),
        }
    }

    /// Every setting in which A and B differ, said before the first run, so a difference the
    /// user did not mean to test is seen before the time is spent.
    pub fn differences(&self) -> String {
        // The devices under the targets too (loop devices and their direct I/O, device mapper
        // and md members, a disk shared), each with what it does to the figures.
        let mut devices = Vec::new();
        let diffs: Vec<(String, String, String)> = match self {
            Planned::Io { a, b, .. } => {
                let to_json = |j: &JobSpec| serde_json::to_value(j).unwrap_or_default();
                let under = |j: &JobSpec| -> Vec<DeviceInfo> {
                    j.targets.iter().map(|t| spindle_host::device_info(&t.path)).collect()
                };
                devices = device_differences(&under(a), &under(b));
                spec_differences(&to_json(a), &to_json(b))
            }
            Planned::Database { a, b } => {
                let (a, b) = (&a.planned.shown, &b.planned.shown);
                let value = |side: &[(String, String)], key: &str| {
                    side.iter().find(|(k, _)| k == key).map_or("(not set)".to_string(), |(_, v)| v.clone())
                };
                let mut keys: Vec<&String> = a.iter().chain(b).map(|(k, _)| k).collect();
                keys.sort();
                keys.dedup();
                keys.into_iter().map(|k| (k.clone(), value(a, k), value(b, k))).filter(|(_, va, vb)| va != vb).collect()
            }
        };
        if diffs.is_empty() && devices.is_empty() {
            return "A and B are the same workload: expect them to come out equivalent".into();
        }
        let mut text = "A and B differ in:".to_string();
        for (key, va, vb) in diffs {
            text.push_str(&format!("\n  {key}: A {va}; B {vb}"));
        }
        for x in devices {
            text.push_str(&format!("\n  {} {}: A {}; B {}", x.area, x.key, x.a.join(", "), x.b.join(", ")));
            if let Some(meaning) = x.meaning {
                text.push_str(&format!("\n    ({meaning})"));
            }
        }
        text
    }
}

/// Plans both sides.
pub fn plan(args: &AbArgs) -> anyhow::Result<Planned> {
    let (file_a, file_b) = (SpecFile::load(&args.a)?, SpecFile::load(&args.b)?);
    match (file_a.spec.database.is_some(), file_b.spec.database.is_some()) {
        (false, false) => {
            let (a, warnings_a) = plan_io_side(args, &args.a)?;
            let (b, warnings_b) = plan_io_side(args, &args.b)?;
            let mut warnings = warnings_a;
            for w in warnings_b {
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
            Ok(Planned::Io { a, b, warnings })
        }
        (true, true) => {
            for (flag, given) in [("--engine", args.engine.is_some()), ("--keep-file", args.keep_file)] {
                if given {
                    return Err(UsageError::request(format!(
                        "{flag} belongs to I/O workloads; {} and {} run [database] workloads",
                        args.a.display(),
                        args.b.display()
                    ))
                    .into());
                }
            }
            let a = plan_database_side(args, &file_a, Side::A)?;
            let b = plan_database_side(args, &file_b, Side::B)?;
            if a.planned.workload.name() != b.planned.workload.name() {
                return Err(UsageError::request(format!(
                    "{} runs {} and {} runs {}: they measure different things; compare one workload on both sides",
                    args.a.display(),
                    a.planned.workload.name(),
                    args.b.display(),
                    b.planned.workload.name()
                ))
                .into());
            }
            if a.planned.workload.points() != b.planned.workload.points() {
                return Err(UsageError::request(format!(
                    "{} and {} run Hammer at different session counts: give both the same sessions, so each count is compared with itself",
                    args.a.display(),
                    args.b.display()
                ))
                .into());
            }
            Ok(Planned::Database { a: Box::new(a), b: Box::new(b) })
        }
        (a_db, _) => {
            let (io, db) = if a_db { (&args.b, &args.a) } else { (&args.a, &args.b) };
            Err(UsageError::request(format!(
                "{} runs I/O targets and {} a [database] workload: they measure different things; compare I/O with I/O, or a database workload with the same workload",
                io.display(),
                db.display()
            ))
            .into())
        }
    }
}

/// One side's I/O workload file, with the flags that apply to both over it; exactly one job.
fn plan_io_side(args: &AbArgs, file: &Path) -> Result<(JobSpec, Vec<String>), UsageError> {
    let mut input = PlanInput { spec: Some(file.to_path_buf()), keep_file: args.keep_file, ..PlanInput::default() };
    input.set("duration", Setting::flag("--duration", &args.duration));
    input.set("warmup", Setting::flag("--warmup", &args.warmup));
    input.set("engine", Setting::flag("--engine", &args.engine));
    let plan = plan::plan_io(&input, &ThisMachine)?;
    let job = plan.jobs.into_iter().next().map(|j| j.job).ok_or_else(|| UsageError::file(file, "no job to run"))?;
    Ok((job, plan.warnings))
}

/// One side's `[database]`: planned, its database named (a URL's server asked for room for the
/// sessions now), an instance to start placed in a directory of its own.
fn plan_database_side(args: &AbArgs, file: &SpecFile, side: Side) -> anyhow::Result<DbSide> {
    let planned = plan::plan_database(
        file,
        Setting::flag("--duration", &args.duration),
        Setting::flag("--warmup", &args.warmup),
    )?;
    let db = match &planned.target {
        DbTarget::Url(url) => {
            // A server is asked for room now; an SQLite file has no sessions to count (and
            // opening it would make it).
            let server = url.engine != spindle_db::Engine::Sqlite;
            if let (true, DbWorkload::Hammer { plans, sessions, .. }) = (server, &planned.workload) {
                let counts: Vec<u32> = plans.iter().map(|p| p.sessions).collect();
                if let Some((n, why)) = crate::database::beyond_room(url, &counts)? {
                    return Err(match sessions {
                        Some(origin) => UsageError::value(origin.clone(), n.to_string(), why),
                        None => UsageError::file(&file.path, format_args!("{n} sessions (the default): {why}")),
                    }
                    .into());
                }
            }
            Database::at(url.clone(), managed_instance_at(url))
        }
        DbTarget::Managed { engine, dir, wal_dir, memory, settings } => {
            let name = format!("spindle-ab-{}", side.label());
            let data = dir.join(&name);
            let wal = wal_dir.as_ref().map(|w| w.join(format!("{name}-wal")));
            for made in std::iter::once(&data).chain(wal.as_ref()) {
                if made.exists() {
                    return Err(UsageError::file(
                        &file.path,
                        format_args!(
                            "{} is there already (an earlier experiment's?); remove it, or name another dir",
                            made.display()
                        ),
                    )
                    .into());
                }
            }
            let spec = InstanceSpec {
                engine: *engine,
                data,
                wal,
                port: None,
                memory: *memory,
                checkpoints: Checkpoints::Normal,
                registry: registry_path()?,
                settings: settings.clone(),
            };
            Database::managed(spec, false)
        }
    };
    Ok(DbSide { planned, db })
}
