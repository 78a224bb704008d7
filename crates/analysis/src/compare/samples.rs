//! The samples a metric is tested on: one per run. Only runs repeated on both sides say how
//! much runs of one configuration differ; the variation within a single run does not (on
//! this project's own virtio disk, two runs of one configuration differed by 43% while each
//! run's per-second figures varied by a few percent), so single runs are not tested.

use super::Metric;
use serde::Serialize;
use spindle_model::RunRecord;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// At least two runs on each side: each run is a sample.
    Repeats,
    /// A side has a single run: no estimate of run-to-run noise.
    SingleRun,
}

impl Basis {
    pub fn for_sides(a: usize, b: usize) -> Basis {
        if a >= 2 && b >= 2 { Basis::Repeats } else { Basis::SingleRun }
    }
}

/// Each run's figure, or `None` when there are too few runs to test.
pub fn samples(metric: Metric, basis: Basis, runs: &[&RunRecord]) -> Option<Vec<f64>> {
    match basis {
        Basis::Repeats => Some(runs.iter().map(|r| metric.of(r)).collect()),
        Basis::SingleRun => None,
    }
}
