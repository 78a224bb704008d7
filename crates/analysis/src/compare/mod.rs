//! Comparing two sets of runs, A (the baseline) and B, metric by metric, the way "Optimizing
//! tempdb and log disk performance" states results ("VRAID1 outperformed VRAID5 by 117.65%
//! IOPS"), but honestly: the change with the interval of the ratio, a test that controls false
//! alarms across the metrics (Bonferroni's correction, with intervals widened to match, so an
//! interval and its p-value never disagree), verdicts that say `equivalent` or
//! `inconclusive` when that is what the data say, the drift of the host when the sides ran one
//! after the other, and the other ways A and B differ that could explain the margin.
//!
//! Two designs: independent groups (`spindle compare`: Welch's t-test on the runs' log
//! figures) and alternated rounds (`spindle ab`: the paired t-test on each round's log ratio
//! B/A, so drift shared by a round cancels).

mod confounders;
mod drift;
#[cfg(test)]
mod golden_tests;
mod metric;
mod rounds;
mod samples;
mod side;
#[cfg(test)]
mod tests;
mod verdict;
pub mod words;

pub use confounders::{
    Confounder, confounders, device_differences, setting_differences, spec_differences, value_differences,
};
pub use drift::{Drift, GroupFigures, Sequence};
pub use metric::Metric;
pub use rounds::{ROUND_LABEL, SIDE_LABEL, compare_rounds, pair_rounds};
pub use samples::Basis;
pub use side::SideRuns;
pub use verdict::{ALPHA, DEFAULT_THRESHOLD_PCT, Lean, Settle, Verdict, simultaneous_confidence};

use crate::stats::{TTest, bonferroni, mean, paired, sample_stddev, welch};
use serde::Serialize;
use spindle_model::RunRecord;
use spindle_model::db::Counts;
use verdict::{Evidence, Spread, judge, lean, pct_of_log, runs_to_settle};

/// How to judge: what picked the sides, the smallest change worth acting on, and the host's
/// history to estimate drift from.
#[derive(Clone, Copy, Debug)]
pub struct Settings<'a> {
    /// Label keys the user chose the sides with: what is compared, not a confounder.
    pub selected_by: &'a [String],
    /// Changes within ± this percent are too small to act on.
    pub threshold_pct: f64,
    /// Stored repeat groups (each the figures of one group's runs) other than the compared runs.
    pub history: &'a [GroupFigures],
}

impl MetricComparison {
    /// The means `change_pct` is the ratio of, A's then B's, and whether they are geometric.
    pub fn change_means(&self) -> (f64, f64, bool) {
        match self.a_geomean.zip(self.b_geomean) {
            Some((a, b)) => (a, b, true),
            None => (self.a_mean, self.b_mean, false),
        }
    }

    /// The verdict as a table prints it, with why drift left it inconclusive.
    pub fn verdict_words(&self) -> &'static str {
        match self.verdict {
            Verdict::Inconclusive if self.within_drift => "inconclusive (drift)",
            Verdict::Inconclusive if self.drift_unknown => "inconclusive (drift unknown)",
            v => v.words(),
        }
    }
}

impl Default for Settings<'_> {
    fn default() -> Self {
        Settings { selected_by: &[], threshold_pct: DEFAULT_THRESHOLD_PCT, history: &[] }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricComparison {
    pub metric: Metric,
    /// Arithmetic means of each side's figures.
    pub a_mean: f64,
    pub b_mean: f64,
    /// Geometric means of each side's figures, where every figure is positive (a figure of 0
    /// has none): the change is their ratio, so tables show them beside it.
    pub a_geomean: Option<f64>,
    pub b_geomean: Option<f64>,
    /// B against A, percent: the ratio of the geometric means (paired, the same as the
    /// geometric mean of the rounds' ratios), tested or not; of the arithmetic means where a
    /// figure is not positive.
    pub change_pct: f64,
    /// The simultaneous interval of the change at the comparison's `interval_confidence`,
    /// percent (always above -100: an interval of a ratio).
    pub ci_pct: Option<(f64, f64)>,
    /// The test on log figures (`diff` and the unadjusted 95% interval are log ratios).
    pub test: Option<TTest>,
    /// The p-value after Bonferroni's correction over the metrics tested.
    pub p_adjusted: Option<f64>,
    pub verdict: Verdict,
    /// For an inconclusive verdict, which way B's figures lean.
    pub lean: Option<Lean>,
    /// For an inconclusive verdict, about how many runs a side (rounds, paired) would settle it.
    pub settle: Option<Settle>,
    /// Inconclusive because the change is within the host's drift between groups.
    pub within_drift: bool,
    /// Inconclusive because the sides ran one after the other and nothing tells how far this
    /// host drifts between groups (no stored repeat groups of the workload).
    pub drift_unknown: bool,
    /// The host's drift on this metric, when the sides ran one after the other and it is known.
    pub drift: Option<Drift>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// What the compared runs count (I/Os, calls, rows), so the rate is named for it.
    pub counts: Counts,
    pub a_runs: Vec<i64>,
    pub b_runs: Vec<i64>,
    /// What the test rests on: `paired`, `independent`, `single_run`, `not_repeats`.
    pub basis: Basis,
    /// How the runs lay in time.
    pub sequence: Sequence,
    /// The method in a sentence, with its sources.
    pub method: String,
    pub threshold_pct: f64,
    /// How false alarms are controlled across the metrics.
    pub correction: &'static str,
    /// The confidence of each metric's interval, 1 - 0.05/metrics tested: together the
    /// intervals cover every true change with at least 95% probability.
    pub interval_confidence: f64,
    pub metrics: Vec<MetricComparison>,
    pub confounders: Vec<Confounder>,
    /// What a reader must know besides the table (sides run one after the other, runs that
    /// are not repeats, ...).
    pub notes: Vec<String>,
    /// The result in one sentence.
    pub headline: String,
}

/// Independent groups: B's runs against A's runs.
pub fn compare(a: &[(i64, &RunRecord)], b: &[(i64, &RunRecord)], settings: &Settings<'_>) -> Comparison {
    compare_sides(&SideRuns::of(a, settings.selected_by), &SideRuns::of(b, settings.selected_by), settings)
}

/// Independent groups, each side gathered a run at a time (`SideRuns`, made with
/// `settings.selected_by`): what `compare` judges, for sides too large to hold as records.
pub fn compare_sides(a: &SideRuns, b: &SideRuns, settings: &Settings<'_>) -> Comparison {
    let basis = Basis::for_sides(a, b);
    let sequence = Sequence::of(a, b);
    let wanted: std::collections::BTreeSet<String> = a.identities().union(b.identities()).cloned().collect();
    let drift_of = |m: Metric| {
        (sequence == Sequence::OneAfterTheOther).then(|| drift::estimate(m, settings.history, &wanted)).flatten()
    };
    let evidence = |m: Metric| -> Option<Evidence> {
        if basis != Basis::Independent {
            return None;
        }
        let (la, lb) = (a.log_figures(m)?, b.log_figures(m)?);
        let test = welch(&la, &lb)?;
        let var = |xs: &[f64]| sample_stddev(xs).powi(2);
        let spread = Spread::Independent { var_a: var(&la), var_b: var(&lb) };
        Some(Evidence { test, spread, n: la.len().min(lb.len()) })
    };
    let metrics = judge_all(a, b, settings.threshold_pct, evidence, sequence, drift_of);
    assemble(a, b, basis, sequence, metrics, settings)
}

/// One round of an A/B experiment: A's run and B's run, each with its stored id.
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a> {
    pub a: (i64, &'a RunRecord),
    pub b: (i64, &'a RunRecord),
}

/// Alternated rounds: each pair is a round's A and B; the test is on the rounds' log ratios,
/// so drift that a round's two runs share cancels.
pub fn compare_paired(pairs: &[Pair<'_>], settings: &Settings<'_>) -> Comparison {
    let (ra, rb): (Vec<_>, Vec<_>) = pairs.iter().map(|p| (p.a, p.b)).unzip();
    let (a, b) = (SideRuns::of(&ra, settings.selected_by), SideRuns::of(&rb, settings.selected_by));
    let basis = if pairs.len() >= 2 { Basis::Paired } else { Basis::SingleRun };
    let evidence = |m: Metric| -> Option<Evidence> {
        if basis != Basis::Paired {
            return None;
        }
        let (la, lb) = (a.log_figures(m)?, b.log_figures(m)?);
        let d: Vec<f64> = la.iter().zip(&lb).map(|(x, y)| y - x).collect();
        let test = paired(&d)?;
        Some(Evidence { test, spread: Spread::Paired { var_d: sample_stddev(&d).powi(2) }, n: d.len() })
    };
    let metrics = judge_all(&a, &b, settings.threshold_pct, evidence, Sequence::Rounds, |_| None);
    assemble(&a, &b, basis, Sequence::Rounds, metrics, settings)
}

/// The comparison around judged metrics: confounders, then the words.
fn assemble(
    a: &SideRuns,
    b: &SideRuns,
    basis: Basis,
    sequence: Sequence,
    metrics: Vec<MetricComparison>,
    settings: &Settings<'_>,
) -> Comparison {
    let tested = metrics.iter().filter(|m| m.test.is_some()).count();
    let mut c = Comparison {
        counts: a.counts().or(b.counts()).unwrap_or(Counts::Ios),
        a_runs: a.ids().to_vec(),
        b_runs: b.ids().to_vec(),
        basis,
        sequence,
        method: words::method(basis, a.len(), b.len(), settings.threshold_pct, tested),
        threshold_pct: settings.threshold_pct,
        correction: "bonferroni",
        interval_confidence: simultaneous_confidence(tested),
        metrics,
        confounders: confounders(a, b),
        notes: Vec::new(),
        headline: String::new(),
    };
    c.notes = words::notes(&c, a, b);
    c.headline = words::headline(&c);
    c
}

/// Every metric judged, with Bonferroni's correction over those that could be tested. `drift_of`
/// is the host's drift when the sides ran one after the other (`sequence`) and it is known.
fn judge_all(
    a: &SideRuns,
    b: &SideRuns,
    threshold_pct: f64,
    evidence: impl Fn(Metric) -> Option<Evidence>,
    sequence: Sequence,
    drift_of: impl Fn(Metric) -> Option<Drift>,
) -> Vec<MetricComparison> {
    // Only figures every run has are compared: an absent one is not a zero.
    let present: Vec<Metric> = Metric::ALL.into_iter().filter(|&m| a.all_have(m) && b.all_have(m)).collect();
    let found: Vec<Option<Evidence>> = present.iter().map(|&m| evidence(m)).collect();
    let tested: Vec<f64> = found.iter().flatten().map(|e| e.test.p_value).collect();
    let confidence = simultaneous_confidence(tested.len());
    let mut adjusted = bonferroni(&tested).into_iter();
    present
        .iter()
        .zip(found)
        .map(|(&m, e)| {
            let (a_mean, b_mean) = (mean(a.figures(m)), mean(b.figures(m)));
            let (a_geomean, b_geomean) = (geometric_mean(m, a), geometric_mean(m, b));
            let Some(e) = e else {
                let (ca, cb) = a_geomean.zip(b_geomean).unwrap_or((a_mean, b_mean));
                let change_pct = if ca != 0.0 { (cb / ca - 1.0) * 100.0 } else { 0.0 };
                return MetricComparison {
                    metric: m,
                    a_mean,
                    b_mean,
                    a_geomean,
                    b_geomean,
                    change_pct,
                    ci_pct: None,
                    test: None,
                    p_adjusted: None,
                    verdict: Verdict::Untested,
                    lean: None,
                    settle: None,
                    within_drift: false,
                    drift_unknown: false,
                    drift: None,
                };
            };
            let p_adjusted = adjusted.next().unwrap_or(1.0);
            let change_pct = pct_of_log(e.test.diff);
            let ci = e.test.interval(confidence);
            let mut verdict = judge(ci, m.higher_is_better(), threshold_pct, p_adjusted);
            let drift = drift_of(m);
            // Drift alone could have made this change (or hidden one as large as it), so
            // groups run one after the other cannot tell.
            let within_drift = drift.is_some_and(|d| match verdict {
                Verdict::Better | Verdict::Worse => change_pct.abs() < d.pct,
                Verdict::Equivalent => d.pct > threshold_pct,
                _ => false,
            });
            // Measured here: two groups of one configuration, back to back, came out 11.8% apart.
            // With no history to say how far this host wanders, any verdict on groups run one
            // after the other may be drift's, and more runs of the same groups would carry the
            // same drift: unknown drift is treated as wider than any change.
            let drift_unknown = sequence == Sequence::OneAfterTheOther && drift.is_none();
            if within_drift || drift_unknown {
                verdict = Verdict::Inconclusive;
            }
            let inconclusive = verdict == Verdict::Inconclusive;
            MetricComparison {
                metric: m,
                a_mean,
                b_mean,
                a_geomean,
                b_geomean,
                change_pct,
                ci_pct: Some((pct_of_log(ci.0), pct_of_log(ci.1))),
                p_adjusted: Some(p_adjusted),
                verdict,
                lean: inconclusive.then(|| lean(e.test.diff, m.higher_is_better())),
                // More runs of the same design cannot settle what drift may have made.
                settle: (inconclusive && !within_drift && !drift_unknown)
                    .then(|| runs_to_settle(&e, threshold_pct, confidence)),
                within_drift,
                drift_unknown,
                drift,
                test: Some(e.test),
            }
        })
        .collect()
}

/// The geometric mean of the runs' figures: what a test on log figures compares. `None` where
/// a figure is not positive.
fn geometric_mean(m: Metric, runs: &SideRuns) -> Option<f64> {
    runs.log_figures(m).filter(|l| !l.is_empty()).map(|l| mean(&l).exp())
}
