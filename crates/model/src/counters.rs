//! Counter logs: what the machine did while a run measured (disk, CPU, memory, pressure),
//! sampled at a fixed interval and named the way perfmon names them, so one vocabulary serves
//! Linux runs and the Windows logs DBAs already have.

use serde::{Deserialize, Serialize};

/// Bytes every process but spindle read and wrote from storage a second, by the processes' own
/// accounting (/proc/PID/io): perfmon's Process object, for an instance of all the others.
pub const OTHER_PROCESSES_READ: &str = "\\Process(_Others)\\IO Read Bytes/sec";
pub const OTHER_PROCESSES_WRITE: &str = "\\Process(_Others)\\IO Write Bytes/sec";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterLog {
    /// The interval asked for, in seconds.
    pub interval_seconds: f64,
    /// End of each sample's interval, in seconds since measurement started.
    pub t: Vec<f64>,
    pub counters: Vec<CounterSeries>,
}

/// One counter's values, one per sample (`None` where it could not be computed), with the
/// average, minimum and maximum as perfmon's report view shows them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterSeries {
    /// Perfmon-style path without the host: `\PhysicalDisk(vda)\Disk Reads/sec`.
    pub path: String,
    pub avg: f64,
    pub min: f64,
    pub max: f64,
    pub values: Vec<Option<f64>>,
}

impl CounterSeries {
    pub fn new(path: String, values: Vec<Option<f64>>) -> CounterSeries {
        let present: Vec<f64> = values.iter().flatten().copied().filter(|v| v.is_finite()).collect();
        let (avg, min, max) = if present.is_empty() {
            (0.0, 0.0, 0.0)
        } else {
            (
                present.iter().sum::<f64>() / present.len() as f64,
                present.iter().copied().fold(f64::INFINITY, f64::min),
                present.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        };
        CounterSeries { path, avg, min, max, values }
    }
}

impl CounterLog {
    pub fn get(&self, path: &str) -> Option<&CounterSeries> {
        self.counters.iter().find(|c| c.path == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_skips_missing_values() {
        let s = CounterSeries::new("\\Memory\\Pages/sec".into(), vec![Some(2.0), None, Some(4.0), Some(f64::NAN)]);
        assert_eq!((s.avg, s.min, s.max), (3.0, 2.0, 4.0));
        let empty = CounterSeries::new("x".into(), vec![None]);
        assert_eq!((empty.avg, empty.min, empty.max), (0.0, 0.0, 0.0));
    }
}
