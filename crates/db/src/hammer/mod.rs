//! Running Database Hammer: N sessions, each with its own connection, calling GetAccount or
//! UpdateAccount at random (by the read ratio) on uniformly chosen rows, with optional think
//! time or a rate. Measurement starts when every session is connected (the ramp-up is timed
//! and excluded), then a warm-up is excluded too; the window holds the calls that ended inside
//! it (`state`), not those still running at its end. Each session keeps its own histograms
//! (compact: only the buckets its calls fell in) and per-second counts; nothing is shared in
//! the loop but the stop flag and live totals. Waits
//! for a rate or a think time end to within microseconds (`crate::precise`), since a late
//! start under a rate counts as latency.
//!
//! Blocking drivers (SQLite) run a thread per session (`threads`); network drivers run an
//! async task per session (`tasks`), so thousands of sessions fit in one process. Both loops
//! use the same bookkeeping (`state`).

mod driver;
mod record;
mod state;
pub mod tally;
#[cfg(feature = "net")]
mod tasks;
#[cfg(test)]
mod tests;
mod threads;
mod window;

pub use driver::Driver;
pub use record::{run_record, workload_text};
#[cfg(feature = "net")]
pub use tasks::run_tasks;
pub use threads::run;

/// The longest single wait of a session, so it sees a stop (Ctrl-C, a failed session) soon;
/// a longer wait is taken in steps.
const MAX_WAIT: Duration = Duration::from_millis(100);

use spindle_model::histogram::CompactHistogram;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant, SystemTime};

#[derive(Clone, Debug)]
pub struct RunPlan {
    pub sessions: u32,
    /// Percent of calls that are GetAccount.
    pub read_pct: u8,
    /// Rows loaded: keys are drawn from all of them.
    pub rows: u64,
    pub warmup: Duration,
    pub duration: Duration,
    /// Pause after each call (Hammer's `interval`).
    pub think: Duration,
    /// Calls per second per session; latency then counts from each call's intended start.
    pub rate_per_session: Option<f64>,
    /// An agent's share of a run of many: once every session is connected, time zero is this
    /// instant, which the other agents start at too (`None`: at once).
    pub start: Option<std::sync::Arc<spindle_clock::StartAt>>,
}

/// Calls of one second of the measurement: GetAccount calls the reads, UpdateAccount calls the
/// writes, no bytes.
pub use spindle_model::series::Second;

#[derive(Debug, Default)]
pub struct SessionResult {
    pub session: u32,
    /// Compact, as a thousand sessions' calls spread thinly over many buckets; the record
    /// turns each into a `Histogram` in turn.
    pub reads: CompactHistogram,
    pub writes: CompactHistogram,
    pub seconds: Vec<Second>,
    pub errors: BTreeMap<String, u64>,
    /// Under a rate: calls owed in the measured window that never started, because the
    /// session fell behind its schedule (reported, not silently dropped).
    pub behind_schedule: u64,
    /// Where the session's window closed, nanoseconds since time zero: the window's end, or
    /// the last moment the session knew no stop had come.
    pub window_end_ns: u64,
    /// When the session began its first call, nanoseconds since time zero (`None`: it began
    /// none before the window's end).
    pub first_call_ns: Option<u64>,
    /// When its first call was due: time zero, or its rate's first intended start.
    pub first_due_ns: u64,
    /// The call still running at the window's end (not counted), by when it counts from.
    pub in_flight_at_end: Option<u64>,
}

#[derive(Debug)]
pub struct RunOutcome {
    pub sessions: Vec<SessionResult>,
    /// From starting the first connection to the last one connected.
    pub ramp_up: Duration,
    /// Time zero: every session connected, the warm-up starts, then the measurement.
    pub time_zero: Instant,
    pub started_at: SystemTime,
    /// The window measured: after ramp-up and warm-up, to its end or the last moment known
    /// to be before a stop (`window`).
    pub measured: Duration,
    /// A stop came before the window's end.
    pub interrupted: bool,
}

/// Live totals for a progress line: calls completed so far (all sessions).
#[derive(Default)]
pub struct Live {
    pub calls: AtomicU64,
    pub latency_sum_ns: AtomicU64,
    /// Time zero, once every session is connected: a progress line counts from here.
    pub time_zero: std::sync::OnceLock<std::time::Instant>,
}
