//! `spindle placement`: data and log on one volume, or on two, the question of the SAN study
//! behind Database Hammer. An A/B experiment (the runner's `experiment::ab`) over two generated
//! sides: one managed instance per layout, the same workload on both in alternating rounds (A B
//! | B A | ...), every run labelled `layout=same` or `layout=split` (and with its side and
//! round), one paired comparison per session count and per part (a large operation; the load
//! that readied Hammer's table, once per layout), then what each layout's volumes and the engine
//! did.

mod explain;

use crate::args::PlacementArgs;
use crate::console::{Console, Shown};
use crate::flags::{engine_of, read_pct_of, rounds_of, sessions_of, threshold_of};
use crate::origin::Origin;
use crate::paired::{comparisons_json, comparisons_text, overview_rows};
use crate::plan::DbWorkload;
use crate::progress::note;
use crate::usage::UsageError;
use crate::{Outcome, output, plan, runner, store};
use spindle_analysis::compare::Basis;
use spindle_analysis::compare::{ROUND_LABEL, SIDE_LABEL};
use spindle_analysis::findings::placement::{MoreRounds, recommend};
use spindle_counters::volumes_under;
use spindle_db::logtest::{LogTestPlan, MAX_ROW_BYTES};
use spindle_db::managed::ManagedEngine;
use spindle_model::RunRecord;
use spindle_model::record::shared_disks;
use spindle_plan::managed::managed_anyhow;
use spindle_runner::Observer;
use spindle_runner::experiment::ab::{self, AbPlan, Compared, random_bit};
use spindle_runner::experiment::placement::{Layout, Places};
use spindle_runner::experiment::rounds::{self, Side};
use spindle_runner::experiment::{Finished, Runner};
use spindle_runner::workload::database::Database;
use spindle_runner::workload::database::registry_path;
use spindle_runner::workload::largeops::OpsPlan;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

const DEFAULT_ROUNDS: u32 = 3;

pub fn run(args: &PlacementArgs) -> anyhow::Result<Outcome> {
    let setup = Setup::of(args)?;
    let (engine, workload, places) = (setup.engine, &setup.workload, &setup.places);
    let quiet = args.quiet;
    let out = crate::args::OutputArgs {
        json: args.print.json,
        csv: false,
        quiet,
        verbose: false,
        labels: args.labels.clone(),
    };
    let mut console = Console::new(&out, store::location(&args.store)?, Shown::Saved);
    console.repeat_word = "round";
    let mut runner = runner::new(&console, &args.store, setup.labels, setup.interval)?;

    // A is the layout with data and log together, B the split one; each instance is started
    // when its side is prepared, and removed at the end unless --keep.
    let registry = registry_path()?;
    let side = |layout: Layout| {
        let spec = places.spec(layout, engine, setup.memory, &registry);
        workload.on(Database::managed(spec, args.keep))
    };
    let (mut a, mut b) = (side(Layout::Same), side(Layout::Split));
    let first = if random_bit() { Side::A } else { Side::B };
    let order = rounds::order(setup.rounds, first);
    note(
        quiet,
        &format!(
            "{} instance per layout; {} rounds, {} first: {}",
            engine.name(),
            setup.rounds,
            first.label().to_uppercase(),
            rounds::order_text(&order)
        ),
    );
    let split_disk = split_disk(&console, &setup.split_data, &setup.split_wal);
    let layout_labels = |layout: Layout| BTreeMap::from([("layout".to_string(), layout.label().to_string())]);
    let plan = AbPlan {
        rounds: setup.rounds,
        first,
        points: workload.points(),
        threshold_pct: setup.threshold_pct,
        name: format!("placement {} {}", engine.name(), workload.name()),
        names: ["layout=same".into(), "layout=split".into()],
        side_labels: [layout_labels(Layout::Same), layout_labels(Layout::Split)],
    };
    let compared = ab::run(&mut runner, [&mut *a, &mut *b], &plan).map_err(managed_anyhow)?;

    let recommendations = recommendations(&compared, &setup.split_wal.display().to_string(), split_disk.as_deref());
    if args.print.json {
        output::write_stdout(&comparisons_json(&compared)?)?;
    } else if !quiet {
        let dirs = [
            (Layout::Same, args.same.as_path(), args.same.as_path()),
            (Layout::Split, setup.split_data.as_path(), setup.split_wal.as_path()),
        ];
        let volumes = volumes(&runner, &compared, dirs);
        output::write_text(&text(&runner, &compared, &volumes, &recommendations))?;
    }
    note(
        quiet,
        &format!(
            "saved in {}; the instances are {}",
            runner.saver.location,
            if args.keep { "kept" } else { "removed" }
        ),
    );
    Ok(runner.outcome)
}

/// The flags, checked before anything is started.
struct Setup {
    engine: ManagedEngine,
    split_data: PathBuf,
    split_wal: PathBuf,
    rounds: u32,
    threshold_pct: f64,
    workload: DbWorkload,
    memory: Option<u64>,
    labels: BTreeMap<String, String>,
    interval: Duration,
    places: Places,
}

impl Setup {
    fn of(args: &PlacementArgs) -> anyhow::Result<Setup> {
        let engine = engine_of(&args.engine)?;
        let (split_data, split_wal) = split_of(&args.split)?;
        for (flag, dir) in [("--same", args.same.as_path()), ("--split", &split_data), ("--split", &split_wal)] {
            if !dir.is_dir() {
                return Err(UsageError::flag(
                    flag,
                    dir.display().to_string(),
                    "not a directory; name a directory on the volume",
                )
                .into());
            }
        }
        let rounds = rounds_of(&args.rounds, DEFAULT_ROUNDS)?;
        let threshold_pct = threshold_of(&args.verdict)?;
        let workload = workload_of(args)?;
        let memory = match &args.memory {
            None => None,
            Some(t) => Some(spindle_model::units::parse_size(t).map_err(|e| UsageError::flag("--memory", t, e))?),
        };
        let labels = output::labels(&args.labels)?;
        for key in [SIDE_LABEL, ROUND_LABEL, "layout"] {
            if labels.contains_key(key) {
                return Err(
                    UsageError::flag("--label", key, "spindle placement sets this label on every run itself").into()
                );
            }
        }
        let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
        let places = Places::new(&args.same, &split_data, &split_wal);
        for dir in [&places.same, &places.split_data, &places.split_wal] {
            if dir.exists() {
                return Err(UsageError::request(format!(
                    "{} is there already (an earlier placement kept with --keep?); remove it, or name other directories",
                    dir.display()
                ))
                .into());
            }
        }
        Ok(Setup { engine, split_data, split_wal, rounds, threshold_pct, workload, memory, labels, interval, places })
    }
}

/// The device the split layout's two directories share, if they do, warned of before the
/// first round: such a split does not take the log off the data's device.
fn split_disk(console: &Console, split_data: &Path, split_wal: &Path) -> Option<String> {
    let split_disk = shared_disks(&[spindle_host::device_info(split_data), spindle_host::device_info(split_wal)])
        .into_iter()
        .next()
        .map(|s| s.disk);
    if let Some(disk) = &split_disk {
        console.warn(&format!(
            "{} and {} are on one physical device ({disk}): the split layout's log shares the data's device all \
             the same, so this compares two ways of using one device, not one volume against two",
            split_data.display(),
            split_wal.display()
        ));
    }
    split_disk
}

/// Each layout's volumes (data, log) with its runs at each compared point.
fn volumes<'r>(
    runner: &'r Runner<'_>,
    compared: &[Compared],
    dirs: [(Layout, &Path, &Path); 2],
) -> Vec<(explain::Volumes, Vec<explain::AtPoint<'r>>)> {
    dirs.into_iter()
        .map(|(layout, data, log)| {
            let on = |p: &Path| volumes_under(&[p]).into_iter().next();
            let v = explain::Volumes { layout, data: on(data), log: on(log) };
            let runs: Vec<&Finished> = runner
                .runs
                .iter()
                .filter(|f| f.record.labels.get("layout").map(String::as_str) == Some(layout.label()))
                .collect();
            // A point per compared group, in the order they ran: the load (made once per layout
            // as it was prepared), then each session count's rounds (or each operation's).
            let at_points = compared
                .iter()
                .map(|c| explain::AtPoint {
                    point: point_name(c),
                    runs: runs.iter().filter(|f| f.group == Some(c.group)).map(|f| &f.record).collect(),
                })
                .collect();
            (v, at_points)
        })
        .collect()
}

/// The runs, the comparisons, what the volumes did and the recommendation, as text.
fn text(
    runner: &Runner<'_>,
    compared: &[Compared],
    volumes: &[(explain::Volumes, Vec<explain::AtPoint<'_>>)],
    recommendations: &[String],
) -> Vec<u8> {
    let rows: Vec<(String, &RunRecord)> = overview_rows(runner)
        .into_iter()
        .map(|(row, r)| (format!("{row} {}", r.labels.get("layout").map_or("", String::as_str)), r))
        .collect();
    let mut text = spindle_report::render_overview(&rows);
    text.extend(comparisons_text(runner, compared, "layout=same", "layout=split"));
    text.extend(explain::render(volumes).into_bytes());
    text.extend(b"\nrecommendation:\n");
    for line in recommendations {
        text.extend(format!("  {line}\n").into_bytes());
    }
    text
}

/// What to do with the log, a sentence per point the rounds compared (a session count, or
/// the workload's one), each saying how sure it is; the loads, one run a side, decide nothing.
fn recommendations(compared: &[Compared], log_dir: &str, shared_disk: Option<&str>) -> Vec<String> {
    let paired: Vec<&Compared> = compared.iter().filter(|c| c.comparison.basis == Basis::Paired).collect();
    if paired.is_empty() {
        return vec!["None: no point was measured in paired rounds on both layouts".into()];
    }
    paired
        .iter()
        .map(|c| {
            let r = recommend(&c.comparison, log_dir, shared_disk, MoreRounds::Count("--rounds"));
            format!("at {}: {}.", point_name(c), r.text)
        })
        .collect()
}

/// What a compared group measured, as the output names it: `sessions=8`, `update`, `load`.
fn point_name(c: &Compared) -> String {
    let at: Vec<&str> = [c.point.as_deref(), c.part.as_deref()].into_iter().flatten().collect();
    match (at.is_empty(), c.comparison.basis) {
        (false, _) => at.join(" "),
        (true, Basis::Paired) => "the rounds".into(),
        (true, _) => "load".into(),
    }
}

/// `--split DATA_DIR,WAL_DIR`.
fn split_of(text: &str) -> Result<(PathBuf, PathBuf), UsageError> {
    match text.split_once(',') {
        Some((d, w)) if !d.trim().is_empty() && !w.trim().is_empty() && !w.contains(',') => {
            Ok((PathBuf::from(d.trim()), PathBuf::from(w.trim())))
        }
        _ => Err(UsageError::flag("--split", text, "two directories, data then log: --split /mnt/data,/mnt/log")),
    }
}

fn workload_of(args: &PlacementArgs) -> Result<DbWorkload, UsageError> {
    match args.workload.as_deref().unwrap_or("hammer") {
        "hammer" => {
            let rows = plan::rows_of("--rows", &args.rows, 1_000_000, spindle_db::keys::MAX_ROWS)?;
            let sessions = sessions_of(&args.sessions)?;
            let read_pct = read_pct_of(&args.read_ratio)?;
            let duration = plan::optional_duration_of("--duration", &args.timing.duration, Duration::from_millis(1))?
                .unwrap_or(Duration::from_secs(30));
            let warmup = plan::optional_duration_of("--warmup", &args.timing.warmup, Duration::ZERO)?
                .unwrap_or(Duration::from_secs(5));
            DbWorkload::hammer(Some(rows), &sessions, read_pct, duration, warmup, Some(Origin::Flag("--sessions")))
        }
        "logtest" => {
            let rows = plan::rows_of("--rows", &args.rows, 20_000, 1_000_000_000_000)?;
            let size = plan::rows_of("--batch", &args.batch, 1, rows)?;
            let row_bytes = 4000.min(MAX_ROW_BYTES);
            Ok(DbWorkload::LogTest { plan: LogTestPlan { rows, row_bytes }, size })
        }
        "largeops" => {
            let rows = plan::rows_of("--rows", &args.rows, 1_000_000, plan::MAX_CUSTOMERS)?;
            let batch = plan::rows_of("--batch", &args.batch, 50_000.min(rows), rows)?;
            Ok(DbWorkload::LargeOps(OpsPlan { rows, batch, settle: Duration::from_secs(2), keep: false }))
        }
        other => Err(UsageError::flag("--workload", other, "hammer, logtest or largeops")),
    }
}
