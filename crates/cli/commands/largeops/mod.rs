//! `spindle largeops`: the four large operations on TPC-C's customer table, each a run in one
//! group, measured by the harness over the volumes of the engine's data and log: the load in
//! batches, the scan and the update after the caches are emptied (cold only when they were),
//! and the checkpoint after the update. The text table has the article's figures: time, and
//! the I/O sizes and rates the volumes saw.

mod cache;
mod checkpoints;
mod table;

use crate::args::LargeOpsArgs;
use crate::commands::batch::Saver;
use crate::commands::db::managed_instance_at;
use crate::database::url_of;
use crate::measure::Measure;
use crate::progress::{Display, note, warn};
use crate::{Outcome, interrupt, output, plan};
use spindle_counters::volumes_under;
use spindle_db::DbUrl;
use spindle_db::largeops::{self, Op, OpOutcome};
use spindle_db::managed::Instance;
use spindle_model::RunRecord;
use spindle_model::db::LargeOpFigures;
use spindle_store::{GroupKind, Point};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// More rows than this is a typo (a terabyte of customers).
const MAX_ROWS: u64 = 1_500_000_000;

pub fn run(args: &LargeOpsArgs) -> anyhow::Result<Outcome> {
    let url = url_of(&args.db)?;
    let rows = plan::rows_of("--rows", &args.rows, 3_000_000, MAX_ROWS)?;
    // A batch is at most every row (--rows).
    let batch = plan::rows_of("--batch", &args.batch, 50_000.min(rows), rows)?;
    let settle =
        plan::optional_duration_of("--settle", &args.settle, Duration::ZERO)?.unwrap_or(Duration::from_secs(5));
    let labels = output::labels(&args.output.labels)?;
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    let quiet = args.output.quiet;
    let mut saver = Saver::new(&args.store, Some((GroupKind::Sweep, format!("largeops --rows {rows}"))))?;
    let stop = interrupt::stop_flag();
    if rows % batch != 0 {
        note(quiet, &format!("{rows} rows in batches of {batch}: the last batch holds {}", rows % batch));
    }

    let mut managed = managed_instance_at(&url);
    let plan = OpsPlan { rows, batch, settle, interval, keep: args.keep };
    let mut records: Vec<RunRecord> = Vec::new();
    let outcome = run_ops(&url, managed.as_mut(), &plan, quiet, stop, &mut |op, mut record| {
        record.labels = labels.clone();
        record.command_line = output::command_line();
        let id = saver.save(&record, Some(Point::sweep("op", op.name())), 1)?;
        note(quiet, &format!("{} saved as run {id}", op.name()));
        records.push(record);
        Ok(())
    })?;
    if args.output.json {
        let ops: Vec<&LargeOpFigures> = records.iter().filter_map(|r| r.details.large_op()).collect();
        output::write_stdout(format!("{}\n", serde_json::to_string_pretty(&ops)?).as_bytes())?;
    } else if args.output.csv {
        output::print_document(&saver.document(&records), &args.output)?;
    } else if !quiet {
        output::write_stdout(table::render(&url.to_string(), &records).as_bytes())?;
    }
    Ok(outcome)
}

/// What a run of the operations is asked.
pub(crate) struct OpsPlan {
    pub rows: u64,
    pub batch: u64,
    pub settle: Duration,
    pub interval: Duration,
    /// Keep the table at the end.
    pub keep: bool,
}

/// Runs the four operations on the database at `url` (restarting `managed`, when spindle
/// manages it, to make the scan and the update cold), handing each operation's record to
/// `saved` as soon as it is done.
pub(crate) fn run_ops(
    url: &DbUrl,
    mut managed: Option<&mut Instance>,
    plan: &OpsPlan,
    quiet: bool,
    stop: &AtomicBool,
    saved: &mut dyn FnMut(Op, RunRecord) -> anyhow::Result<()>,
) -> anyhow::Result<Outcome> {
    let (rows, batch, settle, interval) = (plan.rows, plan.batch, plan.settle, plan.interval);
    let mut conn = spindle_db::open(url)?;
    let version = conn.version()?;
    let files = conn.files()?;
    let watched: Vec<PathBuf> = files.log.iter().chain(&files.data).cloned().collect();
    let paths: Vec<&Path> = watched.iter().map(PathBuf::as_path).collect();
    let volumes = volumes_under(&paths);
    if volumes.is_empty() {
        warn(quiet, &format!("{url}: its files are not on a volume of this machine; the I/O sizes are left out"));
    }
    let mut warnings = checkpoints::push_out(conn.as_mut(), managed.is_some())?;
    for w in &warnings {
        note(quiet, w);
    }
    largeops::create(conn.as_mut())?;
    let settings = conn.settings()?;
    let since =
        spindle_model::time::rfc3339_utc(SystemTime::now()).replace('T', " ").chars().take(19).collect::<String>();
    let display = Display::new(quiet);
    let mut outcome = Outcome::Success;
    let mut loaded = 0;
    for op in Op::ALL {
        sleep(settle, stop);
        if stop.load(Ordering::Relaxed) {
            outcome = Outcome::Interrupted;
            break;
        }
        let coldness = match op {
            Op::Scan | Op::Update => Some(cache::empty_caches(&mut conn, url, managed.as_deref_mut())?),
            Op::Load | Op::Checkpoint => None,
        };
        note(
            quiet,
            &format!("{}{}", op.name(), coldness.as_ref().map(|c| format!(" ({})", c.why)).unwrap_or_default()),
        );
        let before = conn.file_stats().ok();
        let measure = Measure::start(&paths, volumes.clone(), interval, Vec::new());
        let done: OpOutcome = match op {
            Op::Load => {
                let mut progress = |n| display.fill("loading customers", n, rows);
                let o = largeops::load(conn.as_mut(), rows, batch, &since, stop, &mut progress);
                display.finish_line();
                loaded = o.rows;
                o
            }
            Op::Scan => largeops::scan(conn.as_mut(), loaded),
            Op::Update => largeops::update_all(conn.as_mut(), loaded),
            Op::Checkpoint => largeops::checkpoint(conn.as_mut(), loaded),
        };
        let measured = measure.finish(Duration::ZERO);
        let after = conn.file_stats().ok();
        let figures = LargeOpFigures {
            operation: op.name().into(),
            rows: done.rows,
            seconds: done.elapsed.as_secs_f64(),
            batch: if op == Op::Load { batch } else { 0 },
            cold: coldness.as_ref().map(|c| c.cold),
            cold_why: coldness.as_ref().map(|c| c.why.clone()),
            volumes: measured.volumes.clone(),
            automatic_checkpoints: before.zip(after).and_then(|(b, a)| a.since(&b).checkpoints).map(|n| {
                // The manual checkpoint is counted too; the automatic ones are the rest.
                if op == Op::Checkpoint { n.saturating_sub(1) } else { n }
            }),
        };
        let context = largeops::Context { url, version: &version, settings: &settings, rows, batch };
        let mut record = largeops::record(&done, figures, warnings.clone(), &context);
        measured.fill(&mut record, done.rows);
        let failed = done.error.is_some();
        if let Some(e) = &done.error {
            eprintln!("spindle: error: {} failed: {e}; the runs so far are saved", op.name());
        }
        let interrupted = done.interrupted;
        saved(op, record)?;
        if failed {
            outcome = Outcome::OperationsFailed;
            break;
        }
        if interrupted {
            outcome = Outcome::Interrupted;
            break;
        }
        warnings.clear();
    }
    if !plan.keep {
        let _ = largeops::drop(conn.as_mut());
    }
    Ok(outcome)
}

/// Waits, waking early on a stop.
fn sleep(pause: Duration, stop: &AtomicBool) {
    let until = std::time::Instant::now() + pause;
    while !stop.load(Ordering::Relaxed) && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50).min(until.saturating_duration_since(std::time::Instant::now())));
    }
}
