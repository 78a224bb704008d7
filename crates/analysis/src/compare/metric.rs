//! What is compared: the figures that mean something for a run's kind. A rate of I/Os, calls
//! or rows where the run has one; for a large operation with no rate of its own (a checkpoint
//! writes the pages an update dirtied and processes no rows), its duration, as "Performance
//! impact of controller cache: SQL Server large operations" timed it, and the MB/s its volumes
//! were written at.

use serde::Serialize;
use spindle_model::RunRecord;
use spindle_model::db::{Counts, LargeOpFigures};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Iops,
    /// How long an operation timed as a whole took, in nanoseconds: a large operation
    /// without a rate (a checkpoint).
    Duration,
    MbPerSec,
    /// Decimal MB a second written to the volumes under a large operation without a rate,
    /// over the span they were counted: what a checkpoint's writes reached.
    WriteMbPerSec,
    LatencyMean,
    LatencyP99,
    /// A commit (a write and its flush, or a write-through write) from its first write's start
    /// to its flush's end: what a database's committing session waits for. Only runs that
    /// commit have it.
    CommitLatency,
}

impl Metric {
    /// In the order tables list them; the first a comparison has is its headline.
    pub const ALL: [Metric; 7] = [
        Metric::Iops,
        Metric::Duration,
        Metric::MbPerSec,
        Metric::WriteMbPerSec,
        Metric::LatencyMean,
        Metric::LatencyP99,
        Metric::CommitLatency,
    ];

    /// The metric's place in `ALL` (its declaration order).
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// As the text report names it, for runs that count `counts`: a Hammer run's rate is
    /// calls a second, not IOPS.
    pub fn label(self, counts: Counts) -> &'static str {
        match self {
            Metric::Iops => match counts {
                Counts::Ios => "IOPS",
                Counts::Calls => "calls/s",
                Counts::Rows => "rows/s",
            },
            Metric::Duration => "duration",
            Metric::MbPerSec => "MB/s",
            Metric::WriteMbPerSec => "MB/s written",
            Metric::LatencyMean => "mean latency",
            Metric::LatencyP99 => "p99 latency",
            Metric::CommitLatency => "commit latency",
        }
    }

    pub fn higher_is_better(self) -> bool {
        matches!(self, Metric::Iops | Metric::MbPerSec | Metric::WriteMbPerSec)
    }

    /// Whether the figure is a time (nanoseconds), as opposed to a rate.
    pub fn is_time(self) -> bool {
        !matches!(self, Metric::Iops | Metric::MbPerSec | Metric::WriteMbPerSec)
    }

    /// Whether the run has this figure: a rate only where one means something (a checkpoint
    /// has none), a duration and MB/s written instead for an operation timed as a whole
    /// (MB/s written only where its volumes were counted), MB/s only for kinds that move bytes
    /// of their own, a latency only where it was recorded (a run imported from a tool that
    /// printed no percentiles has none, which is not a latency of 0).
    pub fn present_in(self, r: &RunRecord) -> bool {
        let s = &r.summary;
        match self {
            Metric::Iops => r.rate().is_some(),
            Metric::Duration => timed_whole(r).is_some(),
            Metric::MbPerSec => r.kind().moves_bytes(),
            Metric::WriteMbPerSec => timed_whole(r).is_some_and(|f| !f.volumes.is_empty()),
            // `recorded` says none for a run that completed no operation.
            Metric::LatencyMean => r.recorded().latency && s.latency_ns.mean > 0.0,
            Metric::LatencyP99 => r.recorded().percentiles && s.latency_ns.p99 > 0,
            Metric::CommitLatency => s.commit.count > 0,
        }
    }

    /// Whether every one of `runs` has this figure.
    pub fn present_in_all(self, runs: &[&RunRecord]) -> bool {
        runs.iter().all(|r| self.present_in(r))
    }

    /// The run's figure (times in nanoseconds); 0 where the run lacks it (`present_in`).
    pub fn of(self, r: &RunRecord) -> f64 {
        let s = &r.summary;
        match self {
            Metric::Iops => s.iops,
            Metric::Duration => timed_whole(r).map_or(0.0, |f| f.seconds * 1e9),
            Metric::MbPerSec => s.mb_per_sec,
            Metric::WriteMbPerSec => timed_whole(r).map_or(0.0, written_mb_per_sec),
            Metric::LatencyMean => s.latency_ns.mean,
            Metric::LatencyP99 => s.latency_ns.p99 as f64,
            Metric::CommitLatency => s.commit.latency_ns.mean,
        }
    }
}

/// A large operation that has no rate (a checkpoint): its figures, timed as a whole.
fn timed_whole(r: &RunRecord) -> Option<&LargeOpFigures> {
    r.details.large_op().filter(|_| r.rate().is_none())
}

/// Decimal MB a second written to the operation's volumes, over the span they were counted
/// (the operation's own time where the record does not say), as the large operations' table
/// reckons each role's MB/s; each volume once, though it may hold both data and log.
fn written_mb_per_sec(f: &LargeOpFigures) -> f64 {
    let span = f.volumes.iter().find_map(|v| v.seconds).filter(|s| *s > 0.0).unwrap_or(f.seconds);
    let bytes: u64 = f.volumes.iter().map(|v| v.bytes_written).sum();
    if span > 0.0 { bytes as f64 / 1e6 / span } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::tests::large_op;
    use spindle_model::db::DeviceIo;

    fn present(r: &RunRecord) -> Vec<Metric> {
        Metric::ALL.into_iter().filter(|m| m.present_in(r)).collect()
    }

    #[test]
    fn a_checkpoint_is_compared_on_its_duration_and_the_mb_it_wrote_never_on_rows() {
        let vol =
            DeviceIo { device: "vda".into(), bytes_written: 12_000_000, seconds: Some(0.3), ..Default::default() };
        let checkpoint = large_op("checkpoint", 0.25, vec![vol]);
        assert_eq!(present(&checkpoint), [Metric::Duration, Metric::WriteMbPerSec]);
        assert_eq!(Metric::Duration.of(&checkpoint), 250_000_000.0);
        // 12 MB over the 0.3 s the volume was counted.
        assert!((Metric::WriteMbPerSec.of(&checkpoint) - 40.0).abs() < 1e-9);
        assert!(!Metric::Duration.higher_is_better() && Metric::WriteMbPerSec.higher_is_better());
        // Where no volume was counted (the database on another machine), its duration alone.
        assert_eq!(present(&large_op("checkpoint", 0.25, Vec::new())), [Metric::Duration]);
        // The operations that process rows keep their rate of rows.
        for op in ["load", "scan", "update"] {
            assert_eq!(present(&large_op(op, 0.25, Vec::new())), [Metric::Iops], "{op}");
        }
    }
}
