//! A stored run as `runs list` and `serve`'s runs page show it.

use serde::Serialize;
use spindle_model::record::LatencyOf;
use spindle_store::RunSummary;

/// A stored run as `runs list` (and `serve`'s runs page) shows it: the store's summary, and
/// the latency every view leads with (`IoStats::lead_latency`) beside the summary's own, each
/// I/O's. In JSON the summary's fields keep their names and meaning; the lead's are added.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Listed {
    #[serde(flatten)]
    pub summary: RunSummary,
    pub latency_of: LatencyOf,
    /// `None` (null in JSON) where the run's tool did not record it, as the summary's.
    pub lead_latency_mean_ns: Option<f64>,
    pub lead_latency_p99_ns: Option<u64>,
}

/// The listed runs with their lead latencies, from the store's summary rows (which keep each
/// run's commits beside its I/Os' latency): no record is read.
pub fn listed(runs: Vec<RunSummary>) -> Vec<Listed> {
    runs.into_iter()
        .map(|summary| {
            let (latency_of, lead_latency_mean_ns, lead_latency_p99_ns) = summary.lead_latency();
            Listed { latency_of, lead_latency_mean_ns, lead_latency_p99_ns, summary }
        })
        .collect()
}
