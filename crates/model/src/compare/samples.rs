//! The samples a metric is tested on. With repeats on both sides, each run is one sample:
//! that captures run-to-run noise. With a single run on a side, the run's per-second series is
//! cut into batches whose means are close to independent (the method of batch means), which
//! captures only the noise within a run.

use super::Metric;
use crate::RunRecord;
use crate::stats::batch_means;
use serde::Serialize;

/// Batches per run for within-run noise: enough for a t-test, few enough that each batch
/// spans several seconds of a 30 s run.
const BATCHES_PER_RUN: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// At least two runs on each side: each run is a sample.
    Repeats,
    /// A side has a single run: per-second variation within runs.
    WithinRun,
}

impl Basis {
    pub fn for_sides(a: usize, b: usize) -> Basis {
        if a >= 2 && b >= 2 { Basis::Repeats } else { Basis::WithinRun }
    }
}

/// `None` when the metric cannot be sampled this way (p99 has no per-second series) or
/// there are fewer than two samples.
pub fn samples(metric: Metric, basis: Basis, runs: &[&RunRecord]) -> Option<Vec<f64>> {
    let out: Vec<f64> = match basis {
        Basis::Repeats => runs.iter().map(|r| metric.of(r)).collect(),
        Basis::WithinRun => {
            let per_second = |r: &RunRecord| -> Option<Vec<f64>> {
                let series = r.timeseries.iter();
                match metric {
                    Metric::Iops => Some(series.map(|p| p.iops).collect()),
                    Metric::MbPerSec => Some(series.map(|p| p.bytes_per_sec / 1e6).collect()),
                    // Seconds without a completed I/O have no latency to average.
                    Metric::LatencyMean => {
                        Some(series.filter(|p| p.read_ios + p.write_ios > 0).map(|p| p.latency_mean_ns).collect())
                    }
                    Metric::LatencyP99 => None,
                }
            };
            let mut all = Vec::new();
            for r in runs {
                all.extend(batch_means(&per_second(r)?, BATCHES_PER_RUN));
            }
            all
        }
    };
    (out.len() >= 2).then_some(out)
}
