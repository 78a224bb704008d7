//! What a check will do, decided before any I/O: the battery and its size, whose guidance,
//! each directory's steps and log-test database, the layouts of two directories, the report's
//! path. Every mistake the user could make is refused here, naming it (exit 2).

use crate::battery::{self, Budget, IoStep, MIN_SUSTAIN, Sizing, bytes_needed};
use crate::dirs;
use crate::lock::{self, DirLock};
use crate::placement::{self, Layouts};
use crate::report;
use crate::run::LogDb;
use spindle_analysis::findings::Guidance;
use spindle_db::Engine;
use spindle_db::managed::ManagedEngine;
use spindle_model::expected::Expected;
use spindle_model::units::{format_bytes_approx, format_elapsed};
use spindle_plan::database_url::url_of;
use spindle_plan::usage::UsageError;
use spindle_runner::workload::database::registry_path;
use spindle_store::Location;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What the user asked of a check, as plain values (the command line's flags).
#[derive(Clone, Debug, Default)]
pub struct CheckInput {
    /// The directories to check; none is the current one.
    pub dirs: Vec<PathBuf>,
    /// `--quick`, `--thorough`: the battery's size.
    pub quick: bool,
    pub thorough: bool,
    /// `--for`: whose guidance.
    pub for_engine: Option<String>,
    /// `--db`: the database the log test runs on.
    pub db: Option<String>,
    /// `--managed`: a PostgreSQL or MariaDB instance started in each directory.
    pub managed: bool,
    /// `-o`: the HTML report's path, and `--force` to replace it.
    pub output: Option<PathBuf>,
    pub force: bool,
    /// `--expect`: the rates the volume was provisioned to deliver (`3000iops,125MB/s`).
    pub expect: Option<String>,
    /// `--sustain`: how long the sustained step holds the page reads (`off` leaves it out).
    pub sustain: Option<String>,
    /// The results store's files, which neither the report nor a test file may be.
    pub store_files: Vec<PathBuf>,
}

/// One directory's share of the check.
pub struct DirPlan {
    pub dir: PathBuf,
    pub steps: Vec<IoStep>,
    pub warnings: Vec<String>,
    /// Where its log test runs (`None`: a `--db` already tested in the first directory).
    pub log_db: Option<LogDb>,
    /// The log test's engine, as the evidence names it.
    pub log_engine: &'static str,
}

impl DirPlan {
    /// The battery's steps in this directory as planned: its I/O steps, and the log test's
    /// sizes where it runs one.
    pub fn steps(&self, sizing: &Sizing) -> usize {
        self.steps.len() + if self.log_db.is_some() { sizing.log_sizes.len() } else { 0 }
    }
}

pub struct CheckPlan {
    pub budget: Budget,
    pub sizing: Sizing,
    pub guidance: Guidance,
    pub dirs: Vec<DirPlan>,
    /// Two directories: data and log on one volume or two.
    pub layouts: Option<Layouts>,
    pub report: PathBuf,
    /// `--force`: the report may replace a file.
    pub force: bool,
    /// When planning began: the check's time counts from here.
    pub started: Instant,
    /// Bytes the battery needs free in each directory.
    pub needed: u64,
    /// About how long every step measures.
    pub takes: Duration,
    /// The batteries' steps (I/O and log test), for the progress line.
    pub battery_steps: usize,
    /// `--expect`: what each directory's volume should deliver.
    pub expected: Option<Expected>,
    /// Each directory held by this check until it ends.
    pub locks: Vec<DirLock>,
}

impl CheckPlan {
    /// The plan in a line, said before the first step.
    pub fn describe(&self, store: &Location) -> String {
        let layout_runs = self.layouts.as_ref().map_or(0, Layouts::steps);
        format!(
            "check ({} battery, for {}): {} steps in {} (2 more where a knee is a close call), about {}; needs {} free \
             in each; results kept in {}",
            self.budget.name(),
            guidance_name(self.guidance),
            self.battery_steps + layout_runs,
            self.dirs.iter().map(|d| d.dir.display().to_string()).collect::<Vec<_>>().join(", "),
            format_elapsed(self.takes),
            format_bytes_approx(self.needed),
            store
        )
    }
}

/// The check planned, and so validated, before any I/O: a mistake is a usage error naming it.
pub fn plan(args: &CheckInput) -> anyhow::Result<CheckPlan> {
    let started = Instant::now();
    let budget = match (args.quick, args.thorough) {
        (true, _) => Budget::Quick,
        (_, true) => Budget::Thorough,
        _ => Budget::Default,
    };
    let mut sizing = budget.sizing();
    if let Some(text) = &args.sustain {
        sizing.sustain = sustain_of(text)?;
    }
    let expected = args
        .expect
        .as_deref()
        .map(|text| spindle_model::expected::parse(text).map_err(|e| UsageError::flag("--expect", text, e)))
        .transpose()?;
    let given_db = args.db.as_deref().map(url_of).transpose()?;
    if let Some(url) = &given_db {
        spindle_db::check_built(url)?;
        // Reached now, so a wrong URL is said before the plan; whether the test's table can be
        // made there is known when the log test is prepared, still before any I/O.
        spindle_db::open(url)?;
    }
    let guidance = guidance_of(args.for_engine.as_deref(), given_db.as_ref().map(|u| u.engine))?;
    let managed = managed_of(args.managed, guidance)?;
    let registry = managed.map(|_| registry_path()).transpose()?;
    let paths: Vec<PathBuf> = if args.dirs.is_empty() { vec![PathBuf::from(".")] } else { args.dirs.clone() };
    // A database of the check's own in each directory; a given one is tested once, its log
    // being wherever its server keeps it.
    let needed = bytes_needed(&sizing, given_db.is_none());
    for dir in &paths {
        dirs::usable(dir, needed, budget)?;
    }
    let locks = paths.iter().map(|dir| lock::take(dir)).collect::<Result<Vec<_>, _>>()?;
    let report = report::path(args.output.as_deref(), &paths[0], args.force)?;
    spindle_plan::output_file::refuse_store(&report, &args.store_files, "-o")?;
    let mut planned = Vec::new();
    for (i, dir) in paths.iter().enumerate() {
        let (steps, warnings) = battery::plan_io(dir, guidance, &sizing)?;
        let (log_db, log_engine) = match (&given_db, managed, &registry) {
            (Some(url), _, _) => ((i == 0).then(|| LogDb::Given(url.clone())), url.engine.name()),
            (None, Some(engine), Some(registry)) => {
                (Some(LogDb::Managed(battery::instance_in(dir, engine, registry))), engine.name())
            }
            _ => (Some(LogDb::Own(battery::sqlite_path(dir))), "sqlite"),
        };
        planned.push(DirPlan { dir: dir.clone(), steps, warnings, log_db, log_engine });
    }
    let layouts = match paths.as_slice() {
        [_, _] => Some(placement::plan(&paths, guidance, &sizing, budget)?),
        _ => None,
    };
    let log_steps = planned.iter().filter(|d| d.log_db.is_some()).count() * sizing.log_sizes.len();
    let battery_steps = planned.iter().map(|d| d.steps(&sizing)).sum();
    let io_takes: u64 = planned.iter().flat_map(|d| &d.steps).map(|s| s.job.duration_ns + s.job.warmup_ns).sum();
    let takes = Duration::from_nanos(io_takes)
        + sizing.log_step * log_steps as u32
        + layouts.as_ref().map_or(Duration::ZERO, |l| l.takes());
    Ok(CheckPlan {
        budget,
        sizing,
        guidance,
        dirs: planned,
        layouts,
        report,
        force: args.force,
        started,
        needed,
        takes,
        battery_steps,
        expected,
        locks,
    })
}

/// `--sustain DURATION`, or `off`: at least long enough to test for a level shift, at most a day.
fn sustain_of(text: &str) -> Result<Option<Duration>, UsageError> {
    if matches!(text.trim(), "off" | "0") {
        return Ok(None);
    }
    let ns = spindle_model::units::parse_duration_ns(text).map_err(|e| UsageError::flag("--sustain", text, e))?;
    let hold = Duration::from_nanos(ns);
    if hold < MIN_SUSTAIN {
        return Err(UsageError::flag(
            "--sustain",
            text,
            format_args!(
                "at least {}: a shorter hold is too short to tell a burst running out from the rate's swing (or give off)",
                format_elapsed(MIN_SUSTAIN)
            ),
        ));
    }
    if hold > Duration::from_secs(24 * 3600) {
        return Err(UsageError::flag("--sustain", text, "at most a day (24h)"));
    }
    Ok(Some(hold))
}

/// `--managed` starts the engine `--for` names; only PostgreSQL and MariaDB can be started.
fn managed_of(managed: bool, guidance: Guidance) -> Result<Option<ManagedEngine>, UsageError> {
    match (managed, guidance) {
        (false, _) => Ok(None),
        (true, Guidance::Postgres) => Ok(Some(ManagedEngine::Postgres)),
        (true, Guidance::Mysql) => Ok(Some(ManagedEngine::Mariadb)),
        (true, _) => {
            Err(UsageError::flag("--managed", "", "starts PostgreSQL or MariaDB: add --for postgres or --for mysql"))
        }
    }
}

/// `--for`, else the engine of `--db`, else a generic OLTP database.
fn guidance_of(text: Option<&str>, engine: Option<Engine>) -> Result<Guidance, UsageError> {
    match text.map(str::trim) {
        Some("sqlserver") => Ok(Guidance::SqlServer),
        Some("postgres" | "postgresql") => Ok(Guidance::Postgres),
        Some("mysql" | "mariadb") => Ok(Guidance::Mysql),
        Some(other) => Err(UsageError::flag("--for", other, "valid engines: sqlserver, postgres, mysql")),
        None => Ok(match engine {
            Some(Engine::Postgres) => Guidance::Postgres,
            Some(Engine::MySql) => Guidance::Mysql,
            _ => Guidance::Generic,
        }),
    }
}

pub fn guidance_name(g: Guidance) -> &'static str {
    match g {
        Guidance::Generic => "a generic OLTP database",
        Guidance::SqlServer => "SQL Server",
        Guidance::Postgres => "PostgreSQL",
        Guidance::Mysql => "MySQL/MariaDB",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sustain_is_long_enough_to_test_or_off() {
        assert_eq!(sustain_of("90s"), Ok(Some(Duration::from_secs(90))));
        assert_eq!(sustain_of("off"), Ok(None));
        assert_eq!(sustain_of("0"), Ok(None));
        let short = sustain_of("5s").unwrap_err().to_string();
        assert!(short.contains("--sustain 5s") && short.contains("at least 10 s"), "{short}");
        assert!(sustain_of("2 days").unwrap_err().to_string().contains("--sustain 2 days"));
        assert!(sustain_of("25h").unwrap_err().to_string().contains("at most a day"));
    }

    #[test]
    fn guidance_comes_from_for_then_the_database() {
        assert_eq!(guidance_of(Some("mariadb"), None), Ok(Guidance::Mysql));
        assert_eq!(guidance_of(None, Some(Engine::Postgres)), Ok(Guidance::Postgres));
        assert_eq!(guidance_of(None, Some(Engine::Sqlite)), Ok(Guidance::Generic));
        assert_eq!(guidance_of(Some("sqlserver"), Some(Engine::MySql)), Ok(Guidance::SqlServer));
        let e = guidance_of(Some("oracle"), None).unwrap_err().to_string();
        assert!(e.contains("--for oracle") && e.contains("sqlserver, postgres, mysql"), "{e}");
        assert_eq!(managed_of(true, Guidance::Mysql), Ok(Some(ManagedEngine::Mariadb)));
        assert!(managed_of(true, Guidance::Generic).unwrap_err().to_string().contains("--for postgres"));
    }
}
