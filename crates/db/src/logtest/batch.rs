//! One transaction size: the rows inserted, a commit every `size` rows (the last
//! transaction takes what is left when `size` does not divide the rows), each insert and
//! each commit timed, and the engine's file statistics read before and after.
//!
//! The measured window runs from the first insert to the return of the last commit counted: a
//! stop is looked for only between transactions, so no counted row's commit ends after it, and
//! none is in flight at its end. A transaction an error cut short is inside the window (its
//! time was spent) but its rows are not counted (they never committed).

use super::LogTestPlan;
use super::table::{INSERT, payload};
use crate::file_stats::FileStats;
use crate::{Conn, DbError, Param};
use spindle_model::Histogram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

#[derive(Debug)]
pub struct BatchOutcome {
    pub transaction_size: u64,
    /// Rows committed.
    pub rows: u64,
    pub commits: u64,
    pub started_at: SystemTime,
    /// From the first insert to the last commit's return.
    pub elapsed: Duration,
    pub inserts: Histogram,
    pub commit_latency: Histogram,
    /// Rows committed in each whole second.
    pub per_second: Vec<u64>,
    /// What the engine counted on its files over the batch; `None` when it could not be read
    /// afterwards (the server went away).
    pub files: Option<FileStats>,
    /// Stopped before all rows (Ctrl-C or an error).
    pub interrupted: bool,
    /// Why it stopped early, when an operation failed.
    pub error: Option<DbError>,
}

/// Inserts `plan.rows` rows committing every `size`; `progress(rows committed)` after each
/// commit. Stops at the next commit on `stop`; an error ends the batch with what committed.
pub fn run_batch(
    conn: &mut dyn Conn,
    plan: &LogTestPlan,
    size: u64,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Result<BatchOutcome, DbError> {
    let before = conn.file_stats()?;
    let mut out = BatchOutcome {
        transaction_size: size,
        rows: 0,
        commits: 0,
        started_at: SystemTime::now(),
        elapsed: Duration::ZERO,
        inserts: Histogram::new(),
        commit_latency: Histogram::new(),
        per_second: Vec::new(),
        files: None,
        interrupted: false,
        error: None,
    };
    let start = Instant::now();
    let mut text = String::with_capacity(plan.row_bytes as usize);
    let mut i = 0;
    while i < plan.rows {
        if stop.load(Ordering::Relaxed) {
            out.interrupted = true;
            break;
        }
        let end = (i + size.max(1)).min(plan.rows);
        if let Err(e) = transaction(conn, plan, i..end, &mut text, &mut out) {
            // The open transaction dies with the error (or the connection); nothing of it counts.
            let _ = conn.execute("ROLLBACK");
            out.interrupted = true;
            out.error = Some(e);
            break;
        }
        out.rows += end - i;
        out.commits += 1;
        let second = start.elapsed().as_secs() as usize;
        if out.per_second.len() <= second {
            out.per_second.resize(second + 1, 0);
        }
        out.per_second[second] += end - i;
        progress(out.rows);
        i = end;
    }
    out.elapsed = start.elapsed();
    out.files = conn.file_stats().ok().map(|after| after.since(&before));
    Ok(out)
}

/// One transaction: BEGIN, the rows' inserts, COMMIT, each insert and the commit timed.
fn transaction(
    conn: &mut dyn Conn,
    plan: &LogTestPlan,
    rows: std::ops::Range<u64>,
    text: &mut String,
    out: &mut BatchOutcome,
) -> Result<(), DbError> {
    conn.execute("BEGIN")?;
    for r in rows {
        payload(r + 1, plan.row_bytes, text);
        let t = Instant::now();
        conn.run(INSERT, &[Param::Text(text)])?;
        out.inserts.record(t.elapsed().as_nanos() as u64);
    }
    let t = Instant::now();
    conn.execute("COMMIT")?;
    out.commit_latency.record(t.elapsed().as_nanos() as u64);
    Ok(())
}
