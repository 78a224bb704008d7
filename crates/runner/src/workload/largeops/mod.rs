//! The large operations as a workload: a step is the four operations on TPC-C's customer
//! table, each a run of its own part (`load`, `scan`, `update`, `checkpoint`), measured by the
//! harness over the volumes of the engine's data and log: the load in batches, the scan and the
//! update after the caches are emptied (cold only when they were), and the checkpoint after the
//! update. The table is made anew each step, so repeats and A/B rounds start alike.

mod cache;

use super::database::Database;
use super::{Context, Measured, Sink, Workload};
use crate::RunEnd;
use crate::harness::Measure;
use spindle_counters::volumes_under;
use spindle_db::largeops::checkpoints::{PushedOut, put_back};
use spindle_db::largeops::{self, Op, OpOutcome};
use spindle_db::{Conn, DbUrl};
use spindle_model::db::LargeOpFigures;
use spindle_model::group::Point;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// What the operations are asked.
#[derive(Clone, Debug)]
pub struct OpsPlan {
    pub rows: u64,
    pub batch: u64,
    /// A pause before each operation, so the one before it has settled.
    pub settle: Duration,
    /// Keep the table at the end.
    pub keep: bool,
}

pub struct LargeOps {
    db: Database,
    plan: OpsPlan,
    open: Option<Open>,
}

/// The database once prepared.
struct Open {
    url: DbUrl,
    conn: Box<dyn Conn>,
    version: String,
    watched: Vec<PathBuf>,
    volumes: Vec<String>,
    /// Of `volumes`, those under the engine's data and under its log.
    data_volumes: Vec<String>,
    log_volumes: Vec<String>,
    /// What pushing automatic checkpoints out did, said in the first run of each step.
    checkpoint_notes: Vec<String>,
    /// The statements that put the server's checkpoint settings back, run at the end.
    restore: Vec<String>,
}

impl LargeOps {
    pub fn new(db: Database, plan: OpsPlan) -> LargeOps {
        LargeOps { db, plan, open: None }
    }
}

impl Workload for LargeOps {
    fn prepare(&mut self, cx: &mut Context<'_>, _: &mut Sink<'_>) -> anyhow::Result<()> {
        let url = self.db.ready()?;
        let mut conn = spindle_db::open(&url)?;
        let version = conn.version()?;
        let files = conn.files()?;
        let watched: Vec<PathBuf> = files.log.iter().chain(&files.data).cloned().collect();
        let paths: Vec<&std::path::Path> = watched.iter().map(PathBuf::as_path).collect();
        let volumes = volumes_under(&paths);
        let data_volumes: Vec<String> = files.data.as_deref().map(|p| volumes_under(&[p])).unwrap_or_default();
        let log_volumes: Vec<String> = files.log.as_deref().map(|p| volumes_under(&[p])).unwrap_or_default();
        if !data_volumes.is_empty() && data_volumes == log_volumes {
            cx.observer.note(&format!(
                "data and log share {}: one \"data and log\" row per operation",
                data_volumes.join(", ")
            ));
        }
        if volumes.is_empty() {
            cx.observer
                .warn(&format!("{url}: its files are not on a volume of this machine; the I/O sizes are left out"));
        }
        let PushedOut { notes: checkpoint_notes, restore } = conn.push_out_checkpoints(self.db.instance().is_some())?;
        for n in &checkpoint_notes {
            cx.observer.note(n);
        }
        if self.plan.rows % self.plan.batch != 0 {
            cx.observer.note(&format!(
                "{} rows in batches of {}: the last batch holds {}",
                self.plan.rows,
                self.plan.batch,
                self.plan.rows % self.plan.batch
            ));
        }
        self.open =
            Some(Open { url, conn, version, watched, volumes, data_volumes, log_volumes, checkpoint_notes, restore });
        Ok(())
    }

    fn measure(&mut self, _: usize, cx: &mut Context<'_>, sink: &mut Sink<'_>) -> anyhow::Result<RunEnd> {
        let open = self.open.as_mut().expect("prepared before measured");
        let (rows, batch, settle) = (self.plan.rows, self.plan.batch, self.plan.settle);
        largeops::create(open.conn.as_mut())?;
        let mut settings = open.conn.settings()?;
        settings.extend(self.db.settings().iter().cloned());
        let since =
            spindle_model::time::rfc3339_utc(SystemTime::now()).replace('T', " ").chars().take(19).collect::<String>();
        let paths: Vec<&std::path::Path> = open.watched.iter().map(PathBuf::as_path).collect();
        let mut warnings = open.checkpoint_notes.clone();
        let mut loaded = 0;
        for op in Op::ALL {
            sleep(settle, cx.stop);
            if cx.stop.load(Ordering::Relaxed) {
                return Ok(RunEnd::Interrupted);
            }
            let coldness = match op {
                Op::Scan | Op::Update => Some(cache::empty_caches(&mut open.conn, &open.url, self.db.instance_mut())?),
                Op::Load | Op::Checkpoint => None,
            };
            let before = open.conn.file_stats().ok();
            // Said as the measuring starts (after the engine's counters are read, which on a
            // cold cache reads catalog pages), so the line marks the operation's span.
            cx.observer.note(&format!(
                "{}{}",
                op.name(),
                coldness.as_ref().map(|c| format!(" ({})", c.why)).unwrap_or_default()
            ));
            let measure = Measure::start(&paths, open.volumes.clone(), cx.sample_interval, Vec::new());
            let done: OpOutcome = match op {
                Op::Load => {
                    let observer = cx.observer;
                    let mut progress = |n| observer.fill("loading customers", n, rows);
                    let o = largeops::load(open.conn.as_mut(), rows, batch, &since, cx.stop, &mut progress);
                    observer.finish_line();
                    loaded = o.rows;
                    o
                }
                Op::Scan => largeops::scan(open.conn.as_mut(), loaded),
                Op::Update => largeops::update_all(open.conn.as_mut(), loaded),
                Op::Checkpoint => largeops::checkpoint(open.conn.as_mut(), loaded),
            };
            let measured = measure.finish(Duration::ZERO);
            let after = open.conn.file_stats().ok();
            let mut figures = LargeOpFigures {
                operation: op.name().into(),
                rows: done.rows,
                seconds: done.elapsed.as_secs_f64(),
                batch: if op == Op::Load { batch } else { 0 },
                cold: coldness.as_ref().map(|c| c.cold),
                cold_why: coldness.as_ref().map(|c| c.why.clone()),
                volumes: measured.volumes.clone(),
                data_volumes: open.data_volumes.clone(),
                log_volumes: open.log_volumes.clone(),
                roles: Vec::new(),
                automatic_checkpoints: before.zip(after).and_then(|(b, a)| a.since(&b).checkpoints).map(|n| {
                    // The manual checkpoint is counted too; the automatic ones are the rest.
                    if op == Op::Checkpoint { n.saturating_sub(1) } else { n }
                }),
            };
            figures.roles = figures.by_role();
            let context =
                largeops::Context { url: &open.url, version: &open.version, settings: &settings, rows, batch };
            let mut record = largeops::record(&done, figures, std::mem::take(&mut warnings), &context);
            measured.fill(&mut record, done.rows);
            let end = match (&done.error, done.interrupted) {
                (Some(e), _) => RunEnd::Failed(format!("{} failed: {e}", op.name())),
                (None, true) => RunEnd::Interrupted,
                (None, false) => RunEnd::Complete { failed_operations: false },
            };
            sink(Measured {
                part: Some(op.name().into()),
                point: Some(Point::sweep("op", op.name())),
                ..Measured::new(record, end.clone())
            })?;
            if !end.goes_on() {
                return Ok(end);
            }
        }
        Ok(RunEnd::Complete { failed_operations: false })
    }

    fn finish(&mut self, cx: &mut Context<'_>) -> anyhow::Result<()> {
        if let Some(mut open) = self.open.take() {
            if !self.plan.keep {
                let _ = largeops::drop(open.conn.as_mut());
            }
            // A restart to empty the caches may have dropped the connection: a fresh one then.
            let mut failed = put_back(open.conn.as_mut(), &open.restore);
            if !failed.is_empty()
                && let Ok(mut fresh) = spindle_db::open(&open.url)
            {
                failed = put_back(fresh.as_mut(), &open.restore);
            }
            for f in failed {
                cx.observer.warn(&format!("{}: a checkpoint setting was not put back: {f}", open.url));
            }
        }
        Ok(())
    }
}

/// Waits, waking early on a stop.
fn sleep(pause: Duration, stop: &AtomicBool) {
    let until = std::time::Instant::now() + pause;
    while !stop.load(Ordering::Relaxed) && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50).min(until.saturating_duration_since(std::time::Instant::now())));
    }
}
