//! `spindle logtest`: the transaction-log test. For each transaction size: settle,
//! checkpoint and drop caches, then insert the rows committing every N, measured by the
//! harness (counters, CPU, the log volume's exact I/O) and saved as one run of a group; at
//! the end, the original article's `io_results` table with the optimum size marked.

mod table;

use crate::args::LogTestArgs;
use crate::commands::batch::Saver;
use crate::database::url_of;
use crate::measure::Measure;
use crate::progress::{Display, note, warn};
use crate::usage::UsageError;
use crate::{Outcome, interrupt, output, plan};
use spindle_counters::volumes_under;
use spindle_db::logtest::{self, LogTestPlan, MAX_ROW_BYTES};
use spindle_model::RunRecord;
use spindle_store::GroupKind;
use std::path::Path;
use std::time::Duration;

const DEFAULT_BATCHES: [u64; 6] = [1, 10, 100, 1_000, 10_000, 100_000];
/// More rows than this at one size is a typo (a trillion 4 KB rows).
const MAX_ROWS: u64 = 1_000_000_000_000;

pub fn run(args: &LogTestArgs) -> anyhow::Result<Outcome> {
    let url = url_of(&args.db)?;
    let rows = plan::rows_of("--rows", &args.rows, 100_000, MAX_ROWS)?;
    let batches = plan::row_list_of("--batch", &args.batch, &DEFAULT_BATCHES, MAX_ROWS)?;
    if let Some(&n) = batches.iter().find(|&&n| n > rows || rows % n != 0) {
        let last = rows % n;
        let why = if n > rows {
            format!("a transaction of {n} rows is more than the {rows} rows inserted (--rows)")
        } else {
            format!(
                "{rows} rows (--rows) do not divide into transactions of {n}: the last would hold {last} rows; \
                 choose sizes that divide --rows, so every transaction is the same size"
            )
        };
        return Err(UsageError::flag("--batch", n.to_string(), why).into());
    }
    let row_bytes = plan::rows_of("--row-bytes", &args.row_bytes, 4000, MAX_ROW_BYTES)?;
    let settle =
        plan::optional_duration_of("--settle", &args.settle, Duration::ZERO)?.unwrap_or(logtest::DEFAULT_SETTLE);
    let labels = output::labels(&args.output.labels)?;
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    let quiet = args.output.quiet;
    let mut saver = Saver::new(&args.store, (batches.len() > 1).then(|| group_name(&batches)))?;
    let stop = interrupt::stop_flag();

    let mut conn = spindle_db::open(&url)?;
    let files = conn.files()?;
    let version = conn.version()?;
    logtest::create(conn.as_mut(), row_bytes)?;
    let settings = conn.settings()?;
    let watched: Vec<&Path> = files.log.iter().chain(&files.data).map(|p| p.as_path()).collect();
    let log_volumes = files.log.as_deref().map(|p| volumes_under(&[p])).unwrap_or_default();
    if log_volumes.is_empty() {
        warn(quiet, &format!("{url}: the log is not on a volume of this machine; the device's figures are left out"));
    }
    let test = LogTestPlan { rows, row_bytes };
    let display = Display::new(quiet);
    let mut records: Vec<RunRecord> = Vec::new();
    let mut outcome = Outcome::Success;
    let mut failure = None;
    for &size in &batches {
        note(quiet, &format!("transaction size {size}: settling, checkpoint, dropping caches"));
        let notes = logtest::settle(conn.as_mut(), settle, stop)?;
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            outcome = Outcome::Interrupted;
            break;
        }
        let measure = Measure::start(&watched, log_volumes.clone(), interval, Vec::new());
        let mut progress = |done| display.fill(&format!("transaction size {size}"), done, rows);
        let batch = logtest::run_batch(conn.as_mut(), &test, size, stop, &mut progress);
        display.finish_line();
        let mut measured = measure.finish(Duration::ZERO);
        let batch = batch?;
        let volume = measured.volumes.pop();
        let context =
            logtest::Context { url: &url, version: &version, settings: &settings, plan: &test, notes: &notes };
        let mut record = logtest::record(&batch, volume, &context);
        measured.fill(&mut record, batch.rows);
        record.labels = labels.clone();
        record.command_line = output::command_line();
        let id = saver.save(&record, Some(format!("batch={size}")), 1)?;
        note(quiet, &format!("saved as run {id} in {}", saver.path.display()));
        let interrupted = batch.interrupted;
        if let Some(e) = batch.error {
            failure = Some(e);
        }
        records.push(record);
        if failure.is_some() || interrupted {
            outcome = if failure.is_some() { Outcome::OperationsFailed } else { Outcome::Interrupted };
            break;
        }
    }
    // The table is spindle's own; it goes when the test is over (a server that went away
    // took it down with it).
    let _ = logtest::drop(conn.as_mut());
    let rows_out = table::rows(&records);
    if let Some(best) = rows_out.iter().find(|r| r.optimum) {
        saver.set_group_summary(&serde_json::json!({
            "optimum_transaction_size": best.figures.transaction_size,
            "rule": "the smallest transaction size whose log MB/s is within 10% of the best",
        }))?;
    }
    if args.output.json {
        output::write_stdout(serde_json::to_string_pretty(&rows_out)?.as_bytes())?;
        output::write_stdout(b"\n")?;
    } else if args.output.csv {
        output::print(&records, &args.output)?;
    } else if !quiet {
        output::write_stdout(table::render(&url.to_string(), &rows_out).as_bytes())?;
    }
    if let Some(e) = failure {
        eprintln!("spindle: error: {e}; the runs so far are saved");
    }
    Ok(outcome)
}

fn group_name(batches: &[u64]) -> (GroupKind, String) {
    let list: Vec<String> = batches.iter().map(u64::to_string).collect();
    (GroupKind::Sweep, format!("logtest --batch {}", list.join(",")))
}
