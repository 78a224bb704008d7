//! From a test on the log scale to a verdict in honest words: `better`/`worse` only when the
//! difference is significant (after Bonferroni's correction over the metrics compared) and the
//! whole simultaneous interval (at the matching confidence, 1 - 0.05/metrics) lies beyond the
//! threshold a DBA would act on; `equivalent` when the whole interval lies inside it; `inconclusive` otherwise, with the way the data lean and about how
//! many runs would settle it. A comparison that cannot be tested is `untested`, never "no
//! difference".

use crate::stats::{TTest, student_t_quantile};
use serde::Serialize;

/// Below this (Bonferroni-adjusted) p-value a difference is not put down to chance.
pub const ALPHA: f64 = 0.05;

/// Changes within ± this percent are, by default, too small to act on.
pub const DEFAULT_THRESHOLD_PCT: f64 = 5.0;

/// Beyond this many runs a side (or rounds) "how many would settle it" is not worth saying.
const MAX_RUNS: u32 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// B is better than A by more than the threshold, beyond noise.
    Better,
    /// B is worse than A by more than the threshold, beyond noise.
    Worse,
    /// Any difference is within ± the threshold.
    Equivalent,
    /// The data cannot tell: the interval reaches both beyond and inside the threshold.
    Inconclusive,
    /// Nothing to test with (a single run a side, runs that are not repeats).
    Untested,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Better => "B better",
            Verdict::Worse => "B worse",
            Verdict::Equivalent => "equivalent",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Untested => "not tested",
        }
    }
}

/// Which way a point estimate points, in terms of B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lean {
    Better,
    Worse,
}

/// About how many runs a side (rounds, when paired) would likely settle an inconclusive
/// comparison, if the figures keep their spread.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Settle {
    /// Runs a side (or rounds) in all; `None`: more than a thousand.
    pub runs: Option<u32>,
    /// How many more than there are now.
    pub more: Option<u32>,
}

/// How the spread of the figures shrinks with more runs.
#[derive(Clone, Copy, Debug)]
pub enum Spread {
    /// Independent sides: the log figures' sample variances.
    Independent { var_a: f64, var_b: f64 },
    /// Paired rounds: the variance of the per-round log ratios.
    Paired { var_d: f64 },
}

impl Spread {
    /// Standard error and degrees of freedom with `n` runs a side (or `n` rounds).
    fn at(self, n: f64) -> (f64, f64) {
        match self {
            Spread::Independent { var_a, var_b } => (((var_a + var_b) / n).sqrt(), 2.0 * (n - 1.0)),
            Spread::Paired { var_d } => ((var_d / n).sqrt(), n - 1.0),
        }
    }
}

/// A test of B against A on log figures, and what it says in percent.
pub(super) struct Evidence {
    pub test: TTest,
    pub spread: Spread,
    /// Runs a side now (the smaller side), or rounds.
    pub n: usize,
}

/// ln(1 + pct/100).
fn log_of_pct(pct: f64) -> f64 {
    (pct / 100.0).ln_1p()
}

/// A log difference as a percent change of B against A.
pub(super) fn pct_of_log(x: f64) -> f64 {
    (x.exp_m1() * 100.0).clamp(-100.0, f64::MAX)
}

/// The confidence of each of `tested` simultaneous intervals: together they cover every true
/// change with at least 95% probability (Bonferroni's inequality).
pub fn simultaneous_confidence(tested: usize) -> f64 {
    1.0 - ALPHA / tested.max(1) as f64
}

/// The verdict on one metric from its simultaneous interval `ci` (log ratios) and adjusted
/// p-value `p_adjusted`; `higher_is_better` orients the interval. The two agree (the interval
/// excludes zero exactly when `p_adjusted` < 0.05), so an interval beyond the threshold is
/// always significant; the test of significance stays as the rule's own words.
pub(super) fn judge(ci: (f64, f64), higher_is_better: bool, threshold_pct: f64, p_adjusted: f64) -> Verdict {
    let (lo, hi) = (pct_of_log(ci.0), pct_of_log(ci.1));
    // Percent changes in B's favour: a fall in latency is an improvement.
    let (worst, best) = if higher_is_better { (lo, hi) } else { (-hi, -lo) };
    let significant = p_adjusted < ALPHA;
    if significant && worst > threshold_pct {
        Verdict::Better
    } else if significant && best < -threshold_pct {
        Verdict::Worse
    } else if lo >= -threshold_pct && hi <= threshold_pct {
        Verdict::Equivalent
    } else {
        Verdict::Inconclusive
    }
}

/// Which way the estimate leans, in B's favour or against it.
pub(super) fn lean(log_diff: f64, higher_is_better: bool) -> Lean {
    if (log_diff > 0.0) == higher_is_better { Lean::Better } else { Lean::Worse }
}

/// About how many runs a side (or rounds) it would take for the interval at `confidence` (the
/// simultaneous one the verdict rests on) to clear the threshold band in the direction the
/// estimate points: beyond it when the estimate lies outside the band, inside it when the
/// estimate lies within. Always at least one more than now: the comparison is unsettled now,
/// whatever the projection says (it pools the sides' degrees of freedom, which Welch's test
/// does not), and "0 more would settle it" would contradict the verdict beside it.
pub(super) fn runs_to_settle(e: &Evidence, threshold_pct: f64, confidence: f64) -> Settle {
    let d = e.test.diff;
    let (band_lo, band_hi) = (log_of_pct(-threshold_pct), log_of_pct(threshold_pct));
    let margin = if d > band_hi {
        d - band_hi
    } else if d < band_lo {
        band_lo - d
    } else {
        (band_hi - d).min(d - band_lo)
    };
    let now = e.n as u32;
    let needed = ((now + 1).max(2)..=MAX_RUNS).find(|&n| {
        let (se, df) = e.spread.at(f64::from(n));
        df > 0.0 && student_t_quantile(0.5 + confidence / 2.0, df) * se < margin
    });
    Settle { runs: needed, more: needed.map(|n| n.saturating_sub(now)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence(diff_pct: f64, half_log: f64, n: usize) -> Evidence {
        let d = log_of_pct(diff_pct);
        let test = TTest {
            diff: d,
            t: 0.0,
            df: (n - 1) as f64,
            p_value: 0.0,
            ci95_low: d - half_log,
            ci95_high: d + half_log,
        };
        Evidence { test, spread: Spread::Paired { var_d: 0.0004 }, n }
    }

    fn ci(e: &Evidence) -> (f64, f64) {
        (e.test.ci95_low, e.test.ci95_high)
    }

    #[test]
    fn better_needs_the_whole_interval_beyond_the_threshold_and_significance() {
        let clear = evidence(20.0, 0.05, 5);
        assert_eq!(judge(ci(&clear), true, 5.0, 0.001), Verdict::Better);
        assert_eq!(judge(ci(&clear), false, 5.0, 0.001), Verdict::Worse, "higher latency is worse");
        assert_eq!(judge(ci(&clear), true, 5.0, 0.2), Verdict::Inconclusive, "not significant after the correction");
        let reaching_in = evidence(8.0, 0.05, 5);
        assert_eq!(judge(ci(&reaching_in), true, 5.0, 0.001), Verdict::Inconclusive);
        let small = evidence(0.5, 0.02, 5);
        assert_eq!(judge(ci(&small), true, 5.0, 0.5), Verdict::Equivalent);
        assert_eq!(judge(ci(&small), true, 1.0, 0.5), Verdict::Inconclusive, "a tighter threshold");
    }

    #[test]
    fn intervals_of_ratios_never_fall_below_minus_100_percent() {
        assert_eq!(pct_of_log(-50.0), -100.0);
        assert!(pct_of_log(-3.0) > -100.0);
        assert!((pct_of_log(log_of_pct(-95.0)) + 95.0).abs() < 1e-9);
    }

    #[test]
    fn more_runs_settle_an_inconclusive_difference() {
        // +8% with a per-round spread of 2%: a few rounds clear the 5% band.
        let e = evidence(8.0, 0.2, 2);
        let s = runs_to_settle(&e, 5.0, 0.95);
        let runs = s.runs.expect("settles");
        assert!(runs > 2 && runs < 20, "{s:?}");
        assert_eq!(s.more, Some(runs - 2));
        // Exactly on the threshold nothing settles it.
        let edge = evidence(5.0, 0.2, 2);
        assert_eq!(runs_to_settle(&edge, 5.0, 0.95).runs, None);
        assert_eq!(lean(e.test.diff, true), Lean::Better);
        // Seen as settled at the present count by the projection (3 inconclusive rounds once
        // said "about 3 rounds (0 more)"): never fewer than one more.
        let now = evidence(20.0, 0.2, 5);
        assert_eq!(runs_to_settle(&now, 5.0, 0.95), Settle { runs: Some(6), more: Some(1) });
        assert_eq!(lean(e.test.diff, false), Lean::Worse);
    }
}
