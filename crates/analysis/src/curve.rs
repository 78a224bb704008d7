//! A sweep's curve (one point per value of the swept setting, averaged over repeats) and its
//! knee: the "optimum" of "Server Commissioning Part #1 - Transaction Log Performance", the
//! point after which more load buys little throughput and only adds latency.

use serde::{Deserialize, Serialize};
use spindle_model::RunRecord;

/// Throughput gained by the next point below this share counts as "little".
pub const KNEE_GAIN: f64 = 0.10;

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

/// A throughput that falls by more than this share from one point to a later one, and then
/// rises by as much again, is noise: storage under more load does not lose and regain it.
pub const NOISE_SWING: f64 = 0.25;

/// What a curve says about where more load stops paying.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The point past which no later point gains 10% more throughput, while latency grows.
    Knee(usize),
    /// Still gaining at its end (or too short to say).
    Climbing,
    /// Throughput fell by more than 25% and rose again: no knee can be named from single
    /// runs of it; repeats (averaged per point) smooth it.
    Noisy,
}

/// A step whose gain lies within this much of `KNEE_GAIN` (5% to 15%) is too close to call
/// from one run a point: on this project's VM two sweeps of one disk, minutes apart, saw the
/// same step gain 0.5% and 13%, 6.6% and 14% (docs/benchmarks.md, "The check").
pub const CLOSE_CALL: f64 = 0.05;

/// The curve's shape, judged on throughput in bytes per second (so a block-size sweep is
/// judged by MB/s; operations per second for runs that move no bytes of their own, such as
/// Hammer's calls over session counts). The knee is where the whole rest of the curve stops
/// paying, not the first flat step: a point is the knee when no deeper point reaches 10% more
/// throughput than it, and latency at the end is higher than there.
pub fn shape(curve: &[CurvePoint]) -> Shape {
    let mb = throughput(curve);
    if is_noisy(&mb) {
        return Shape::Noisy;
    }
    knee_by(curve, &mb, KNEE_GAIN).map_or(Shape::Climbing, Shape::Knee)
}

/// Where the knee could lie when the 10% rule's answer turns on a gain within the runs' swing
/// of 10%: from the knee a rule of 10% plus the swing names to the one a rule of 10% less the
/// swing names. The swing is 5 points (`CLOSE_CALL`), or the curve's own [`dip`] where it fell
/// by more and rose again: its runs swing at least that much. `None` when both rules agree (the
/// knee, or its absence, is clear) or the curve is too noisy for a knee.
pub fn close_call(curve: &[CurvePoint]) -> Option<KneeRange> {
    let mb = throughput(curve);
    if is_noisy(&mb) {
        return None;
    }
    let band = dip_of(&mb, CLOSE_CALL).map_or(CLOSE_CALL, |d| d.fall.max(CLOSE_CALL));
    let from = knee_by(curve, &mb, KNEE_GAIN + band)?;
    let to = knee_by(curve, &mb, KNEE_GAIN - band);
    (to != Some(from)).then_some(KneeRange { from, to })
}

/// Where a curve fell and rose again: from its highest point before the fall (`high`) to the
/// low (`low`), and the highest point after it (`rose`). Storage under more load does not
/// lose throughput and regain it, so a dip is the runs' own swing, not the device.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dip {
    pub high: usize,
    pub low: usize,
    pub rose: usize,
    /// The fall, as a share of the high (0.2: a fifth lost).
    pub fall: f64,
}

/// The curve's deepest dip that rose again, where both the fall and the rise after it exceed
/// the 5 points one run's gain may swing by (`CLOSE_CALL`).
pub fn dip(curve: &[CurvePoint]) -> Option<Dip> {
    dip_of(&throughput(curve), CLOSE_CALL)
}

/// The deepest fall of more than `band` (from the highest point before it) that a later point
/// rises from by more than `band`.
fn dip_of(mb: &[f64], band: f64) -> Option<Dip> {
    let mut deepest: Option<Dip> = None;
    for low in 1..mb.len() {
        let high = (0..low).max_by(|&a, &b| mb[a].total_cmp(&mb[b]))?;
        let Some(rose) = (low + 1..mb.len()).max_by(|&a, &b| mb[a].total_cmp(&mb[b])) else { continue };
        if mb[high] <= 0.0 {
            continue;
        }
        let fall = 1.0 - mb[low] / mb[high];
        if fall > band && mb[rose] > mb[low] * (1.0 + band) && deepest.is_none_or(|d| fall > d.fall) {
            deepest = Some(Dip { high, low, rose, fall });
        }
    }
    deepest
}

/// A knee too close to call: its earliest and latest place, as indices into the curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KneeRange {
    pub from: usize,
    /// `None`: the deepest point may still be climbing.
    pub to: Option<usize>,
}

impl KneeRange {
    /// The range as the swept values it runs between, as JSON documents give it.
    pub fn span(self, curve: &[CurvePoint]) -> KneeSpan<'_> {
        KneeSpan { from: &curve[self.from].value, to: self.to.map(|i| curve[i].value.as_str()) }
    }
}

/// A [`KneeRange`] by the swept values (`{"from": "32", "to": null}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct KneeSpan<'c> {
    pub from: &'c str,
    /// `None`: the deepest point may still be climbing.
    pub to: Option<&'c str>,
}

/// Each point's throughput: MB/s where the runs move bytes, else operations per second.
fn throughput(curve: &[CurvePoint]) -> Vec<f64> {
    let by_bytes = curve.iter().any(|p| p.mb_per_sec > 0.0);
    curve
        .iter()
        .map(|p| if by_bytes { p.mb_per_sec } else { p.iops })
        .map(|v| if v.is_finite() { v } else { 0.0 })
        .collect()
}

/// The first point no deeper point beats by `gain`, with latency higher at the end than there.
fn knee_by(curve: &[CurvePoint], mb: &[f64], gain: f64) -> Option<usize> {
    let last = curve.last()?;
    (0..curve.len().saturating_sub(1)).find(|&i| {
        let best_later = mb[i + 1..].iter().copied().fold(0.0, f64::max);
        best_later < mb[i] * (1.0 + gain) && last.latency_mean_ns > curve[i].latency_mean_ns
    })
}

impl Shape {
    /// The knee's index, when the curve has one.
    pub fn knee(self) -> Option<usize> {
        match self {
            Shape::Knee(i) => Some(i),
            Shape::Climbing | Shape::Noisy => None,
        }
    }
}

/// The knee's index, when the curve has one (see [`shape`]).
pub fn knee(curve: &[CurvePoint]) -> Option<usize> {
    shape(curve).knee()
}

/// A fall of more than `NOISE_SWING` from some point, followed by a rise of as much from the
/// low.
fn is_noisy(mb: &[f64]) -> bool {
    dip_of(mb, NOISE_SWING).is_some()
}

/// The dip that makes a curve too noisy for a knee (a fall and a rise of more than 25%), to
/// name where the curve actually fell.
pub fn noise(curve: &[CurvePoint]) -> Option<Dip> {
    dip_of(&throughput(curve), NOISE_SWING)
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

    /// IOPS at depths 1, 2, 4, ... as a curve of 8 KiB-ish points whose latency grows.
    fn by_depth(iops: &[f64]) -> Vec<CurvePoint> {
        iops.iter().enumerate().map(|(i, v)| point(&(1 << i).to_string(), v / 128.0, 100.0 * (i + 1) as f64)).collect()
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
    fn one_flat_step_is_not_the_knee_when_the_curve_climbs_again() {
        // The curve: 2 -> 4 is flat, but 4 -> 8 gains 84% and 32 is the best.
        let c = [
            point("1", 100.0, 100.0),
            point("2", 190.0, 105.0),
            point("4", 200.0, 200.0),
            point("8", 368.0, 220.0),
            point("16", 449.0, 360.0),
            point("32", 521.0, 620.0),
        ];
        assert_eq!(shape(&c), Shape::Climbing);
        // Flat from 16 on: 16 is the knee, not the flat step at 2.
        let mut flat = c.to_vec();
        flat[5] = point("32", 460.0, 700.0);
        assert_eq!(shape(&flat), Shape::Knee(4));
    }

    #[test]
    fn a_curve_that_falls_and_rises_again_is_too_noisy_for_a_knee() {
        // IOPS at depths 1..128 on a disk under other load.
        let iops = [3_632.0, 5_690.0, 3_510.0, 692.0, 5_136.0, 1_416.0, 13_595.0, 24_325.0];
        let c = by_depth(&iops);
        assert_eq!(shape(&c), Shape::Noisy);
        assert_eq!(knee(&c), None);
        // A fall after the knee that does not rise again is saturation, not noise.
        let sat = [point("1", 10.0, 1.0), point("2", 20.0, 2.0), point("4", 20.5, 4.0), point("8", 14.0, 9.0)];
        assert_eq!(shape(&sat), Shape::Knee(1));
        // Exactly at the swing is within it.
        let edge = [point("1", 100.0, 1.0), point("2", 75.0, 2.0), point("4", 93.75, 3.0)];
        assert_ne!(shape(&edge), Shape::Noisy);
    }

    #[test]
    fn no_knee_while_climbing_or_when_latency_falls() {
        assert_eq!(knee(&[point("1", 10.0, 100.0), point("2", 20.0, 100.0), point("4", 40.0, 101.0)]), None);
        assert_eq!(knee(&[point("1", 10.0, 100.0), point("2", 10.5, 90.0)]), None, "flat but faster is no knee");
        assert_eq!(knee(&[]), None);
    }

    #[test]
    fn a_knee_that_turns_on_a_gain_near_ten_percent_is_a_close_call() {
        let depths = |gains: &[f64]| {
            let mut mb = 100.0;
            let mut c = vec![point("1", mb, 100.0)];
            for (i, g) in gains.iter().enumerate() {
                mb *= 1.0 + g;
                c.push(point(&(2 << i).to_string(), mb, 100.0 * (i + 2) as f64));
            }
            c
        };
        // The sweep this was found on: 16 -> 32 gained 24%, 32 -> 64 6.6%.
        let c = depths(&[0.9, 0.8, 0.5, 0.24, 0.066]);
        assert_eq!(shape(&c), Shape::Knee(4));
        assert_eq!(close_call(&c), Some(KneeRange { from: 4, to: None }), "32, or 64 and beyond");
        // The check that ran beside it: 32 -> 64 gained 14%, so no knee by the 10% rule.
        let c = depths(&[0.9, 0.8, 0.5, 0.16, 0.14]);
        assert_eq!((shape(&c), close_call(&c)), (Shape::Climbing, Some(KneeRange { from: 4, to: None })));
        // 16 -> 32 gained 12%, 32 -> 64 1%: 32 by the rule, 16 by a 15% one.
        let c = depths(&[0.9, 0.8, 0.5, 0.12, 0.01]);
        assert_eq!((shape(&c), close_call(&c)), (Shape::Knee(4), Some(KneeRange { from: 3, to: Some(4) })));
        // The edges: a gain just past 15% or under 5% is outside the close call.
        assert_eq!(close_call(&depths(&[0.9, 0.8, 0.5, 0.5, 0.151])), None, "over 15% is still climbing");
        assert_eq!(close_call(&depths(&[0.9, 0.8, 0.5, 0.5, 0.149])), Some(KneeRange { from: 4, to: None }));
        assert_eq!(close_call(&depths(&[0.9, 0.8, 0.5, 0.5, 0.049])), None, "under 5% is a clear knee");
        assert_eq!(shape(&depths(&[0.9, 0.8, 0.5, 0.5, 0.049])), Shape::Knee(4));
        // Clear either way: no close call.
        assert_eq!(close_call(&depths(&[0.9, 0.8, 0.5, 0.5, 0.3])), None);
        assert_eq!(close_call(&depths(&[0.9, 0.8, 0.02, 0.01, 0.0])), None);
    }

    #[test]
    fn a_dip_that_rises_again_widens_the_close_call_to_its_own_size() {
        // 100, 200, 160, 224 MB/s: a fifth lost at 4, then 8 reads 40% more than 4 and 12% more
        // than 2. One run a depth swings at least 20%: the knee is 2 or deeper, not "2".
        let c = [point("1", 100.0, 1.0), point("2", 200.0, 2.0), point("4", 160.0, 3.0), point("8", 224.0, 4.0)];
        let d = dip(&c).unwrap();
        assert_eq!((d.high, d.low, d.rose), (1, 2, 3));
        assert!((d.fall - 0.2).abs() < 1e-9, "{d:?}");
        assert_eq!(shape(&c), Shape::Climbing, "224 is 12% over 200: still climbing by the 10% rule");
        assert_eq!(close_call(&c), Some(KneeRange { from: 1, to: None }));
        // 100, 200, 150, 210: the 10% rule alone names 2 (210 is 5% over 200); the dip of 25%
        // says the runs cannot tell 2 from deeper.
        let c = [point("1", 100.0, 1.0), point("2", 200.0, 2.0), point("4", 150.0, 3.0), point("8", 210.0, 4.0)];
        assert_eq!(shape(&c), Shape::Knee(1));
        assert_eq!(close_call(&c), Some(KneeRange { from: 1, to: None }));
        // A fall that does not rise again is saturation, and a rise within 5 points is no dip.
        let sat = [point("1", 10.0, 1.0), point("2", 20.0, 2.0), point("4", 20.5, 4.0), point("8", 14.0, 9.0)];
        assert_eq!(dip(&sat), None);
        let small = [point("1", 10.0, 1.0), point("2", 20.0, 2.0), point("4", 17.0, 4.0), point("8", 17.8, 9.0)];
        assert_eq!(dip(&small), None, "17 -> 17.8 rises under 5%");
        assert_eq!(shape(&small), Shape::Knee(1));
        assert_eq!(close_call(&small), None);
    }

    #[test]
    fn noise_names_where_the_curve_fell_not_its_lowest_point() {
        // The quick check's table: 1: 5,814, 2: 7,119, 4: 23,322, 8: 39,109, 16: 26,243,
        // 32: 40,035 IOPS. The fall was 8 -> 16, and 32 rose past it.
        let iops = [5_814.0, 7_119.0, 23_322.0, 39_109.0, 26_243.0, 40_035.0];
        let c = by_depth(&iops);
        assert_eq!(shape(&c), Shape::Noisy);
        let n = noise(&c).unwrap();
        assert_eq!((c[n.high].value.as_str(), c[n.low].value.as_str(), c[n.rose].value.as_str()), ("8", "16", "32"));
        assert_eq!(noise(&[point("1", 10.0, 1.0), point("2", 20.0, 2.0)]), None);
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
