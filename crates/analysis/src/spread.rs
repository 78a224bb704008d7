//! How much repeats of one configuration differ: per metric, the mean, standard deviation,
//! coefficient of variation and range over the runs. What a `--repeat` group says on its own,
//! before it is compared with anything.

use crate::compare::Metric;
use crate::stats::{mean, sample_stddev};
use serde::Serialize;
use spindle_model::RunRecord;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Spread {
    pub metric: Metric,
    pub runs: usize,
    pub mean: f64,
    pub stddev: f64,
    /// Standard deviation in percent of the mean (0 when the mean is 0).
    pub cv_pct: f64,
    pub min: f64,
    pub max: f64,
}

/// The spread of every compared metric over `runs`.
pub fn spread(runs: &[&RunRecord]) -> Vec<Spread> {
    // A figure some run lacks (commit latency of a run that never commits) has no spread.
    Metric::ALL
        .iter()
        .filter(|m| m.present_in_all(runs))
        .map(|&metric| {
            let xs: Vec<f64> = runs.iter().map(|r| metric.of(r)).collect();
            let (m, sd) = (mean(&xs), sample_stddev(&xs));
            Spread {
                metric,
                runs: xs.len(),
                mean: m,
                stddev: sd,
                cv_pct: if m != 0.0 { sd / m * 100.0 } else { 0.0 },
                min: xs.iter().copied().fold(f64::INFINITY, f64::min).min(m),
                max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max).max(m),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::fixtures::io_run;

    #[test]
    fn mean_spread_and_range_per_metric() {
        let runs: Vec<RunRecord> = [900.0, 1000.0, 1100.0].iter().map(|l| io_run(&[*l; 4], 100_000, &[])).collect();
        let refs: Vec<&RunRecord> = runs.iter().collect();
        let s = spread(&refs);
        let iops = &s[0];
        assert_eq!((iops.metric, iops.runs, iops.mean, iops.min, iops.max), (Metric::Iops, 3, 1000.0, 900.0, 1100.0));
        assert!((iops.cv_pct - 10.0).abs() < 1e-9, "{iops:?}");
        assert!(spread(&[]).iter().all(|x| x.mean == 0.0 && x.min == 0.0 && x.max == 0.0));
    }
}
