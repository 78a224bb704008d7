//! `spindle logtest`: the transaction-log test. For each transaction size: settle,
//! checkpoint and drop caches, then insert the rows committing every N, measured by the
//! harness (counters, CPU, the log volume's exact I/O) and saved as one run of a group; at
//! the end, the original article's `io_results` table with the optimum size marked.

mod session;
mod table;

pub(crate) use session::LogTest;

use crate::args::LogTestArgs;
use crate::commands::batch::Saver;
use crate::database::url_of;
use crate::progress::{Display, note};
use crate::usage::UsageError;
use crate::{Outcome, interrupt, output, plan};
use spindle_db::logtest::{self, LogTestPlan, MAX_ROW_BYTES};
use spindle_model::RunRecord;
use spindle_store::{GroupKind, Point};
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

    let display = Display::new(quiet);
    let mut test = LogTest::open(&url, LogTestPlan { rows, row_bytes }, settle, interval, quiet)?;
    let mut records: Vec<RunRecord> = Vec::new();
    let mut outcome = Outcome::Success;
    let mut failure = None;
    for &size in &batches {
        note(quiet, &format!("transaction size {size}: settling, checkpoint, dropping caches"));
        let Some(measured) = test.size(size, stop, &display)? else {
            outcome = Outcome::Interrupted;
            break;
        };
        let (mut record, batch) = (measured.record, measured.batch);
        record.labels = labels.clone();
        record.command_line = output::command_line();
        let id = saver.save(&record, Some(Point::sweep("batch", size.to_string())), 1)?;
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
    // The table is spindle's own; it goes when the test is over.
    test.finish();
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
        output::print_document(&saver.document(&records), &args.output)?;
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
