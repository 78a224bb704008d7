//! Comparing two sets of runs, A (the baseline) and B, metric by metric, the way seed 002
//! states results ("B outperforms A by X% IOPS"), but honestly: with the 95% confidence
//! interval of the change, Welch's t-test, a verdict that says "within noise" when it is,
//! and the other ways A and B differ that could explain the margin.

mod confounders;
mod samples;
#[cfg(test)]
mod tests;

pub use confounders::{Confounder, confounders};

use crate::stats::{Welch, mean, welch};
pub use samples::Basis;
use samples::samples;
use serde::Serialize;
use spindle_model::RunRecord;

/// Below this p-value a difference is not put down to chance.
const ALPHA: f64 = 0.05;
/// Changes smaller than this (percent) are reported as noise even when the test finds them:
/// real, perhaps, but too small to act on.
const MIN_EFFECT_PCT: f64 = 1.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Iops,
    MbPerSec,
    LatencyMean,
    LatencyP99,
}

impl Metric {
    pub const ALL: [Metric; 4] = [Metric::Iops, Metric::MbPerSec, Metric::LatencyMean, Metric::LatencyP99];

    /// As the text report names it.
    pub fn label(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::MbPerSec => "MB/s",
            Metric::LatencyMean => "mean latency",
            Metric::LatencyP99 => "p99 latency",
        }
    }

    pub fn higher_is_better(self) -> bool {
        matches!(self, Metric::Iops | Metric::MbPerSec)
    }

    /// The run's figure (latencies in nanoseconds).
    pub fn of(self, r: &RunRecord) -> f64 {
        let s = &r.summary;
        match self {
            Metric::Iops => s.iops,
            Metric::MbPerSec => s.mb_per_sec,
            Metric::LatencyMean => s.latency_ns.mean,
            Metric::LatencyP99 => s.latency_ns.p99 as f64,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// B is better than A beyond noise.
    BBetter,
    /// B is worse than A beyond noise.
    BWorse,
    /// The change is within what noise (or too small a change) explains.
    WithinNoise,
    /// Not enough runs to test (a side has a single run).
    Untested,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricComparison {
    pub metric: Metric,
    pub a_mean: f64,
    pub b_mean: f64,
    /// (B - A) / A, percent; 0 when A is 0.
    pub change_pct: f64,
    /// The test of B against A on this metric's samples.
    pub test: Option<Welch>,
    /// The confidence interval of the change, as percent of A's mean.
    pub ci95_pct: Option<(f64, f64)>,
    pub verdict: Verdict,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub a_runs: Vec<i64>,
    pub b_runs: Vec<i64>,
    /// What the noise estimate rests on.
    pub basis: Basis,
    pub metrics: Vec<MetricComparison>,
    pub confounders: Vec<Confounder>,
    /// The result in one sentence, as seed 002 would write it.
    pub headline: String,
}

/// Compares B against A. `selected_by` are the label keys the user chose the sides with;
/// differences in them are the point of the comparison, not confounders.
pub fn compare(a: &[(i64, &RunRecord)], b: &[(i64, &RunRecord)], selected_by: &[String]) -> Comparison {
    let basis = Basis::for_sides(a.len(), b.len());
    let ra: Vec<&RunRecord> = a.iter().map(|(_, r)| *r).collect();
    let rb: Vec<&RunRecord> = b.iter().map(|(_, r)| *r).collect();
    let metrics: Vec<MetricComparison> = Metric::ALL.iter().map(|&m| compare_metric(m, basis, &ra, &rb)).collect();
    let headline = headline(&metrics[0], basis, a.len(), b.len());
    Comparison {
        a_runs: a.iter().map(|(id, _)| *id).collect(),
        b_runs: b.iter().map(|(id, _)| *id).collect(),
        basis,
        metrics,
        confounders: confounders(&ra, &rb, selected_by),
        headline,
    }
}

fn compare_metric(metric: Metric, basis: Basis, a: &[&RunRecord], b: &[&RunRecord]) -> MetricComparison {
    let a_mean = mean(&a.iter().map(|r| metric.of(r)).collect::<Vec<_>>());
    let b_mean = mean(&b.iter().map(|r| metric.of(r)).collect::<Vec<_>>());
    let pct = |x: f64| if a_mean != 0.0 { x / a_mean * 100.0 } else { 0.0 };
    let change_pct = pct(b_mean - a_mean);
    let test = match (samples(metric, basis, a), samples(metric, basis, b)) {
        (Some(sa), Some(sb)) => welch(&sa, &sb),
        _ => None,
    };
    let ci95_pct = test.as_ref().map(|t| (pct(t.ci95_low), pct(t.ci95_high)));
    let verdict = match &test {
        // No samples to test, but nothing to explain either (a run against itself).
        None if change_pct == 0.0 => Verdict::WithinNoise,
        None => Verdict::Untested,
        Some(t) if t.p_value < ALPHA && change_pct.abs() >= MIN_EFFECT_PCT => {
            let b_higher = b_mean > a_mean;
            if b_higher == metric.higher_is_better() { Verdict::BBetter } else { Verdict::BWorse }
        }
        Some(_) => Verdict::WithinNoise,
    };
    MetricComparison { metric, a_mean, b_mean, change_pct, test, ci95_pct, verdict }
}

fn headline(m: &MetricComparison, basis: Basis, na: usize, nb: usize) -> String {
    let how = match (basis, &m.test) {
        (_, Some(t)) => format!("Welch's t-test over {na} vs {nb} runs, {}", p_text(t.p_value)),
        (_, None) if m.change_pct == 0.0 => "the figures are identical".to_string(),
        (Basis::SingleRun, None) => format!(
            "{na} vs {nb} runs: how much runs of one configuration differ is unknown; run each side with --repeat 3 to test"
        ),
        (Basis::Repeats, None) => "the figures cannot be tested".to_string(),
    };
    let by = m.change_pct.abs();
    let label = m.metric.label();
    match m.verdict {
        Verdict::BBetter => format!("B outperforms A by {by:.2}% {label} ({how})."),
        Verdict::BWorse => {
            let way = if m.change_pct > 0.0 { "higher" } else { "lower" };
            format!("A outperforms B: B's {label} is {by:.2}% {way} ({how}).")
        }
        Verdict::WithinNoise => {
            format!("No real difference in {label}: B vs A {:+.2}% is within noise ({how}).", m.change_pct)
        }
        Verdict::Untested => format!("B vs A {:+.2}% {label}, not tested ({how}).", m.change_pct),
    }
}

/// `p = 0.031`, or `p < 0.001`.
fn p_text(p: f64) -> String {
    if p < 0.001 { "p < 0.001".to_string() } else { format!("p = {p:.3}") }
}
