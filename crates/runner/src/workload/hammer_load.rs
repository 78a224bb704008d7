//! Hammer's table loaded as a workload (`hammer load`), and the measured load itself, which a
//! Hammer workload on a fresh database runs when it is prepared.

use super::database::Database;
use super::{Context, Measured, Sink, Workload};
use crate::RunEnd;
use crate::harness::Measure;
use spindle_counters::volumes_under;
use spindle_db::hammer::Driver;
use spindle_db::load::{LoadMode, LoadOptions, LoadOutcome};
use spindle_model::RunRecord;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

pub struct HammerLoad {
    db: Database,
    rows: u64,
    mode: LoadMode,
    /// What the last load did, for the command's summary line.
    pub outcome: Option<LoadOutcome>,
}

impl HammerLoad {
    pub fn new(db: Database, rows: u64, mode: LoadMode) -> HammerLoad {
        HammerLoad { db, rows, mode, outcome: None }
    }
}

impl Workload for HammerLoad {
    fn prepare(&mut self, _: &mut Context<'_>, _: &mut Sink<'_>) -> anyhow::Result<()> {
        self.db.ready()?;
        Ok(())
    }

    fn measure(&mut self, _: usize, cx: &mut Context<'_>, sink: &mut Sink<'_>) -> anyhow::Result<RunEnd> {
        let url = self.db.ready()?;
        let (record, outcome) = load_table(&Driver::new(&url)?, self.rows, self.mode, cx)?;
        let end = load_end(&outcome);
        self.outcome = Some(outcome);
        sink(Measured::new(record, end.clone()))?;
        Ok(end)
    }

    fn finish(&mut self, _: &mut Context<'_>) -> anyhow::Result<()> {
        Ok(())
    }
}

/// How a load ended: cut short by a full disk or a failure (the rows committed before it are
/// the run's, and `--resume` loads the rest), stopped by Ctrl-C, or complete.
pub fn load_end(outcome: &LoadOutcome) -> RunEnd {
    match &outcome.failure {
        Some(f) if f.out_of_space => RunEnd::OutOfSpace,
        Some(f) if f.completing => RunEnd::Failed(format!(
            "the load stopped as it was being completed: {}; all {} rows are in the table: once the database can go on, run the load again with --resume to complete it",
            f.why,
            outcome.rows_before + outcome.rows_loaded
        )),
        Some(f) => RunEnd::Failed(format!(
            "the load stopped: {}; the {} rows committed before it are kept: once the database can go on, run the load again with --resume to load the rest",
            f.why,
            outcome.rows_before + outcome.rows_loaded
        )),
        None if outcome.interrupted => RunEnd::Interrupted,
        None => RunEnd::Complete { failed_operations: false },
    }
}

/// Loads Hammer's table through `driver`, measured: the load's record and what it did.
pub fn load_table(
    driver: &Driver,
    rows: u64,
    mode: LoadMode,
    cx: &mut Context<'_>,
) -> anyhow::Result<(RunRecord, LoadOutcome)> {
    let url = driver.url();
    // The disks under the engine's files are watched, a local server's as much as a file's.
    let files = spindle_db::open(url)?.files()?;
    let watched: Vec<&Path> = files.log.iter().chain(&files.data).map(PathBuf::as_path).collect();
    let file = driver.file().map(Path::to_path_buf);
    let size_before = file.as_ref().and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len());
    let measure = Measure::start(&watched, volumes_under(&watched), cx.sample_interval, Vec::new());
    let started_at = SystemTime::now();
    let shown = format!("loading {url}");
    let observer = cx.observer;
    let mut progress = |done, total| observer.fill(&shown, done, total);
    let result = driver.load(&LoadOptions { rows, mode }, &mut progress, cx.stop);
    let measured = measure.finish(Duration::ZERO);
    observer.finish_line();
    let outcome = result?;
    let grown =
        file.as_ref().and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len()).saturating_sub(size_before);
    let mut record = spindle_db::load::load_record(url, rows, &outcome, grown, started_at);
    measured.fill(&mut record, outcome.rows_loaded);
    Ok((record, outcome))
}
