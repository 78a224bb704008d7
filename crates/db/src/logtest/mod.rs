//! The transaction-log test, after Tony Rogerson's "Server Commissioning Part #1 - Transaction
//! Log Performance": insert a fixed number of wide rows, committing every N rows, once per
//! transaction size, and read what the log did from the engine's own per-file statistics
//! (SQL Server's `fn_virtualfilestats` there; `pg_stat_wal`, InnoDB's status counters and a
//! counting VFS here). Before each size the engine settles, checkpoints and drops what caches
//! it can, so one size's dirty pages are not written during the next.
//!
//! Written once against `Conn`: only the table's DDL differs by engine (`table`).

mod batch;
mod record;
mod table;

pub use batch::{BatchOutcome, run_batch};
pub use record::{Context, build as record};
pub use table::{create, drop};

use crate::{Conn, DbError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Rows wider than this do not fit one page inline on every engine (PostgreSQL's 8 KB page,
/// InnoDB's half of 16 KB).
pub const MAX_ROW_BYTES: u64 = 8000;

#[derive(Clone, Debug)]
pub struct LogTestPlan {
    /// Rows inserted at each transaction size.
    pub rows: u64,
    /// Bytes of each row's payload (the original's `char(4000)`).
    pub row_bytes: u64,
}

/// The original's pause before and after the checkpoint, so one size's work is over (and
/// apart in the counters) before the next begins.
pub const DEFAULT_SETTLE: Duration = Duration::from_secs(5);

/// Settles, checkpoints and drops what caches can be dropped, before a transaction size.
/// Returns what could not be done, to keep in the run's warnings.
pub fn settle(conn: &mut dyn Conn, pause: Duration, stop: &AtomicBool) -> Result<Vec<String>, DbError> {
    sleep(pause, stop);
    conn.checkpoint()?;
    let notes = conn.drop_caches()?;
    sleep(pause, stop);
    Ok(notes)
}

/// Sleeps, waking early on a stop.
fn sleep(pause: Duration, stop: &AtomicBool) {
    let until = Instant::now() + pause;
    while !stop.load(Ordering::Relaxed) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}
