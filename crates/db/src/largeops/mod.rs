//! The large operations of Linchi Shea's "Performance impact of controller cache: SQL Server
//! large operations": on TPC-C's `customer` table, a bulk load in batches, a full scan
//! (`SELECT avg(c_balance)`), a full-table update of `c_data`, and a manual checkpoint, each
//! timed on its own. Written once against `Conn`: the table's DDL and the update's string
//! functions are all that differ by engine (`table`).

pub mod checkpoints;
mod record;
mod table;

pub use crate::orders::customer::COLUMNS;
pub use crate::orders::rows::Generator;
pub use record::{Context, record};
pub use table::{SCAN, TABLE, create, drop, update};

use crate::{Conn, DbError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

/// The operations, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Load,
    Scan,
    Update,
    Checkpoint,
}

impl Op {
    pub const ALL: [Op; 4] = [Op::Load, Op::Scan, Op::Update, Op::Checkpoint];

    pub fn name(self) -> &'static str {
        match self {
            Op::Load => "load",
            Op::Scan => "scan",
            Op::Update => "update",
            Op::Checkpoint => "checkpoint",
        }
    }
}

/// What one operation did.
#[derive(Debug)]
pub struct OpOutcome {
    pub op: Op,
    /// Rows loaded, scanned or updated (the table's rows for a checkpoint after the update).
    pub rows: u64,
    pub started_at: SystemTime,
    /// The operation's window: from its start to the return of the last statement (or load
    /// batch) counted; a stop is looked for only between batches, so nothing counted ends
    /// after it.
    pub elapsed: Duration,
    /// Rows done in each whole second (the load; one figure for the others).
    pub per_second: Vec<u64>,
    pub interrupted: bool,
    pub error: Option<DbError>,
}

impl OpOutcome {
    fn start(op: Op) -> (OpOutcome, Instant) {
        let out = OpOutcome {
            op,
            rows: 0,
            started_at: SystemTime::now(),
            elapsed: Duration::ZERO,
            per_second: Vec::new(),
            interrupted: false,
            error: None,
        };
        (out, Instant::now())
    }

    fn finish(mut self, start: Instant, result: Result<u64, DbError>) -> OpOutcome {
        self.elapsed = start.elapsed();
        match result {
            Ok(rows) => {
                self.rows = rows;
                if self.per_second.is_empty() {
                    self.per_second = vec![rows];
                }
            }
            Err(e) => {
                self.interrupted = true;
                self.error = Some(e);
            }
        }
        self
    }
}

/// Batches being generated ahead of the one the server ingests: the generator stays a batch
/// or two ahead, so the load's time is the server's, not the generator's.
const BATCHES_AHEAD: usize = 2;

/// Loads `rows` customers in batches of `batch` rows, each batch one `copy_in` (one
/// transaction, as SqlBulkCopy's batch); `progress(rows loaded)` after each. Stops between
/// batches on `stop`.
pub fn load(
    conn: &mut dyn Conn,
    rows: u64,
    batch: u64,
    since: &str,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> OpOutcome {
    let (mut out, start) = OpOutcome::start(Op::Load);
    let (tx, rx) = mpsc::sync_channel::<(u64, String)>(BATCHES_AHEAD);
    let result = std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut generator = Generator::new(0x5443_5043, since);
            let mut from = 0;
            while from < rows && !stop.load(Ordering::Relaxed) {
                let to = (from + batch).min(rows);
                let mut text = String::with_capacity(((to - from) * 720) as usize);
                generator.customers(from..to, &mut text);
                if tx.send((to - from, text)).is_err() {
                    break;
                }
                from = to;
            }
        });
        let mut loaded = 0;
        for (n, text) in rx {
            if stop.load(Ordering::Relaxed) {
                out.interrupted = true;
                break;
            }
            conn.copy_in(TABLE, &COLUMNS, bytes::Bytes::from(text))?;
            loaded += n;
            let second = start.elapsed().as_secs() as usize;
            if out.per_second.len() <= second {
                out.per_second.resize(second + 1, 0);
            }
            out.per_second[second] += n;
            progress(loaded);
        }
        // Dropping the receiver ends the generator at its next send.
        Ok(loaded)
    });
    let interrupted = out.interrupted || stop.load(Ordering::Relaxed);
    let mut out = out.finish(start, result);
    out.interrupted |= interrupted;
    out
}

/// The scan: every row read for an aggregate no index answers.
pub fn scan(conn: &mut dyn Conn, rows: u64) -> OpOutcome {
    let (out, start) = OpOutcome::start(Op::Scan);
    let result = conn.query_text(SCAN).map(|_| rows);
    out.finish(start, result)
}

/// The update of every row's `c_data`, in one transaction; `rows` is the table's (an engine
/// that counts only rows whose value changed would leave out those already starting with a).
pub fn update_all(conn: &mut dyn Conn, rows: u64) -> OpOutcome {
    let (out, start) = OpOutcome::start(Op::Update);
    let sql = update(conn.engine());
    let result = (|| {
        conn.execute("BEGIN")?;
        conn.run(sql, &[])?;
        conn.execute("COMMIT")?;
        Ok(rows)
    })();
    if result.is_err() {
        let _ = conn.execute("ROLLBACK");
    }
    out.finish(start, result)
}

/// The manual checkpoint after the update: the dirty pages written.
pub fn checkpoint(conn: &mut dyn Conn, rows: u64) -> OpOutcome {
    let (out, start) = OpOutcome::start(Op::Checkpoint);
    let result = conn.checkpoint().map(|()| rows);
    out.finish(start, result)
}
