//! What changed since the last check of the same place: each headline figure held against the
//! same figure then, named when it moved by more than `CHANGE_PCT`. Both checks are single
//! runs of each step, so a smaller move is not told apart from a disk's ordinary swing (this
//! kind of machine swings ±30% within an hour; see docs/verdicts.md for how `ab` decides).

use super::evidence::DirEvidence;
use super::figures;
use serde::Serialize;

/// Moves smaller than this are not named.
pub const CHANGE_PCT: f64 = 20.0;

/// One figure that moved.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// `commit latency`, `page reads at depth 1`.
    pub what: &'static str,
    pub before: f64,
    pub now: f64,
    /// Signed change, percent of `before`.
    pub pct: f64,
    pub worse: bool,
    /// `commit latency 2.4 ms -> 3.9 ms (+63%, worse)`.
    pub text: String,
}

/// Whether a larger figure is better, and how to show one.
#[derive(Clone, Copy)]
enum Kind {
    Latency,
    Rate,
    MbPerSec,
}

/// The figures of `now` that moved by more than `CHANGE_PCT` from `before`, worst first.
pub fn changes(before: &DirEvidence, now: &DirEvidence) -> Vec<Change> {
    let pairs: [(&'static str, Kind, Option<f64>, Option<f64>); 7] = [
        ("commit latency", Kind::Latency, commit_mean(before), commit_mean(now)),
        ("commit p99", Kind::Latency, commit_p99(before), commit_p99(now)),
        ("page reads one at a time", Kind::Latency, first_read(before), first_read(now)),
        ("page reads at their best", Kind::Rate, best_reads(before), best_reads(now)),
        ("large writes", Kind::MbPerSec, large_writes(before), large_writes(now)),
        ("large reads", Kind::MbPerSec, large_reads(before), large_reads(now)),
        ("one-row commits a second", Kind::Rate, single_row(before), single_row(now)),
    ];
    let mut out: Vec<Change> = pairs
        .into_iter()
        .filter_map(|(what, kind, before, now)| {
            let (before, now) = (before?, now?);
            if !(before.is_finite() && now.is_finite() && before > 0.0) {
                return None;
            }
            let pct = (now / before - 1.0) * 100.0;
            if pct.abs() <= CHANGE_PCT {
                return None;
            }
            let worse = match kind {
                Kind::Latency => pct > 0.0,
                Kind::Rate | Kind::MbPerSec => pct < 0.0,
            };
            let show = |v: f64| match kind {
                Kind::Latency => figures::latency(v),
                Kind::Rate => figures::rate(v),
                Kind::MbPerSec => figures::mb_per_sec(v),
            };
            let text = format!(
                "{what} {} -> {} ({pct:+.0}%, {})",
                show(before),
                show(now),
                if worse { "worse" } else { "better" }
            );
            Some(Change { what, before, now, pct, worse, text })
        })
        .collect();
    out.sort_by(|a, b| b.worse.cmp(&a.worse).then(b.pct.abs().total_cmp(&a.pct.abs())));
    out
}

fn commit_mean(d: &DirEvidence) -> Option<f64> {
    d.commits.as_ref().map(|c| c.mean_ns)
}

fn commit_p99(d: &DirEvidence) -> Option<f64> {
    d.commits.as_ref().map(|c| c.p99_ns as f64)
}

fn first_read(d: &DirEvidence) -> Option<f64> {
    d.page_reads.as_ref()?.points.first().map(|p| p.latency_mean_ns)
}

fn best_reads(d: &DirEvidence) -> Option<f64> {
    d.page_reads.as_ref()?.points.iter().map(|p| p.iops).reduce(f64::max)
}

fn large_writes(d: &DirEvidence) -> Option<f64> {
    d.large_writes.as_ref().map(|t| t.mb_per_sec)
}

fn large_reads(d: &DirEvidence) -> Option<f64> {
    d.large_reads.as_ref().map(|t| t.mb_per_sec)
}

fn single_row(d: &DirEvidence) -> Option<f64> {
    d.log.as_ref()?.points.iter().find(|p| p.transaction_size == 1).map(|p| p.commits_per_sec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::evidence::{Commits, Transfer};

    fn dir(commit_ms: f64, writes_mb: f64) -> DirEvidence {
        DirEvidence {
            commits: Some(Commits {
                write_bytes: 8192,
                count: 1000,
                per_sec: 1000.0 / commit_ms,
                mean_ns: commit_ms * 1e6,
                p99_ns: (commit_ms * 2e6) as u64,
                flush_median_ns: 1_000_000,
                flush_p99_ns: 2_000_000,
            }),
            large_writes: Some(Transfer {
                block: 262_144,
                outstanding: 32,
                mb_per_sec: writes_mb,
                iops: writes_mb * 4.0,
                latency_mean_ns: 1e6,
                latency_p99_ns: 2_000_000,
            }),
            ..DirEvidence::default()
        }
    }

    #[test]
    fn a_slower_commit_is_worse_and_more_throughput_is_better() {
        let c = changes(&dir(2.4, 500.0), &dir(3.9, 700.0));
        let names: Vec<&str> = c.iter().map(|c| c.what).collect();
        assert_eq!(names, ["commit latency", "commit p99", "large writes"], "worse first: {c:?}");
        assert!(c[0].worse && !c[2].worse);
        assert_eq!(c[0].text, "commit latency 2.4 ms -> 3.9 ms (+62%, worse)");
        assert_eq!(c[2].text, "large writes 500 MB/s -> 700 MB/s (+40%, better)");
    }

    #[test]
    fn moves_within_the_noise_and_figures_measured_once_are_not_named() {
        // 20% exactly is within; 21% is beyond.
        assert!(changes(&dir(1.0, 500.0), &dir(1.2, 400.0)).is_empty());
        assert_eq!(changes(&dir(1.0, 500.0), &dir(1.21, 500.0)).len(), 2, "mean and p99");
        assert!(changes(&DirEvidence::default(), &dir(3.0, 100.0)).is_empty(), "nothing to hold it against");
        assert!(changes(&dir(0.0, 0.0), &dir(3.0, 100.0)).is_empty(), "a zero before is no base");
    }
}
