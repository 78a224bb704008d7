//! One database under the log test: its connection, what the record says of it, and where its
//! log is; a transaction size at a time, settled and measured by the harness. `logtest` runs
//! its sizes through one; `placement` keeps one per layout.

use crate::measure::Measure;
use crate::progress::{Display, warn};
use spindle_counters::volumes_under;
use spindle_db::logtest::{self, BatchOutcome, LogTestPlan};
use spindle_db::{Conn, DbUrl};
use spindle_model::RunRecord;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

pub struct LogTest {
    url: DbUrl,
    conn: Box<dyn Conn>,
    version: String,
    settings: BTreeMap<String, String>,
    pub plan: LogTestPlan,
    watched: Vec<PathBuf>,
    /// The volume the log sits on (none for a server elsewhere).
    log_volumes: Vec<String>,
    interval: Duration,
    settle: Duration,
}

/// One transaction size, measured and recorded.
pub struct Measured {
    pub record: RunRecord,
    pub batch: BatchOutcome,
}

impl LogTest {
    /// Connects and creates the test's table.
    pub fn open(
        url: &DbUrl,
        plan: LogTestPlan,
        settle: Duration,
        interval: Duration,
        quiet: bool,
    ) -> anyhow::Result<LogTest> {
        let mut conn = spindle_db::open(url)?;
        let files = conn.files()?;
        let version = conn.version()?;
        logtest::create(conn.as_mut(), plan.row_bytes)?;
        let settings = conn.settings()?;
        let watched: Vec<PathBuf> = files.log.iter().chain(&files.data).cloned().collect();
        let log_volumes = files.log.as_deref().map(|p| volumes_under(&[p])).unwrap_or_default();
        if log_volumes.is_empty() {
            warn(
                quiet,
                &format!("{url}: the log is not on a volume of this machine; the device's figures are left out"),
            );
        }
        Ok(LogTest { url: url.clone(), conn, version, settings, plan, watched, log_volumes, interval, settle })
    }

    /// Settles, checkpoints, drops caches, then inserts the rows in transactions of `size`
    /// under the harness. `None` when a stop came while settling.
    pub fn size(&mut self, size: u64, stop: &AtomicBool, display: &Display) -> anyhow::Result<Option<Measured>> {
        let notes = logtest::settle(self.conn.as_mut(), self.settle, stop)?;
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(None);
        }
        let watched: Vec<&Path> = self.watched.iter().map(PathBuf::as_path).collect();
        let measure = Measure::start(&watched, self.log_volumes.clone(), self.interval, Vec::new());
        let rows = self.plan.rows;
        let mut progress = |done| display.fill(&format!("transaction size {size}"), done, rows);
        let batch = logtest::run_batch(self.conn.as_mut(), &self.plan, size, stop, &mut progress);
        display.finish_line();
        let mut measured = measure.finish(Duration::ZERO);
        let batch = batch?;
        let volume = measured.volumes.pop();
        let context = logtest::Context {
            url: &self.url,
            version: &self.version,
            settings: &self.settings,
            plan: &self.plan,
            notes: &notes,
        };
        let mut record = logtest::record(&batch, volume, &context);
        measured.fill(&mut record, batch.rows);
        Ok(Some(Measured { record, batch }))
    }

    /// Drops the test's table (a server that went away took it with it).
    pub fn finish(mut self) {
        let _ = logtest::drop(self.conn.as_mut());
    }
}
