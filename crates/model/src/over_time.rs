//! How a run's rate moved over its seconds, as the record keeps it: a lasting change of level
//! partway through, and the spread of the rate from one second to the next. Both are decided
//! once, when the run is finished (spindle-analysis's `over_time`), so every view, `compare`
//! and `serve` read the same answer from the record instead of deciding again.

use serde::{Deserialize, Serialize};

/// The rate changed level partway through the run and stayed at the new level: a burst
/// allowance running out, a throttle coming in, or other load starting (or, rising, ending).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelShift {
    /// Seconds after the measured window's start where the new level began.
    pub at_seconds: f64,
    /// The rate (of what the run counts, a second) before and after: each side's median second.
    pub before: f64,
    pub after: f64,
}

impl LevelShift {
    /// Whether the rate fell (rather than rose).
    pub fn fell(&self) -> bool {
        self.after < self.before
    }
}

/// The spread of the per-second rate over the run: its 5th and 95th percentiles, so a second
/// or two at either end (a stall, a burst) does not set it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Swing {
    pub p5: f64,
    pub p95: f64,
}

impl Swing {
    /// How far the slow seconds fall below the fast ones, as a share of the fast ones (0: every
    /// second alike; 0.75: the slowest seconds a quarter of the fastest); 0 when nothing moved.
    pub fn width(&self) -> f64 {
        if self.p95 > 0.0 { ((self.p95 - self.p5) / self.p95).clamp(0.0, 1.0) } else { 0.0 }
    }
}
