//! A run's per-second series: what a worker or a session counts second by second, summed
//! over them, and turned into the record's time points.

use crate::record::TimePoint;

/// One second of a measurement: operations (I/Os, calls) by direction, bytes, and latency.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Second {
    pub read_ios: u64,
    pub write_ios: u64,
    pub bytes: u64,
    pub latency_sum_ns: u64,
    pub latency_max_ns: u64,
}

/// Adds `from` into `into` second by second.
pub fn add_seconds(into: &mut Vec<Second>, from: &[Second]) {
    if into.len() < from.len() {
        into.resize(from.len(), Second::default());
    }
    for (a, b) in into.iter_mut().zip(from) {
        a.read_ios += b.read_ios;
        a.write_ios += b.write_ios;
        a.bytes += b.bytes;
        a.latency_sum_ns += b.latency_sum_ns;
        a.latency_max_ns = a.latency_max_ns.max(b.latency_max_ns);
    }
}

/// One point per second measured (`measured` seconds); the last one covers only the part of
/// a second that ran. A second that counted nothing is a point of zeros.
pub fn time_series(seconds: &[Second], measured: f64) -> Vec<TimePoint> {
    let points = measured.ceil() as usize;
    (0..points)
        .map(|i| {
            let s = seconds.get(i).copied().unwrap_or_default();
            let t = ((i + 1) as f64).min(measured);
            let width = (t - i as f64).max(1e-9);
            let ios = s.read_ios + s.write_ios;
            TimePoint {
                t,
                read_ios: s.read_ios,
                write_ios: s.write_ios,
                bytes: s.bytes,
                iops: ios as f64 / width,
                bytes_per_sec: s.bytes as f64 / width,
                latency_mean_ns: if ios == 0 { 0.0 } else { s.latency_sum_ns as f64 / ios as f64 },
                latency_max_ns: s.latency_max_ns,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_add_up_and_the_last_point_covers_the_part_that_ran() {
        let one = Second { read_ios: 10, write_ios: 0, bytes: 40960, latency_sum_ns: 1000, latency_max_ns: 300 };
        let mut all = vec![one];
        add_seconds(&mut all, &[one, Second { write_ios: 5, latency_sum_ns: 500, latency_max_ns: 900, ..one }]);
        assert_eq!(all[0].read_ios, 20);
        assert_eq!((all[1].write_ios, all[1].latency_max_ns), (5, 900));
        let series = time_series(&all, 2.5);
        assert_eq!(series.len(), 3, "a point for the half second at the end");
        assert_eq!(series[1].iops, 15.0);
        assert_eq!(series[1].latency_mean_ns, 500.0 / 15.0);
        assert_eq!((series[2].t, series[2].iops), (2.5, 0.0), "a second with nothing counted");
    }
}
