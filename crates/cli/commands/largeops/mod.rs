//! `spindle largeops`: the four large operations on TPC-C's customer table (after "Performance
//! impact of controller cache: SQL Server large operations"), each a run in one group, measured
//! by the runner's large-operations workload; `--repeat N` runs them N times, so `compare`
//! can judge each operation against the same operation under another setting. The text table
//! has the article's figures: time, and the I/O sizes and rates the volumes saw.

mod table;

use crate::args::LargeOpsArgs;
use crate::commands::db::managed_instance_at;
use crate::console::{Console, Shown};
use crate::database::url_of;
use crate::{Outcome, output, plan, runner, store};
use spindle_model::RunRecord;
use spindle_model::db::LargeOpFigures;
use spindle_runner::experiment::series::{self, Step};
use spindle_runner::workload::Workload;
use spindle_runner::workload::database::Database;
use spindle_runner::workload::largeops::{LargeOps, OpsPlan};
use spindle_store::GroupKind;
use std::time::Duration;

pub fn run(args: &LargeOpsArgs) -> anyhow::Result<Outcome> {
    let url = url_of(&args.database.db)?;
    let rows = plan::rows_of("--rows", &args.rows, 3_000_000, plan::MAX_CUSTOMERS)?;
    // A batch is at most every row (--rows).
    let batch = plan::rows_of("--batch", &args.batch, 50_000.min(rows), rows)?;
    let settle =
        plan::optional_duration_of("--settle", &args.settle, Duration::ZERO)?.unwrap_or(Duration::from_secs(5));
    let repeats = plan::repeats_of(&args.repeat)?;
    let labels = output::labels(&args.output.labels)?;
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    let quiet = args.output.quiet;
    let console = Console::new(&args.output, store::location(&args.store)?, Shown::Saved);
    let mut runner = runner::new(&console, &args.store, labels, interval)?;
    let name = if repeats > 1 {
        format!("largeops --rows {rows} --repeat {repeats}")
    } else {
        format!("largeops --rows {rows}")
    };
    let steps: Vec<Step> = (1..=repeats).map(|repeat| Step { repeat, ..Step::once() }).collect();
    let db = Database::at(url.clone(), managed_instance_at(&url));
    let mut ops = LargeOps::new(db, OpsPlan { rows, batch, settle, keep: args.keep });
    series::run(&mut runner, &mut [&mut ops as &mut dyn Workload], &steps, Some((GroupKind::Sweep, name)))?;
    let records: Vec<RunRecord> = runner.runs.iter().map(|f| f.record.clone()).collect();
    if args.output.json {
        let ops: Vec<&LargeOpFigures> = records.iter().filter_map(|r| r.details.large_op()).collect();
        output::write_stdout(format!("{}\n", serde_json::to_string_pretty(&ops)?).as_bytes())?;
    } else if args.output.csv {
        output::print_document(&runner.saver.document(&records), &args.output)?;
    } else if !quiet {
        output::write_text(table::render(&url.to_string(), &records).as_bytes())?;
    }
    Ok(runner.outcome)
}
