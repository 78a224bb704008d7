//! What a metric is tested on, and whether a side's runs can be tested together at all. Each
//! run is one sample: only runs repeated on both sides say how much runs of one configuration
//! differ (on this project's own virtio disk two runs of one configuration differed by 43%
//! while each run's per-second figures varied by a few percent, so the variation within a run
//! says nothing about the variation between runs). Runs of different workloads on one side
//! (other session counts, another depth) are not repeats and are not pooled.

use super::Metric;
use super::confounders::workload_facts;
use serde::Serialize;
use spindle_model::RunRecord;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// A and B alternated in rounds (`spindle ab`): each round's B against its A.
    Paired,
    /// At least two runs of one workload on each side, compared as independent samples.
    Independent,
    /// A side has a single run: nothing says how much runs of one configuration differ.
    SingleRun,
    /// A side's runs are of different workloads, so they are not repeats of anything.
    NotRepeats,
}

impl Basis {
    pub fn for_sides(a: &[&RunRecord], b: &[&RunRecord]) -> Basis {
        if !differing_keys(a).is_empty() || !differing_keys(b).is_empty() {
            Basis::NotRepeats
        } else if a.len() >= 2 && b.len() >= 2 {
            Basis::Independent
        } else {
            Basis::SingleRun
        }
    }
}

/// Workload settings whose value differs among `runs` (empty when they are repeats of one
/// workload).
pub fn differing_keys(runs: &[&RunRecord]) -> Vec<String> {
    let facts = workload_facts(runs);
    facts.into_iter().filter(|(_, values)| values.len() > 1).map(|(key, _)| key).collect()
}

/// The metric's figure of each run on the log scale, where a ratio becomes a difference and
/// every interval of a ratio stays above -100%. `None` when a run's figure is not positive
/// (a run that measured nothing has no ratio to anything).
pub fn log_figures(metric: Metric, runs: &[&RunRecord]) -> Option<Vec<f64>> {
    runs.iter().map(|r| metric.of(r)).map(|x| (x > 0.0 && x.is_finite()).then(|| x.ln())).collect()
}
