//! What a metric is tested on, and whether a side's runs can be tested together at all. Each
//! run is one sample: only runs repeated on both sides say how much runs of one configuration
//! differ (on this project's own virtio disk two runs of one configuration differed by 43%
//! while each run's per-second figures varied by a few percent, so the variation within a run
//! says nothing about the variation between runs). Runs of different workloads on one side
//! (other session counts, another depth) are not repeats and are not pooled.

use super::SideRuns;
use serde::Serialize;

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
    pub fn for_sides(a: &SideRuns, b: &SideRuns) -> Basis {
        if !a.differing_keys().is_empty() || !b.differing_keys().is_empty() {
            Basis::NotRepeats
        } else if a.len() >= 2 && b.len() >= 2 {
            Basis::Independent
        } else {
            Basis::SingleRun
        }
    }
}
