//! The check's battery: its steps and their sizes (`--quick`, the default, `--thorough`). Each
//! I/O step is planned exactly as `spindle io` plans a job (the same validation, free-space and
//! alignment checks), so a step's figures are what the standalone command would measure.

use spindle_analysis::findings::Guidance;
use spindle_db::managed::{Checkpoints, InstanceSpec, ManagedEngine};
use spindle_model::group::Point;
use spindle_model::spec::JobSpec;
use spindle_model::units::format_size;
use spindle_plan::machine::ThisMachine;
use spindle_plan::origin::{Origin, Setting};
use spindle_plan::usage::UsageError;
use spindle_plan::{self as plan, PlanInput};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The check's test file in each directory: every I/O step but the verified one shares it.
pub const TEST_FILE: &str = "spindle-check.dat";
/// The verified pass's own file: verification marks and stamps what it writes.
pub const VERIFY_FILE: &str = "spindle-check-verify.dat";
/// The sustained step's name.
pub const SUSTAINED: &str = "sustained";
/// The shortest hold `--sustain` takes: a shorter series is too short to test for a level shift.
pub const MIN_SUSTAIN: Duration = Duration::from_secs(10);
/// Bytes of each log test row (the original article's `char(4000)`).
pub const LOG_ROW_BYTES: u64 = 4000;

/// How long a battery runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Quick,
    Default,
    Thorough,
}

/// What a budget buys: the test file, each step's time, the depths and transaction sizes.
#[derive(Clone, Debug)]
pub struct Sizing {
    pub file: u64,
    pub verify_file: u64,
    pub step: Duration,
    pub warmup: Duration,
    pub depths: &'static [u32],
    pub log_sizes: &'static [u64],
    /// About how long the log test's first size (a commit per row) runs.
    pub log_step: Duration,
    /// The pause and checkpoint before each transaction size.
    pub log_settle: Duration,
    /// The most rows the log test inserts at one size: a fast device (or a write cache) must
    /// not turn the step into a long one, nor fill the directory (the rows of every size stay
    /// until the test ends, as in the original article).
    pub max_log_rows: u64,
    /// How long the sustained step holds the page reads (`--sustain`): long enough for a
    /// cloud volume's burst allowance to run out; `None` leaves the step out.
    pub sustain: Option<Duration>,
}

const MIB: u64 = 1 << 20;

impl Budget {
    pub fn name(self) -> &'static str {
        match self {
            Budget::Quick => "quick",
            Budget::Default => "default",
            Budget::Thorough => "thorough",
        }
    }

    pub fn sizing(self) -> Sizing {
        match self {
            // At most a minute on this kind of machine: 11 short I/O steps and 3 log sizes.
            Budget::Quick => Sizing {
                file: 256 * MIB,
                verify_file: 32 * MIB,
                step: Duration::from_secs(2),
                warmup: Duration::from_millis(500),
                depths: &[1, 2, 4, 8, 16, 32],
                log_sizes: &[1, 10, 100],
                log_step: Duration::from_secs(2),
                log_settle: Duration::ZERO,
                max_log_rows: 20_000,
                sustain: None,
            },
            Budget::Default => Sizing {
                file: 1024 * MIB,
                verify_file: 128 * MIB,
                step: Duration::from_secs(15),
                warmup: Duration::from_secs(2),
                depths: &[1, 2, 4, 8, 16, 32, 64],
                log_sizes: &[1, 10, 100, 1000],
                log_step: Duration::from_secs(10),
                log_settle: Duration::from_secs(1),
                max_log_rows: 100_000,
                sustain: Some(Duration::from_secs(120)),
            },
            Budget::Thorough => Sizing {
                file: 4096 * MIB,
                verify_file: 512 * MIB,
                step: Duration::from_secs(45),
                warmup: Duration::from_secs(5),
                depths: &[1, 2, 4, 8, 16, 32, 64, 128],
                log_sizes: &[1, 10, 100, 1000, 10_000],
                log_step: Duration::from_secs(30),
                log_settle: Duration::from_secs(5),
                max_log_rows: 250_000,
                sustain: Some(Duration::from_secs(600)),
            },
        }
    }
}

/// One I/O step as the battery defines it.
struct StepDef {
    /// The step's name as the store keeps it (`page-reads`).
    name: &'static str,
    /// A profile under the settings (the engine's log pattern), if any.
    profile: Option<&'static str>,
    settings: Vec<(&'static str, String)>,
    sweep: Option<String>,
    verify: bool,
    file: &'static str,
    /// How long it measures, with no warm-up, when not the battery's step time.
    hold: Option<Duration>,
}

/// A planned I/O step: its job, and where its run sits in the check's group.
pub struct IoStep {
    pub name: &'static str,
    pub job: JobSpec,
    pub point: Point,
}

/// A step's settings as the planner takes them.
fn settings(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
}

/// The engine's page size: what its data files are read in.
pub fn page_bytes(guidance: Guidance) -> u64 {
    match guidance {
        Guidance::Mysql => 16 * 1024,
        _ => 8 * 1024,
    }
}

/// The engine's commit: its log's write and flush, as the profile of that name does it.
fn commit_profile(guidance: Guidance) -> &'static str {
    match guidance {
        Guidance::SqlServer => "sqlserver.log-write",
        Guidance::Mysql => "mysql.redo-write",
        Guidance::Postgres | Guidance::Generic => "postgres.wal-write",
    }
}

fn defs(guidance: Guidance, sizing: &Sizing) -> Vec<StepDef> {
    let page = format_size(page_bytes(guidance));
    let depths: Vec<String> = sizing.depths.iter().map(u32::to_string).collect();
    let mut steps = vec![
        // The data files' page reads, one reader at rising depths: where does it stop paying?
        StepDef {
            name: "page-reads",
            profile: None,
            settings: settings(&[("block", &page), ("read", "100"), ("random", "100"), ("threads", "1")]),
            sweep: Some(format!("depth={}", depths.join(","))),
            verify: false,
            file: TEST_FILE,
            hold: None,
        },
        // A commit: the log's write and its flush, one at a time.
        StepDef {
            name: "commits",
            profile: Some(commit_profile(guidance)),
            settings: Vec::new(),
            sweep: None,
            verify: false,
            file: TEST_FILE,
            hold: None,
        },
        // A checkpoint's or lazy writer's large random writes (the SQLIO article's 256 KiB).
        StepDef {
            name: "large-writes",
            profile: None,
            settings: settings(&[
                ("block", "256K"),
                ("read", "0"),
                ("random", "100"),
                ("threads", "1"),
                ("depth", "32"),
            ]),
            sweep: None,
            verify: false,
            file: TEST_FILE,
            hold: None,
        },
        // A scan's read-ahead: 512 KiB sequential reads.
        StepDef {
            name: "large-reads",
            profile: None,
            settings: settings(&[
                ("block", "512K"),
                ("read", "100"),
                ("random", "0"),
                ("threads", "1"),
                ("depth", "8"),
            ]),
            sweep: None,
            verify: false,
            file: TEST_FILE,
            hold: None,
        },
        // Pages written and read back, every sector stamped and checked.
        StepDef {
            name: "verify",
            profile: None,
            settings: settings(&[
                ("block", &page),
                ("read", "50"),
                ("random", "100"),
                ("threads", "1"),
                ("depth", "4"),
            ]),
            sweep: None,
            verify: true,
            file: VERIFY_FILE,
            hold: None,
        },
    ];
    // Page reads held at the deepest depth, last: a burst allowance the steps before drew on
    // runs out within it, and the rate it falls to is what the volume sustains.
    if let Some(hold) = sizing.sustain {
        let deepest = sizing.depths.last().map_or("32".to_string(), u32::to_string);
        steps.push(StepDef {
            name: SUSTAINED,
            profile: None,
            settings: settings(&[
                ("block", &page),
                ("read", "100"),
                ("random", "100"),
                ("threads", "1"),
                ("depth", &deepest),
            ]),
            sweep: None,
            verify: false,
            file: TEST_FILE,
            hold: Some(hold),
        });
    }
    steps
}

/// Every I/O step of the battery in `dir`, planned (and so validated) before anything runs.
pub fn plan_io(dir: &Path, guidance: Guidance, sizing: &Sizing) -> Result<(Vec<IoStep>, Vec<String>), UsageError> {
    let mut steps = Vec::new();
    let mut warnings = Vec::new();
    for def in defs(guidance, sizing) {
        let size = if def.file == VERIFY_FILE { sizing.verify_file } else { sizing.file };
        let planned = plan_def(&def, &dir.join(def.file), size, sizing)?;
        for w in planned.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        for job in planned.jobs {
            let point = match (&planned.sweep, job.point) {
                (Some(sweep), Some(i)) => sweep.point(i),
                _ => Point::Member(def.name.to_string()),
            };
            steps.push(IoStep { name: def.name, job: job.job, point });
        }
    }
    Ok((steps, warnings))
}

/// One step's definition planned on `target` of `size` bytes, with the battery's step time.
fn plan_def(def: &StepDef, target: &Path, size: u64, sizing: &Sizing) -> Result<plan::IoPlan, UsageError> {
    let setting = |key: &'static str, text: String| Setting { text, origin: Origin::Check { step: def.name, key } };
    let mut input = PlanInput {
        targets: vec![target.to_path_buf()],
        profile: def.profile.map(|p| setting("profile", p.to_string())),
        sweep: def.sweep.clone(),
        verify: def.verify,
        ..PlanInput::default()
    };
    for (key, value) in &def.settings {
        input.set(key, Some(setting(key, value.clone())));
    }
    input.set("size", Some(setting("size", size.to_string())));
    let (step, warmup) = def.hold.map_or((sizing.step, sizing.warmup), |hold| (hold, Duration::ZERO));
    input.set("duration", Some(setting("duration", format!("{}ms", step.as_millis()))));
    input.set("warmup", Some(setting("warmup", format!("{}ms", warmup.as_millis()))));
    plan::plan_io(&input, &ThisMachine)
}

/// The data file of the layouts experiment, and its log file.
pub const LAYOUT_DATA_FILE: &str = "spindle-check-data.dat";
pub const LAYOUT_LOG_FILE: &str = "spindle-check-log.dat";

/// A busy OLTP database's data and log at once, as one job of two targets: page reads and
/// some writes on the data file in `data_dir` (two threads, 8 outstanding each), and the
/// engine's commits on the log file in `log_dir`.
pub fn plan_layout(
    data_dir: &Path,
    log_dir: &Path,
    guidance: Guidance,
    sizing: &Sizing,
) -> Result<(JobSpec, Vec<String>), UsageError> {
    let page = format_size(page_bytes(guidance));
    let data = StepDef {
        name: "layout-data",
        profile: None,
        settings: settings(&[("block", &page), ("read", "70"), ("random", "100"), ("threads", "2"), ("depth", "8")]),
        sweep: None,
        verify: false,
        file: LAYOUT_DATA_FILE,
        hold: None,
    };
    let log = StepDef {
        name: "layout-log",
        profile: Some(commit_profile(guidance)),
        settings: Vec::new(),
        sweep: None,
        verify: false,
        file: LAYOUT_LOG_FILE,
        hold: None,
    };
    let mut data_plan = plan_def(&data, &data_dir.join(data.file), sizing.file, sizing)?;
    let log_plan = plan_def(&log, &log_dir.join(log.file), sizing.verify_file, sizing)?;
    let mut warnings = data_plan.warnings;
    warnings.extend(log_plan.warnings.into_iter().filter(|w| !warnings.contains(w)).collect::<Vec<_>>());
    let (Some(mut job), Some(log_job)) = (data_plan.jobs.pop(), log_plan.jobs.into_iter().next()) else {
        return Err(UsageError::request("the data-and-log layout planned no job"));
    };
    // One job, so data and log run at once, as a database's do.
    job.job.targets.extend(log_job.job.targets);
    Ok((job.job, warnings))
}

/// Bytes the battery writes in a directory at most: its two test files and, when the log
/// test's database is its own, every row of every transaction size and one size's log.
pub fn bytes_needed(sizing: &Sizing, own_database: bool) -> u64 {
    let log = if own_database {
        let sizes = sizing.log_sizes.len() as u64 + 1;
        sizing.max_log_rows.saturating_mul(LOG_ROW_BYTES).saturating_mul(sizes)
    } else {
        0
    };
    sizing.file + sizing.verify_file + log
}

/// Rows for the log test: as many as a commit per row fits in `sizing.log_step` at the
/// measured commit latency, a multiple of every transaction size (so every transaction is
/// whole), at least five of the largest, at most `sizing.max_log_rows`.
pub fn log_rows(sizing: &Sizing, commit_latency: Duration) -> u64 {
    let largest = sizing.log_sizes.iter().copied().max().unwrap_or(1).max(1);
    let per_commit = commit_latency.as_nanos().max(1);
    let fits = (sizing.log_step.as_nanos() / per_commit).min(u128::from(sizing.max_log_rows)) as u64;
    let rows = fits.max(5 * largest).div_ceil(largest) * largest;
    rows.min(sizing.max_log_rows / largest * largest).max(largest)
}

/// The instance `--managed` starts in `dir` for the log test: data and log in a directory of
/// its own there (named for this process, so it never meets one the user has), a modest cache,
/// normal checkpoints; removed at the end.
pub fn instance_in(dir: &Path, engine: ManagedEngine, registry: &Path) -> InstanceSpec {
    InstanceSpec {
        engine,
        data: dir.join(format!("spindle-check-db-{}", std::process::id())),
        wal: None,
        port: None,
        memory: None,
        checkpoints: Checkpoints::Normal,
        registry: registry.to_path_buf(),
        settings: Vec::new(),
    }
}

/// Where the check's database goes when no `--db` is given: a SQLite file of its own in DIR.
pub fn sqlite_path(dir: &Path) -> PathBuf {
    dir.join(format!("spindle-check-{}.sqlite", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_rows_fit_the_step_and_divide_into_every_size() {
        let quick = Budget::Quick.sizing();
        // 1 ms commits: 2 s holds 2,000 of them.
        assert_eq!(log_rows(&quick, Duration::from_millis(1)), 2_000);
        // Slow commits still give five of the largest transaction.
        assert_eq!(log_rows(&quick, Duration::from_millis(500)), 500);
        // A commit that takes no time is capped, and still divides by every size.
        let capped = log_rows(&quick, Duration::ZERO);
        assert!(capped <= quick.max_log_rows && capped % 100 == 0, "{capped}");
        for budget in [Budget::Quick, Budget::Default, Budget::Thorough] {
            let s = budget.sizing();
            let rows = log_rows(&s, Duration::from_micros(37));
            assert!(s.log_sizes.iter().all(|n| rows % n == 0), "{budget:?}: {rows}");
        }
    }

    #[test]
    fn the_quick_battery_fits_in_well_under_a_gigabyte() {
        let quick = Budget::Quick.sizing();
        assert!(bytes_needed(&quick, true) < 700 << 20, "{}", bytes_needed(&quick, true));
        assert_eq!(bytes_needed(&quick, false), quick.file + quick.verify_file);
    }

    #[test]
    fn the_quick_battery_measures_for_well_under_a_minute() {
        let s = Budget::Quick.sizing();
        let io_steps = s.depths.len() + 4;
        let measured = (s.step + s.warmup) * io_steps as u32 + s.log_step * s.log_sizes.len() as u32;
        assert!(measured <= Duration::from_secs(40), "{measured:?}");
    }

    #[test]
    fn the_sustained_step_holds_the_deepest_page_reads_last_without_a_warm_up() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Budget::Default.sizing();
        let (steps, _) = plan_io(dir.path(), Guidance::Generic, &s).expect("the battery plans");
        let last = steps.last().unwrap();
        assert_eq!((last.name, &last.point), (SUSTAINED, &Point::Member(SUSTAINED.into())));
        assert_eq!((last.job.duration_ns, last.job.warmup_ns), (120_000_000_000, 0));
        let w = &last.job.targets[0].workload;
        assert_eq!((w.depth, w.threads, w.largest_block()), (64, 1, 8192));
        assert_eq!(steps.iter().filter(|st| st.name == SUSTAINED).count(), 1);
        s.sustain = None;
        let (without, _) = plan_io(dir.path(), Guidance::Generic, &s).unwrap();
        assert_eq!(without.len(), steps.len() - 1);
        assert!(Budget::Quick.sizing().sustain.is_none());
        assert_eq!(Budget::Thorough.sizing().sustain, Some(Duration::from_secs(600)));
    }

    #[test]
    fn every_step_plans_in_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let s = Budget::Quick.sizing();
        for guidance in [Guidance::Generic, Guidance::SqlServer, Guidance::Postgres, Guidance::Mysql] {
            let (steps, _) = plan_io(dir.path(), guidance, &s).expect("the battery plans");
            assert_eq!(steps.len(), s.depths.len() + 4, "{guidance:?}");
            assert!(steps.iter().all(|st| st.job.duration_ns == 2_000_000_000));
            let verify = steps.iter().find(|st| st.name == "verify").unwrap();
            assert!(verify.job.verify && verify.job.targets[0].path.ends_with(VERIFY_FILE));
            let commit = steps.iter().find(|st| st.name == "commits").unwrap();
            let w = &commit.job.targets[0].workload;
            assert!(w.fsync_every == 1 || w.write_through, "a commit waits for its flush: {w:?}");
        }
        assert_eq!(page_bytes(Guidance::Mysql), 16 * 1024);
    }
}
