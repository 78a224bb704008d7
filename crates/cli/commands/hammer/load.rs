//! `spindle hammer load`: create Hammer's table and load it; the load is saved as a run.

use super::{Target, target_of, url_of};
use crate::args::HammerLoadArgs;
use crate::commands::batch::Saver;
use crate::measure::Measure;
use crate::plan;
use crate::progress::{Display, note};
use crate::{Outcome, interrupt, output};
use spindle_counters::volumes_under;
use spindle_db::load::{LoadMode, LoadOptions, LoadOutcome};
use spindle_db::{DbUrl, keys};
use spindle_model::RunRecord;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime};

pub(super) fn load(args: &HammerLoadArgs) -> anyhow::Result<Outcome> {
    let url = url_of(&args.db)?;
    let rows = plan::rows_of("--rows", &args.rows, 10_000_000, keys::MAX_ROWS)?;
    let labels = output::labels(&args.output.labels)?;
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    let mode = match (args.fresh, args.resume) {
        (true, _) => LoadMode::Fresh,
        (_, true) => LoadMode::Resume,
        _ => LoadMode::New,
    };
    let mut saver = Saver::new(&args.store, None)?;
    let quiet = args.output.quiet;
    let stop = interrupt::stop_flag();
    let (mut record, outcome) = match load_table(&url, rows, mode, interval, quiet, stop) {
        Ok(loaded) => loaded,
        // The server went away mid-load: what each finished chunk committed is in the table,
        // and --resume counts it and loads the rest.
        Err(e) if server_went_away(&e) => {
            return Err(anyhow::anyhow!(
                "{}; the rows committed before it are kept: once the server is back, run the load again with --resume to load the rest",
                crate::error_text(&e)
            ));
        }
        Err(e) => return Err(e),
    };
    let shown = url.to_string();
    record.labels = labels;
    record.command_line = output::command_line();
    let id = saver.save(&record, None, 1)?;
    if args.output.json || args.output.csv {
        output::print_document(&saver.document(std::slice::from_ref(&record)), &args.output)?;
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
    note(quiet, &format!("saved as run {id} in {}", saver.path.display()));
    Ok(if outcome.interrupted { Outcome::Interrupted } else { Outcome::Success })
}

/// Whether the load failed because the server ended the session (it stopped, restarted or
/// was killed), rather than for something the user can fix in the command.
fn server_went_away(e: &anyhow::Error) -> bool {
    e.chain().any(|c| matches!(c.downcast_ref::<spindle_db::DbError>(), Some(spindle_db::DbError::Server { .. })))
}

/// Loads Hammer's table into the database at `url`, measured: the load's record (without
/// labels or command line) and what it did.
pub(crate) fn load_table(
    url: &DbUrl,
    rows: u64,
    mode: LoadMode,
    interval: Duration,
    quiet: bool,
    stop: &'static AtomicBool,
) -> anyhow::Result<(RunRecord, LoadOutcome)> {
    let target = target_of(url)?;
    let display = Display::new(quiet);
    // The disks under the engine's files are watched, a local server's as much as a file's.
    let files = spindle_db::open(url)?.files()?;
    let watched: Vec<&Path> = files.log.iter().chain(&files.data).map(PathBuf::as_path).collect();
    let file = match &target {
        Target::Sqlite(path) => Some(path.clone()),
        Target::Postgres(..) | Target::MySql(..) => None,
    };
    let size_before = file.as_ref().and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len());
    let measure = Measure::start(&watched, volumes_under(&watched), interval, Vec::new());
    let started_at = SystemTime::now();
    let shown = url.to_string();
    let opts = LoadOptions { rows, mode };
    let mut progress = |done, total| display.fill(&format!("loading {shown}"), done, total);
    let result = match &target {
        Target::Sqlite(path) => spindle_db::sqlite::load(path, &opts, &mut progress, stop),
        Target::Postgres(url, rt) => rt.block_on(spindle_db::postgres::load(url, &opts, &mut progress, stop)),
        Target::MySql(url, rt) => rt.block_on(spindle_db::mysql::load(url, &opts, &mut progress, stop)),
    };
    let measured = measure.finish(Duration::ZERO);
    display.finish_line();
    let outcome = result?;
    let grown =
        file.as_ref().and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len()).saturating_sub(size_before);
    let mut record = spindle_db::load::load_record(url, rows, &outcome, grown, started_at);
    measured.fill(&mut record, outcome.rows_loaded);
    Ok((record, outcome))
}
