//! The log test as a workload: one database, its test table made when prepared and dropped at
//! the end; a step is one transaction size (a point): settle, checkpoint, drop caches, then the
//! rows inserted committing every N, under the harness. `logtest` steps through its sizes;
//! `placement` and `ab` run one size on each side.

use super::database::Database;
use super::{Context, Measured, Sink, Workload};
use crate::RunEnd;
use crate::harness::Measure;
use spindle_counters::volumes_under;
use spindle_db::logtest::{self, LogTestPlan};
use spindle_db::{Conn, DbUrl};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub struct LogTest {
    db: Database,
    plan: LogTestPlan,
    /// The transaction sizes, one per point.
    sizes: Vec<u64>,
    settle: Duration,
    open: Option<Open>,
}

/// The database once prepared: its connection, what the record says of it, where its log is.
struct Open {
    url: DbUrl,
    conn: Box<dyn Conn>,
    version: String,
    settings: BTreeMap<String, String>,
    watched: Vec<PathBuf>,
    /// The volume the log sits on (none for a server elsewhere).
    log_volumes: Vec<String>,
    /// Why that volume's figures are not the log's alone; `None` where the volume is its own.
    engine_leads: Option<String>,
}

impl LogTest {
    pub fn new(db: Database, plan: LogTestPlan, sizes: Vec<u64>, settle: Duration) -> LogTest {
        LogTest { db, plan, sizes, settle, open: None }
    }

    /// Sets the rows each size inserts, for a test prepared before they were known (`check`
    /// prepares it first, so a database it cannot use stops the check before any I/O, and
    /// sizes it from the commit latency it then measures).
    pub fn set_rows(&mut self, rows: u64) {
        self.plan.rows = rows;
    }
}

/// Why the log's volume does not hold the log alone, so its counts are not the log's: there
/// is none here (a server elsewhere), it holds the data too, or it holds the root filesystem,
/// where anything on the machine may write. `None` where it is the log's own.
fn shared(log: &[String], data: &[String], root: &[String]) -> Option<String> {
    let Some(volume) = log.first() else {
        return Some(
            "the log is on no volume of this machine (a server elsewhere, or one that does not say where its log is)"
                .into(),
        );
    };
    if data.is_empty() {
        Some(format!("the data's volume is not known, so {volume} may hold more than the log"))
    } else if data.contains(volume) {
        Some(format!("the log shares its volume ({volume}) with the data"))
    } else if root.contains(volume) {
        Some(format!(
            "the log's volume ({volume}) holds the root filesystem too, where anything on this machine may write"
        ))
    } else {
        None
    }
}

impl Workload for LogTest {
    /// Connects and creates the test's table.
    fn prepare(&mut self, cx: &mut Context<'_>, _: &mut Sink<'_>) -> anyhow::Result<()> {
        let url = self.db.ready()?;
        let mut conn = spindle_db::open(&url)?;
        let files = conn.files()?;
        let version = conn.version()?;
        logtest::create(conn.as_mut(), self.plan.row_bytes)?;
        let mut settings = conn.settings()?;
        settings.extend(self.db.settings().iter().cloned());
        let watched: Vec<PathBuf> = files.log.iter().chain(&files.data).cloned().collect();
        let under = |p: Option<&Path>| p.map(|p| volumes_under(&[p])).unwrap_or_default();
        let log_volumes = under(files.log.as_deref());
        let engine_leads = shared(&log_volumes, &under(files.data.as_deref()), &under(Some(Path::new("/"))))
            .map(|why| format!("{why}, so the engine's own counters lead"));
        match &engine_leads {
            // No volume here is worth a warning: the device's figures are left out entirely.
            Some(why) if log_volumes.is_empty() => cx.observer.warn(&format!("{url}: {why}")),
            Some(why) => cx.observer.note(&format!("{url}: {why}")),
            None => {}
        }
        self.open = Some(Open { url, conn, version, settings, watched, log_volumes, engine_leads });
        Ok(())
    }

    /// Settles, checkpoints, drops caches, then inserts the rows in transactions of the point's
    /// size under the harness.
    fn measure(&mut self, point: usize, cx: &mut Context<'_>, sink: &mut Sink<'_>) -> anyhow::Result<RunEnd> {
        let open = self.open.as_mut().expect("prepared before measured");
        let size = self.sizes[point];
        cx.observer.note(&format!("transaction size {size}: settling, checkpoint, dropping caches"));
        let notes = logtest::settle(open.conn.as_mut(), self.settle, cx.stop)?;
        if cx.stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(RunEnd::Interrupted);
        }
        let watched: Vec<&Path> = open.watched.iter().map(PathBuf::as_path).collect();
        let measure = Measure::start(&watched, open.log_volumes.clone(), cx.sample_interval, Vec::new());
        let rows = self.plan.rows;
        let what = format!("transaction size {size}");
        let observer = cx.observer;
        let mut progress = |done| observer.fill(&what, done, rows);
        let batch = logtest::run_batch(open.conn.as_mut(), &self.plan, size, cx.stop, &mut progress);
        observer.finish_line();
        let mut measured = measure.finish(Duration::ZERO);
        let batch = batch?;
        let volume = measured.volumes.pop();
        let context = logtest::Context {
            url: &open.url,
            version: &open.version,
            settings: &open.settings,
            plan: &self.plan,
            notes: &notes,
            engine_leads: open.engine_leads.as_deref(),
        };
        let mut record = logtest::record(&batch, volume, &context);
        measured.fill(&mut record, batch.rows);
        // A failed insert is in the record's errors; the run is saved, and the test ends with it.
        let end = match (&batch.error, batch.interrupted) {
            (Some(e), _) if e.is_out_of_space() => RunEnd::OutOfSpace,
            (Some(e), _) => RunEnd::Failed(e.to_string()),
            (None, true) => RunEnd::Interrupted,
            (None, false) => RunEnd::Complete { failed_operations: false },
        };
        sink(Measured::new(record, end.clone()))?;
        Ok(end)
    }

    /// Drops the test's table (a server that went away took it with it).
    fn finish(&mut self, _: &mut Context<'_>) -> anyhow::Result<()> {
        if let Some(mut open) = self.open.take() {
            let _ = logtest::drop(open.conn.as_mut());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::shared;

    #[test]
    fn the_volume_leads_only_where_the_log_has_it_to_itself() {
        let v = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        assert_eq!(shared(&v(&["loop3"]), &v(&["vda"]), &v(&["vda"])), None, "managed, --wal on its own volume");
        let with_data = shared(&v(&["vda"]), &v(&["vda"]), &v(&["vda"])).unwrap();
        assert_eq!(with_data, "the log shares its volume (vda) with the data");
        let on_root = shared(&v(&["vda"]), &v(&["loop2"]), &v(&["vda"])).unwrap();
        assert!(on_root.contains("root filesystem"), "{on_root}");
        assert!(shared(&[], &[], &v(&["vda"])).unwrap().contains("a server elsewhere"));
        assert!(shared(&v(&["loop3"]), &[], &v(&["vda"])).unwrap().contains("not known"));
    }
}
