//! `spindle logtest`: the transaction-log test. For each transaction size: settle,
//! checkpoint and drop caches, then insert the rows committing every N, measured by the
//! harness (counters, CPU, the log volume's exact I/O) and saved as one run of a group; at
//! the end, the original article's `io_results` table with the optimum size marked and why.

use crate::args::LogTestArgs;
use crate::console::{Console, Shown};
use crate::database::url_of;
use crate::usage::UsageError;
use crate::{Outcome, output, plan, runner, store};
use spindle_analysis::log_optimum;
use spindle_db::logtest::{self, LogTestPlan, MAX_ROW_BYTES};
use spindle_model::RunRecord;
use spindle_model::group::Point;
use spindle_model::group_summary::LogTestSummary;
use spindle_report::view::logtest as table;
use spindle_runner::experiment::series::{self, Step};
use spindle_runner::workload::Workload;
use spindle_runner::workload::database::Database;
use spindle_runner::workload::logtest::LogTest;
use spindle_store::GroupKind;
use std::time::Duration;

const DEFAULT_BATCHES: [u64; 6] = [1, 10, 100, 1_000, 10_000, 100_000];
/// More rows than this at one size is a typo (a trillion 4 KB rows).
const MAX_ROWS: u64 = 1_000_000_000_000;

pub fn run(args: &LogTestArgs) -> anyhow::Result<Outcome> {
    let url = url_of(&args.database.db)?;
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
    let console = Console::new(&args.output, store::location(&args.store)?, Shown::Saved);
    let mut runner = runner::new(&console, &args.store, labels, interval)?;
    let steps: Vec<Step> = batches
        .iter()
        .enumerate()
        .map(|(i, size)| Step {
            workload: 0,
            point: i,
            point_name: Some(Point::sweep("batch", size.to_string())),
            repeat: 1,
        })
        .collect();
    let group = (batches.len() > 1).then(|| group_name(&batches));
    let mut test = LogTest::new(Database::at(url.clone(), None), LogTestPlan { rows, row_bytes }, batches, settle);
    series::run(&mut runner, &mut [&mut test as &mut dyn Workload], &steps, group)?;
    let records: Vec<RunRecord> = runner.runs.iter().map(|f| f.record.clone()).collect();
    let rows_out = table::rows(&records);
    if let (Some(best), Some(group)) = (rows_out.iter().find(|r| r.optimum), runner.groups.first()) {
        let summary = LogTestSummary::Optimum {
            optimum_transaction_size: best.figures.transaction_size,
            rule: log_optimum::RULE.into(),
            why: best.optimum_why.clone(),
            from: best.lead.volume.as_deref().unwrap_or("the engine's counters").into(),
        };
        runner.saver.set_group_summary(group, &serde_json::to_value(summary)?)?;
    } else if let (Some(last), Some(group)) = (rows_out.iter().find(|r| r.still_rising), runner.groups.first()) {
        let summary = LogTestSummary::StillRising {
            still_rising_at: last.figures.transaction_size,
            rule: log_optimum::RULE.into(),
            why: table::rising_words(last.figures.transaction_size),
            from: last.lead.volume.as_deref().unwrap_or("the engine's counters").into(),
        };
        runner.saver.set_group_summary(group, &serde_json::to_value(summary)?)?;
    }
    if args.output.json {
        output::write_stdout(serde_json::to_string_pretty(&rows_out)?.as_bytes())?;
        output::write_stdout(b"\n")?;
    } else if args.output.csv {
        output::print_document(&runner.saver.document(&records), &args.output)?;
    } else if !quiet {
        output::write_text(table::render(&url.to_string(), &rows_out).as_bytes())?;
    }
    Ok(runner.outcome)
}

fn group_name(batches: &[u64]) -> (GroupKind, String) {
    let list: Vec<String> = batches.iter().map(u64::to_string).collect();
    (GroupKind::Sweep, format!("logtest --batch {}", list.join(",")))
}
