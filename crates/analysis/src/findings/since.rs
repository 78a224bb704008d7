//! What moved since the earlier checks of the same place. A disk's figures swing between runs
//! minutes apart (this project's VM disk: commits 431 µs to 11.7 ms within minutes, page reads
//! 66k-91k IOPS at one depth; docs/benchmarks.md, "The check"), so one check against one other
//! tells nothing about a change. Each figure's swing is measured from this place's own earlier
//! checks instead: with at least `SWING_CHECKS` of them, a figure of now is tested against
//! their values (Student's t on the logarithms, a prediction for one new value, Bonferroni's
//! correction over the figures tested) and named a change only beyond that swing, with its p.
//! With fewer, the moves are shown as moves and none is called a change. Both rules are
//! spindle's own. Beside the figures, each I/O step's per-second swing (how far its slow seconds
//! fell below its fast ones) is held against the earlier checks' the same way: how steady the
//! storage was moves too (a neighbour arriving, a volume throttled).

use super::Area;
use super::evidence::DirEvidence;
use super::figures;
use crate::stats::{bonferroni, mean, sample_stddev, student_t_cdf, student_t_quantile};
use serde::Serialize;

/// Earlier checks of a place needed to estimate a figure's swing there: two values give one
/// degree of freedom, whose t quantile (12.7 at 95%) leaves every swing wider than the figures.
pub const SWING_CHECKS: usize = 3;
/// At most this many earlier checks are read: the newest, so the swing is the disk's lately.
pub const HISTORY: usize = 10;
/// A change is named when its Bonferroni-adjusted p is below this.
pub const ALPHA: f64 = 0.05;

/// One figure, now against the earlier checks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// `commit latency`, `page reads at their best`.
    pub what: &'static str,
    /// The figure at the last check, and now.
    pub before: f64,
    pub now: f64,
    /// Signed change from the last check, percent of `before`.
    pub pct: f64,
    /// How many earlier checks measured this figure.
    pub checks: usize,
    /// Half the width of the range a new check lands in 95 times in 100 by this place's earlier
    /// checks, in percent (`±14%`); none with fewer than `SWING_CHECKS`.
    pub swing_pct: Option<f64>,
    /// Two-sided p of now against the earlier checks, Bonferroni-adjusted over the figures
    /// tested; none with fewer than `SWING_CHECKS`.
    pub p: Option<f64>,
    pub verdict: Moved,
    /// `commit latency 2.4 ms -> 3.9 ms (+62%)`, with the verdict where there is one.
    pub text: String,
}

/// What a move is, as sure as the earlier checks allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Moved {
    /// Beyond the swing, for the worse.
    Worse,
    /// Beyond the swing, for the better.
    Better,
    /// Within the swing of the earlier checks.
    WithinSwing,
    /// Too few earlier checks to know the swing.
    Unjudged,
}

/// Whether a larger figure is better, and how to show one.
#[derive(Clone, Copy)]
enum Kind {
    Latency,
    Rate,
    MbPerSec,
    /// How far a step's slow seconds fell below its fast ones (`Swing::width`): wider is worse.
    Swing,
}

/// How a figure is read from a check's evidence.
type Reader = fn(&DirEvidence) -> Option<f64>;

/// The figures a check is followed by, each with how to read it from the evidence.
const FIGURES: [(&str, Kind, Reader); 11] = [
    ("commit latency", Kind::Latency, commit_mean),
    ("commit p99", Kind::Latency, commit_p99),
    ("page reads one at a time", Kind::Latency, first_read),
    ("page reads at their best", Kind::Rate, best_reads),
    ("large writes", Kind::MbPerSec, large_writes),
    ("large reads", Kind::MbPerSec, large_reads),
    ("one-row commits a second", Kind::Rate, single_row),
    ("commits' per-second swing", Kind::Swing, |d| swing(d, Area::Commits)),
    ("page reads' per-second swing", Kind::Swing, |d| swing(d, Area::PageReads)),
    ("large writes' per-second swing", Kind::Swing, |d| swing(d, Area::LargeWrites)),
    ("large reads' per-second swing", Kind::Swing, |d| swing(d, Area::LargeReads)),
];

/// Each figure of `now` against the same figure in `earlier` (this place's earlier checks,
/// newest first): changes beyond the swing first (worse before better), then the rest by the
/// size of their move.
pub fn changes(earlier: &[DirEvidence], now: &DirEvidence) -> Vec<Change> {
    let earlier = &earlier[..earlier.len().min(HISTORY)];
    let measured: Vec<(&'static str, Kind, Vec<f64>, f64)> = FIGURES
        .iter()
        .filter_map(|&(what, kind, read)| {
            let now = read(now).filter(|v| v.is_finite() && *v > 0.0)?;
            let values: Vec<f64> = earlier.iter().filter_map(read).filter(|v| v.is_finite() && *v > 0.0).collect();
            (!values.is_empty()).then_some((what, kind, values, now))
        })
        .collect();
    let tested: Vec<Option<Prediction>> = measured.iter().map(|(_, _, values, now)| predict(values, *now)).collect();
    let raw: Vec<f64> = tested.iter().flatten().map(|t| t.p).collect();
    let mut adjusted = bonferroni(&raw).into_iter();
    let mut out: Vec<Change> = measured
        .into_iter()
        .zip(tested)
        .map(|((what, kind, values, now), test)| {
            let p = test.as_ref().and_then(|_| adjusted.next());
            change(what, kind, &values, now, test.map(|t| t.swing_pct), p)
        })
        .collect();
    let rank = |c: &Change| match c.verdict {
        Moved::Worse => 0,
        Moved::Better => 1,
        Moved::WithinSwing | Moved::Unjudged => 2,
    };
    out.sort_by(|a, b| rank(a).cmp(&rank(b)).then(b.pct.abs().total_cmp(&a.pct.abs())));
    out
}

/// A new value held against earlier ones: the two-sided p of it belonging with them, and the
/// swing (95% prediction half-width) in percent.
struct Prediction {
    p: f64,
    swing_pct: f64,
}

/// On logarithms, so a swing is a ratio either way (a figure that halves and one that
/// doubles move alike); `None` with fewer than `SWING_CHECKS` values.
fn predict(values: &[f64], now: f64) -> Option<Prediction> {
    if values.len() < SWING_CHECKS {
        return None;
    }
    let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    let (m, s, n) = (mean(&logs), sample_stddev(&logs), logs.len() as f64);
    let spread = s * (1.0 + 1.0 / n).sqrt();
    let df = n - 1.0;
    let distance = now.ln() - m;
    let p = if spread > 0.0 {
        2.0 * (1.0 - student_t_cdf((distance / spread).abs(), df))
    } else if distance == 0.0 {
        1.0
    } else {
        0.0
    };
    let swing_pct = ((student_t_quantile(0.975, df) * spread).exp() - 1.0) * 100.0;
    Some(Prediction { p: p.clamp(0.0, 1.0), swing_pct })
}

fn change(what: &'static str, kind: Kind, values: &[f64], now: f64, swing_pct: Option<f64>, p: Option<f64>) -> Change {
    let before = values[0];
    let pct = (now / before - 1.0) * 100.0;
    let show = |v: f64| match kind {
        Kind::Latency => figures::latency(v),
        Kind::Rate => figures::rate(v),
        Kind::MbPerSec => figures::mb_per_sec(v),
        Kind::Swing => format!("{:.0}%", v * 100.0),
    };
    let higher_is_worse = matches!(kind, Kind::Latency | Kind::Swing);
    let verdict = match p {
        None => Moved::Unjudged,
        Some(p) if p >= ALPHA => Moved::WithinSwing,
        Some(_) if (pct > 0.0) == higher_is_worse => Moved::Worse,
        Some(_) => Moved::Better,
    };
    let moved = format!("{what} {} -> {} ({pct:+.0}%)", show(before), show(now));
    let n = values.len();
    let text = match (verdict, swing_pct, p) {
        (Moved::Worse | Moved::Better, Some(swing), Some(p)) => format!(
            "{moved}, {}: beyond its swing over {n} earlier checks here (±{swing:.0}%), p = {}",
            if verdict == Moved::Worse { "worse" } else { "better" },
            p_value(p)
        ),
        (Moved::WithinSwing, Some(swing), _) => {
            format!("{moved}, within its swing over {n} earlier checks (±{swing:.0}%)")
        }
        _ => moved,
    };
    Change { what, before, now, pct, checks: n, swing_pct, p, verdict, text }
}

/// A p-value as a reader takes it: `0.012`, `< 0.001`.
fn p_value(p: f64) -> String {
    if p < 0.001 { "< 0.001".into() } else { format!("{p:.3}") }
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

/// The widest swing among the steps of `area` (the page reads' depths are several steps).
fn swing(d: &DirEvidence, area: Area) -> Option<f64> {
    d.over_time.iter().filter(|s| s.area == area).filter_map(|s| s.swing.map(|w| w.width())).reduce(f64::max)
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
    fn one_earlier_check_shows_the_moves_and_calls_none_a_change() {
        let c = changes(&[dir(2.4, 500.0)], &dir(3.9, 700.0));
        assert!(c.iter().all(|c| c.verdict == Moved::Unjudged && c.p.is_none() && c.swing_pct.is_none()), "{c:?}");
        let text: Vec<&str> = c.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            text,
            [
                "commit latency 2.4 ms -> 3.9 ms (+62%)",
                "commit p99 4.8 ms -> 7.8 ms (+62%)",
                "large writes 500 MB/s -> 700 MB/s (+40%)"
            ]
        );
    }

    #[test]
    fn a_figure_beyond_the_swing_of_the_earlier_checks_is_a_change_with_its_p() {
        // Commits of 2.0-2.2 ms in four earlier checks (newest first), then 3.9 ms: worse, for
        // certain. Large writes of 480-560 MB/s, then 520: within their swing.
        let earlier = [dir(2.1, 500.0), dir(2.0, 560.0), dir(2.2, 480.0), dir(2.1, 530.0)];
        let c = changes(&earlier, &dir(3.9, 520.0));
        let latency = &c[0];
        assert_eq!((latency.what, latency.verdict, latency.checks), ("commit latency", Moved::Worse, 4));
        assert!(latency.p.unwrap() < 0.001 * 3.0, "{latency:?}");
        assert!(
            latency.text.starts_with(
                "commit latency 2.1 ms -> 3.9 ms (+86%), worse: beyond its swing over 4 earlier checks here (±"
            ),
            "{}",
            latency.text
        );
        let writes = c.iter().find(|c| c.what == "large writes").unwrap();
        assert_eq!(writes.verdict, Moved::WithinSwing, "{writes:?}");
        assert!(writes.p.unwrap() > 0.5, "{writes:?}");
        // The 95% swing of 480-560 MB/s over four checks: ±27% (s of the logs 0.067, t 3.18).
        let swing = writes.swing_pct.unwrap();
        assert!((20.0..30.0).contains(&swing), "{swing}");
        assert!(
            writes.text.ends_with(&format!("within its swing over 4 earlier checks (±{swing:.0}%)")),
            "{}",
            writes.text
        );
        // Faster commits beyond the swing are better.
        let c = changes(&earlier, &dir(1.0, 520.0));
        assert_eq!((c[0].what, c[0].verdict), ("commit latency", Moved::Better));
    }

    #[test]
    fn a_disk_that_swings_widely_moves_within_its_swing() {
        // This project's VM: commits of 0.43 ms, 11.7 ms and 2 ms in three checks; 6 ms now.
        let c = changes(&[dir(0.43, 500.0), dir(11.7, 500.0), dir(2.0, 500.0)], &dir(6.0, 500.0));
        let latency = c.iter().find(|c| c.what == "commit latency").unwrap();
        assert_eq!(latency.verdict, Moved::WithinSwing);
        assert!(latency.swing_pct.unwrap() > 1000.0, "{latency:?}");
    }

    #[test]
    fn each_steps_per_second_swing_is_compared_too_wider_being_worse() {
        use crate::findings::over_time::StepOverTime;
        use spindle_model::over_time::Swing;
        let swinging = |p5: f64| {
            let mut d = dir(2.0, 500.0);
            d.over_time = vec![StepOverTime {
                area: Area::LargeWrites,
                step: "large writes".into(),
                too_short: None,
                level_shift: None,
                swing: Some(Swing { p5, p95: 1000.0 }),
            }];
            d
        };
        let c = changes(&[swinging(950.0)], &swinging(400.0));
        let swing = c.iter().find(|c| c.what == "large writes' per-second swing").expect("compared");
        assert_eq!(swing.text, "large writes' per-second swing 5% -> 60% (+1100%)");
        let earlier = [swinging(950.0), swinging(940.0), swinging(960.0)];
        let c = changes(&earlier, &swinging(400.0));
        assert_eq!(c[0].what, "large writes' per-second swing");
        assert_eq!(c[0].verdict, Moved::Worse, "{:?}", c[0]);
    }

    #[test]
    fn figures_measured_once_or_not_positive_are_not_compared() {
        assert!(changes(&[], &dir(3.0, 100.0)).is_empty(), "nothing to hold it against");
        assert!(changes(&[DirEvidence::default()], &dir(3.0, 100.0)).is_empty());
        assert!(changes(&[dir(0.0, 0.0)], &dir(3.0, 100.0)).is_empty(), "a zero before is no base");
        // Only the newest HISTORY checks are read.
        let many: Vec<DirEvidence> = (0..HISTORY + 5).map(|i| dir(1.0 + i as f64, 500.0)).collect();
        assert_eq!(changes(&many, &dir(1.0, 500.0))[0].checks, HISTORY);
    }
}
