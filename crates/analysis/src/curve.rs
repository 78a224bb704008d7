//! A sweep's curve (one point per value of the swept setting, averaged over repeats) and its
//! knee: seed 003's "optimum", the point after which more load buys little throughput and
//! only adds latency.

use serde::{Deserialize, Serialize};
use spindle_model::RunRecord;

/// Throughput gained by the next point below this share counts as "little".
const KNEE_GAIN: f64 = 0.10;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The swept setting's value at this point (`8`, `64K`).
    pub value: String,
    /// How many runs (repeats) the figures average.
    pub runs: usize,
    pub iops: f64,
    pub mb_per_sec: f64,
    pub latency_mean_ns: f64,
    pub latency_p99_ns: f64,
}

/// One point per value, averaging that value's runs; values with no run are left out.
pub fn curve(points: &[(String, Vec<&RunRecord>)]) -> Vec<CurvePoint> {
    points
        .iter()
        .filter(|(_, runs)| !runs.is_empty())
        .map(|(value, runs)| {
            let mean = |f: &dyn Fn(&RunRecord) -> f64| runs.iter().map(|r| f(r)).sum::<f64>() / runs.len() as f64;
            CurvePoint {
                value: value.clone(),
                runs: runs.len(),
                iops: mean(&|r| r.summary.iops),
                mb_per_sec: mean(&|r| r.summary.mb_per_sec),
                latency_mean_ns: mean(&|r| r.summary.latency_ns.mean),
                latency_p99_ns: mean(&|r| r.summary.latency_ns.p99 as f64),
            }
        })
        .collect()
}

/// The first point whose successor gains less than 10% throughput (bytes per second, so a
/// block-size sweep is judged by MB/s; operations per second for runs that move no bytes of
/// their own, such as Hammer's calls over session counts) while mean latency grows. `None`
/// while the curve is still climbing at its end.
pub fn knee(curve: &[CurvePoint]) -> Option<usize> {
    let by_bytes = curve.iter().any(|p| p.mb_per_sec > 0.0);
    let throughput = |p: &CurvePoint| if by_bytes { p.mb_per_sec } else { p.iops };
    curve.windows(2).position(|w| {
        let (a, b) = (throughput(&w[0]), throughput(&w[1]));
        let gain = if a > 0.0 { b / a - 1.0 } else { f64::INFINITY };
        gain < KNEE_GAIN && w[1].latency_mean_ns > w[0].latency_mean_ns
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn point(value: &str, mb: f64, lat: f64) -> CurvePoint {
        CurvePoint {
            value: value.into(),
            runs: 1,
            iops: mb * 100.0,
            mb_per_sec: mb,
            latency_mean_ns: lat,
            latency_p99_ns: lat * 2.0,
        }
    }

    #[test]
    fn knee_is_where_throughput_flattens_and_latency_grows() {
        // Seed 003's shape: doubling depth doubles throughput until the device saturates.
        let c = [
            point("1", 10.0, 100.0),
            point("2", 19.0, 105.0),
            point("4", 36.0, 110.0),
            point("8", 38.0, 210.0),
            point("16", 39.0, 410.0),
        ];
        assert_eq!(knee(&c), Some(2));
    }

    /// Hammer's calls move no bytes of their own: its session counts are judged by calls/s.
    #[test]
    fn calls_without_bytes_have_their_knee_by_calls_per_second() {
        let calls = |value: &str, per_sec: f64, lat: f64| CurvePoint {
            iops: per_sec,
            mb_per_sec: 0.0,
            ..point(value, 0.0, lat)
        };
        let c = [
            calls("1", 1000.0, 1e6),
            calls("8", 7000.0, 1.1e6),
            calls("32", 7300.0, 4.4e6),
            calls("64", 7350.0, 8.7e6),
        ];
        assert_eq!(knee(&c), Some(1), "8 sessions: 32 add 4% for four times the latency");
        assert_eq!(knee(&[calls("1", 1000.0, 1e6), calls("8", 7000.0, 1.1e6)]), None, "still climbing");
    }

    #[test]
    fn no_knee_while_climbing_or_when_latency_falls() {
        assert_eq!(knee(&[point("1", 10.0, 100.0), point("2", 20.0, 100.0), point("4", 40.0, 101.0)]), None);
        assert_eq!(knee(&[point("1", 10.0, 100.0), point("2", 10.5, 90.0)]), None, "flat but faster is no knee");
        assert_eq!(knee(&[]), None);
    }

    #[test]
    fn repeats_are_averaged_per_point() {
        let mut a = spindle_model::fixtures::io_run(&[100.0], 1_000, &[]);
        let mut b = a.clone();
        a.summary.iops = 100.0;
        b.summary.iops = 200.0;
        let c = curve(&[("8".into(), vec![&a, &b]), ("16".into(), vec![])]);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].runs, c[0].iops), (2, 150.0));
    }
}
