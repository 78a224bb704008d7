//! `spindle hammer load`: create Hammer's table and load it; the load is saved as a run.

use super::url_of;
use crate::args::HammerLoadArgs;
use crate::console::{Console, Shown};
use crate::{Outcome, output, plan, runner, store};
use spindle_db::keys;
use spindle_db::load::LoadMode;
use spindle_runner::experiment::series::{self, Step};
use spindle_runner::workload::Workload;
use spindle_runner::workload::database::Database;
use spindle_runner::workload::hammer_load::HammerLoad;

pub(super) fn load(args: &HammerLoadArgs) -> anyhow::Result<Outcome> {
    let url = url_of(&args.database.db)?;
    let rows = plan::rows_of("--rows", &args.rows, 10_000_000, keys::MAX_ROWS)?;
    let labels = output::labels(&args.output.labels)?;
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    let mode = match (args.fresh, args.resume) {
        (true, _) => LoadMode::Fresh,
        (_, true) => LoadMode::Resume,
        _ => LoadMode::New,
    };
    let quiet = args.output.quiet;
    let console = Console::new(&args.output, store::location(&args.store)?, Shown::Saved);
    let mut runner = runner::new(&console, &args.store, labels, interval)?;
    let shown = url.to_string();
    let mut load = HammerLoad::new(Database::at(url, None), rows, mode);
    if let Err(e) = series::run(&mut runner, &mut [&mut load as &mut dyn Workload], &[Step::once()], None) {
        // The server went away mid-load: what each finished chunk committed is in the table,
        // and --resume counts it and loads the rest.
        if server_went_away(&e) {
            return Err(anyhow::anyhow!(
                "{}; the rows committed before it are kept: once the server is back, run the load again with --resume to load the rest",
                crate::error_text(&e)
            ));
        }
        return Err(e);
    }
    let (Some(run), Some(outcome)) = (runner.runs.first(), &load.outcome) else { return Ok(runner.outcome) };
    if args.output.json || args.output.csv {
        output::print_document(&runner.saver.document(std::slice::from_ref(&run.record)), &args.output)?;
    } else if !quiet {
        let secs = outcome.elapsed.as_secs_f64();
        println!(
            "loaded {} rows into {shown} in {secs:.2} s ({:.0} rows/s){}; the table holds {} rows",
            outcome.rows_loaded,
            outcome.rows_loaded as f64 / secs.max(1e-9),
            if outcome.interrupted { ", INTERRUPTED" } else { "" },
            outcome.rows_before + outcome.rows_loaded
        );
    }
    Ok(runner.outcome)
}

/// Whether the load failed because the server ended the session (it stopped, restarted or
/// was killed), rather than for something the user can fix in the command.
fn server_went_away(e: &anyhow::Error) -> bool {
    e.chain().any(|c| matches!(c.downcast_ref::<spindle_db::DbError>(), Some(spindle_db::DbError::Server { .. })))
}
