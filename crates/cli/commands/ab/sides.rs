//! The two sides of `spindle ab`, planned before anything runs: both I/O workload files (one
//! job each), or both `[database]` workloads of one kind. One of each measures different
//! things and is refused, as is a database side whose sessions the server has no room for.

use crate::args::AbArgs;
use crate::commands::db::managed_instance_at;
use crate::machine::ThisMachine;
use crate::origin::Setting;
use crate::plan::{self, DatabaseSide, DbTarget, DbWorkload, PlanInput, SpecFile};
use crate::usage::UsageError;
use spindle_analysis::compare::{device_differences, setting_differences, spec_differences, value_differences};
use spindle_db::managed::{Checkpoints, InstanceSpec};
use spindle_model::record::DeviceInfo;
use spindle_model::spec::JobSpec;
use spindle_runner::experiment::rounds::Side;
use spindle_runner::workload::Workload;
use spindle_runner::workload::database::Database;
use spindle_runner::workload::database::registry_path;
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
    /// user did not mean to test is seen before the time is spent. `files` are A's and B's
    /// workload files: where the plans resolve to the same workload, how the files differ is
    /// still named, so two differing files are never called one workload unsaid.
    pub fn differences(&self, files: [&Path; 2]) -> String {
        // The devices under the targets too (loop devices and their direct I/O, device mapper
        // and md members, a disk shared), each with what it does to the figures.
        let under =
            |paths: Vec<&Path>| -> Vec<DeviceInfo> { paths.into_iter().map(spindle_host::device_info).collect() };
        let (diffs, devices) = match self {
            Planned::Io { a, b, .. } => {
                let to_json = |j: &JobSpec| serde_json::to_value(j).unwrap_or_default();
                (spec_differences(&to_json(a), &to_json(b)), device_differences(&under(targets(a)), &under(targets(b))))
            }
            Planned::Database { a, b } => (
                setting_differences(&a.planned.shown, &b.planned.shown),
                device_differences(&under(a.local_paths()), &under(b.local_paths())),
            ),
        };
        let devices_are = match self {
            Planned::Database { .. } if !devices.is_empty() => format!("\n  ({DB_PATHS})"),
            _ => String::new(),
        };
        if diffs.is_empty() && devices.is_empty() {
            return match written_apart(files).as_slice() {
                [] => "A and B are the same workload (their files set the same values): expect them to come out \
                       equivalent"
                    .into(),
                keys => format!(
                    "A and B differ only in how their files write {} (spindle plans both as the same workload): \
                     expect them to come out equivalent",
                    keys.join(", ")
                ),
            };
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
        text.push_str(&devices_are);
        text
    }
}

/// What a database side's devices are, as the differences number them.
const DB_PATHS: &str = "a database's devices[0] holds its data and devices[1] its log; an SQLite file's one \
                        devices[0] both";

/// The paths of an I/O side's targets.
fn targets(job: &JobSpec) -> Vec<&Path> {
    job.targets.iter().map(|t| t.path.as_path()).collect()
}

impl DbSide {
    /// The paths on this machine the side's database keeps its files in (`DB_PATHS`): an
    /// instance's data directory and its log's (the data's when the log is inside it), an
    /// SQLite file's directory; none for a server at a URL.
    fn local_paths(&self) -> Vec<&Path> {
        match &self.planned.target {
            DbTarget::Managed { dir, wal_dir, .. } => vec![dir, wal_dir.as_ref().unwrap_or(dir)],
            DbTarget::Url(url) => url.path.as_deref().and_then(Path::parent).into_iter().collect(),
        }
    }
}

/// The keys (`database.dir`) whose values two workload files write differently, names only (a
/// URL's password stays unsaid); empty when either cannot be read again.
fn written_apart(files: [&Path; 2]) -> Vec<String> {
    let written = |path: &Path| -> Option<serde_json::Value> {
        let value: toml::Value = toml::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
        serde_json::to_value(value).ok()
    };
    match (written(files[0]), written(files[1])) {
        (Some(a), Some(b)) => value_differences(&a, &b).into_iter().map(|(key, _, _)| key).collect(),
        _ => Vec::new(),
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
    input.set("duration", Setting::flag("--duration", &args.timing.duration));
    input.set("warmup", Setting::flag("--warmup", &args.timing.warmup));
    input.set("engine", Setting::flag("--engine", &args.engine));
    let plan = plan::plan_io(&input, &ThisMachine)?;
    crate::output::refuse_store_targets(plan.jobs.iter().map(|p| &p.job), &crate::store::files(Some(&args.store)))?;
    let job = plan.jobs.into_iter().next().map(|j| j.job).ok_or_else(|| UsageError::file(file, "no job to run"))?;
    Ok((job, plan.warnings))
}

/// One side's `[database]`: planned, its database named (a URL's server asked for room for the
/// sessions now), an instance to start placed in a directory of its own.
fn plan_database_side(args: &AbArgs, file: &SpecFile, side: Side) -> anyhow::Result<DbSide> {
    let planned = plan::plan_database(
        file,
        Setting::flag("--duration", &args.timing.duration),
        Setting::flag("--warmup", &args.timing.warmup),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{Cli, Command};
    use clap::Parser;

    /// Two large-operations files, with these lines apart, planned and compared.
    fn differences(dir: &Path, a_lines: &str, b_lines: &str) -> String {
        let write = |name: &str, lines: &str| {
            let path = dir.join(name);
            let text = format!("[database]\nworkload = \"largeops\"\nsettle = \"0s\"\n{lines}");
            std::fs::write(&path, text).unwrap();
            path
        };
        let (a, b) = (write("a.toml", a_lines), write("b.toml", b_lines));
        let cli = Cli::try_parse_from(["spindle".as_ref(), "ab".as_ref(), a.as_os_str(), b.as_os_str()]).unwrap();
        let Command::Ab(args) = cli.command else { panic!("not ab") };
        plan(&args).unwrap().differences([&a, &b])
    }

    /// The case: two files whose instances keep their data and log in other directories
    /// were "the same workload: expect them to come out equivalent", the directories named only
    /// at the end (and there only as the instances' ports).
    #[test]
    fn files_that_differ_in_dir_and_wal_dir_say_so_first() {
        let scratch = tempfile::tempdir().unwrap();
        let d = |name: &str| {
            let path = scratch.path().join(name);
            std::fs::create_dir(&path).unwrap();
            path.display().to_string()
        };
        let (data_a, data_b, log_b) = (d("data-a"), d("data-b"), d("log-b"));
        let text = differences(
            scratch.path(),
            &format!("engine = \"postgres\"\ndir = \"{data_a}\"\n"),
            &format!("engine = \"postgres\"\ndir = \"{data_b}\"\nwal_dir = \"{log_b}\"\n"),
        );
        assert!(
            text.starts_with(&format!(
                "A and B differ in:\n  dir: A {data_a}; B {data_b}\n  wal_dir: A (inside dir); B {log_b}"
            )),
            "{text}"
        );
        assert!(!text.contains("same workload"), "{text}");

        // Written apart but planned alike (pg is postgres): the key is named, the workload said
        // to be one.
        let dir = format!("dir = \"{data_a}\"\n");
        let text =
            differences(scratch.path(), &format!("engine = \"postgres\"\n{dir}"), &format!("engine = \"pg\"\n{dir}"));
        assert_eq!(
            text,
            "A and B differ only in how their files write database.engine (spindle plans both as the same workload): \
             expect them to come out equivalent"
        );
        let a = format!("engine = \"postgres\"\n{dir}");
        let text = differences(scratch.path(), &a, &format!("{a}# a comment\n"));
        assert!(text.starts_with("A and B are the same workload (their files set the same values)"), "{text}");
    }
}
