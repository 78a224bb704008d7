//! A run's rate second by second: whether it changed level partway and stayed there (a cloud
//! volume's burst allowance running out, a throttle coming in, other load starting), and how
//! widely it swung (shared or throttled storage). Decided once, when a run is finished
//! ([`mark`], called by the runner), and kept in the record (`level_shift`, `swing`).
//!
//! The change-point test is written here rather than taken from a crate: the crates that find
//! change points (`changepoint`, and `augurs-changepoint` over it) do Bayesian online detection
//! on nalgebra, ndarray, rayon and rv, a long first build for a question a page answers, and
//! their answer is a run-length posterior that needs a hazard rate and a cut-off of its own
//! rather than a test whose significance can be said. The method is the textbook single change
//! point in the mean (Hinkley, 1970), found by least squares:
//!
//! - the split that leaves the least squared error about the two sides' means, each side at
//!   least [`MIN_SEGMENT`] seconds;
//! - significant by Welch's t-test of the two sides, its p multiplied by the number of splits
//!   tried (Bonferroni: the split was chosen as the best of them), below [`ALPHA`];
//! - large: the two sides' medians at least [`MIN_RATIO`] apart, so the slow drift of a quiet
//!   disk, which a t-test on seconds that are not independent can call significant, is never a
//!   shift;
//! - a step, not a ramp: the two levels fit the seconds better than one straight line does by
//!   [`STEP_OVER_LINE`], so a rate that slides for the whole run is its swing, not a shift.
//!
//! A series of fewer than [`MIN_POINTS`] whole seconds is not tested: it is said to be too
//! short, never a shift from a few seconds. Every threshold is spindle's own; [`SHIFT_BASIS`]
//! and [`SWING_BASIS`] say how each was set and the measurement behind it.

use crate::findings::Basis;
use crate::stats::{quantile, welch};
use spindle_model::RunRecord;
use spindle_model::db::Counts;
use spindle_model::over_time::{LevelShift, Swing};
use spindle_model::record::TimePoint;
use spindle_model::units::{Reading, format_rate};

/// Whole seconds a series needs before it is tested for a shift or its swing is read.
pub const MIN_POINTS: usize = 10;
/// Seconds each side of a change point must hold, so one odd second never makes a level.
pub const MIN_SEGMENT: usize = 3;
/// The higher level at least this many times the lower one.
pub const MIN_RATIO: f64 = 1.5;
/// The largest Bonferroni-adjusted p of a shift.
pub const ALPHA: f64 = 0.01;
/// The two levels' squared error at most this share of one straight line's.
pub const STEP_OVER_LINE: f64 = 0.5;
/// A swing is wide when the slow seconds (p5) fall more than this share below the fast ones
/// (p95); a shift's levels (`MIN_RATIO`) are a third apart or more.
pub const WIDE_SWING: f64 = 0.3;

/// The level shift's basis: spindle's own rule, and what it was measured against.
pub const SHIFT_BASIS: Basis = Basis::Own {
    how: "set by this project: a single change point in the per-second rate by least squares (Hinkley's \
          change in the mean), at least 3 s each side, Welch's t-test of the two sides with Bonferroni's \
          correction over the splits tried below 0.01, the two sides' medians at least 1.5 times apart and a \
          better fit than one straight line by half; under 10 whole seconds, not tested. Measured \
          (bench/level-shift.sh, 2026-11-28): a loop device whose block throttle dropped from 6,000 to 1,500 \
          reads a second 10 s into a 30 s run gave a shift at 10 s from 6,000 to 1,500, twice; 20 quiet 30 \
          s runs of the same device, unthrottled, gave none, though other sessions' builds made them swing \
          by 8-78%",
    after: None,
};

/// The wide swing's basis.
pub const SWING_BASIS: Basis = Basis::Own {
    how: "set by this project: the per-second rate's 5th and 95th percentiles, wide when the 5th is more than \
          30% below the 95th, where a shift's two levels are a third apart; under 10 whole seconds, not read. \
          Measured (bench/level-shift.sh, 2026-11-28): a loop device held at 1,500 reads a second by its \
          block throttle swung 0%; unthrottled, its rate set by this 2-vCPU VM's CPUs while other sessions' \
          builds ran, 8-78%",
    after: None,
};

/// What a series says over time: too short to tell, or its shift (if any) and swing.
#[derive(Clone, Debug, PartialEq)]
pub enum OverTime {
    /// Fewer than `MIN_POINTS` whole seconds: `seconds` of them.
    TooShort {
        seconds: usize,
    },
    Tested {
        shift: Option<LevelShift>,
        swing: Swing,
    },
}

/// Decides `record`'s level shift and swing from its series, once, when the run is finished.
/// A run with no rate of its own (a checkpoint) and a series too short to test get neither.
pub fn mark(record: &mut RunRecord) {
    let tested = match record.rate() {
        Some(_) => over_time(&record.timeseries),
        None => OverTime::TooShort { seconds: 0 },
    };
    (record.level_shift, record.swing) = match tested {
        OverTime::Tested { shift, swing } => (shift, Some(swing)),
        OverTime::TooShort { .. } => (None, None),
    };
}

/// The series' shift and swing, or how few whole seconds it has.
pub fn over_time(series: &[TimePoint]) -> OverTime {
    let (ends, rates) = whole_seconds(series);
    if rates.len() < MIN_POINTS {
        return OverTime::TooShort { seconds: rates.len() };
    }
    let swing = Swing { p5: quantile(&rates, 0.05), p95: quantile(&rates, 0.95) };
    let shift = change_point(&rates).map(|(k, before, after)| LevelShift { at_seconds: ends[k - 1], before, after });
    OverTime::Tested { shift, swing }
}

/// How many whole seconds `record`'s series has when that is too few to test, for the views
/// that say so; none when it was tested, or has no series (an imported run that kept none).
pub fn too_short(record: &RunRecord) -> Option<usize> {
    if record.timeseries.is_empty() || record.rate().is_none() {
        return None;
    }
    match over_time(&record.timeseries) {
        OverTime::TooShort { seconds } => Some(seconds),
        OverTime::Tested { .. } => None,
    }
}

/// Each point's end and rate, but a last point covering under half a second (the part of a
/// second the window ended in), whose rate is a few operations over a sliver of time.
fn whole_seconds(series: &[TimePoint]) -> (Vec<f64>, Vec<f64>) {
    let mut start = 0.0;
    series
        .iter()
        .filter(|p| {
            let width = p.t - start;
            start = p.t;
            width >= 0.5 && p.iops.is_finite()
        })
        .map(|p| (p.t, p.iops))
        .unzip()
}

/// The best single split of `y` (`k` seconds before it) and the two sides' medians, when it
/// passes every test in the module's comment.
fn change_point(y: &[f64]) -> Option<(usize, f64, f64)> {
    let n = y.len();
    let splits = n.checked_sub(2 * MIN_SEGMENT - 1).filter(|s| *s > 0)?;
    let k = (MIN_SEGMENT..=n - MIN_SEGMENT).min_by(|&a, &b| split_error(y, a).total_cmp(&split_error(y, b)))?;
    let (left, right) = y.split_at(k);
    let (before, after) = (quantile(left, 0.5), quantile(right, 0.5));
    let (low, high) = (before.min(after), before.max(after));
    let large = high > 0.0 && high >= MIN_RATIO * low;
    let p = welch(left, right)?.p_value * splits as f64;
    let step = split_error(y, k) <= STEP_OVER_LINE * line_error(y);
    (large && p < ALPHA && step).then_some((k, before, after))
}

/// Squared error of `y` about each side's mean, split after `k` seconds.
fn split_error(y: &[f64], k: usize) -> f64 {
    let (left, right) = y.split_at(k);
    squared_error(left) + squared_error(right)
}

fn squared_error(xs: &[f64]) -> f64 {
    let m = crate::stats::mean(xs);
    xs.iter().map(|x| (x - m) * (x - m)).sum()
}

/// Squared error of `y` about its least-squares straight line over the seconds.
fn line_error(y: &[f64]) -> f64 {
    let xs: Vec<f64> = (0..y.len()).map(|i| i as f64).collect();
    let (mx, my) = (crate::stats::mean(&xs), crate::stats::mean(y));
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let sxy: f64 = xs.iter().zip(y).map(|(x, v)| (x - mx) * (v - my)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    xs.iter().zip(y).map(|(x, v)| (v - my - slope * (x - mx)).powi(2)).sum()
}

/// What a run's record says over time, as a view says it: its shift, else a wide swing, else
/// that it was too short to test; none for a steady run, and for one from before it was kept.
pub fn said(record: &RunRecord) -> Option<String> {
    if let Some(shift) = &record.level_shift {
        return Some(format!("the rate {}", shift_words(shift, record.counts)));
    }
    if let Some(swing) = record.swing.as_ref().filter(|s| wide(s)) {
        return Some(format!("the rate {}", swing_words(swing, record.counts)));
    }
    too_short(record).map(too_short_words)
}

/// Whether `swing` is wide enough to say.
pub fn wide(swing: &Swing) -> bool {
    swing.width() > WIDE_SWING
}

/// A rate's name in a sentence: `IOPS`, `calls a second`, `rows a second`.
pub fn per_second(counts: Counts) -> &'static str {
    match counts {
        Counts::Ios => "IOPS",
        Counts::Calls => "calls a second",
        Counts::Rows => "rows a second",
    }
}

/// `fell from 6,000 to 1,500 IOPS after 10 s and stayed there: a burst allowance running out,
/// or other load`.
pub fn shift_words(shift: &LevelShift, counts: Counts) -> String {
    let rate = |v: f64| format_rate(v, Reading::Sentence);
    // A database's own work moves its rate too: a checkpoint, a cache filling or warming.
    let (moved, why) = match (shift.fell(), counts) {
        (true, Counts::Ios) => ("fell", "a burst allowance running out, or other load"),
        (true, _) => ("fell", "a burst allowance running out, other load, or the database's own work"),
        (false, Counts::Ios) => ("rose", "other load ending, or a limit lifted"),
        (false, _) => ("rose", "other load ending, a limit lifted, or the database's cache warming"),
    };
    format!(
        "{moved} from {} to {} {} after {:.0} s and stayed there: {why}",
        rate(shift.before),
        rate(shift.after),
        per_second(counts),
        shift.at_seconds
    )
}

/// `swings between 1,500 and 6,000 IOPS (p5-p95 of its seconds): shared or throttled storage, or a
/// busy host`.
pub fn swing_words(swing: &Swing, counts: Counts) -> String {
    format!(
        "swings between {} and {} {} (p5-p95 of its seconds): shared or throttled storage, or a busy host",
        format_rate(swing.p5, Reading::Sentence),
        format_rate(swing.p95, Reading::Sentence),
        per_second(counts)
    )
}

/// `too short to test for a lasting change of level: 2 whole seconds, 10 needed`.
pub fn too_short_words(seconds: usize) -> String {
    format!("too short to test for a lasting change of level: {seconds} whole seconds, {MIN_POINTS} needed")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A series of whole seconds at `rates`.
    fn series(rates: &[f64]) -> Vec<TimePoint> {
        rates
            .iter()
            .enumerate()
            .map(|(i, &r)| TimePoint { t: (i + 1) as f64, iops: r, ..TimePoint::default() })
            .collect()
    }

    /// `n` seconds about `level`, each off by up to `share` of it, from a fixed generator.
    fn noisy(n: usize, level: f64, share: f64, seed: u64) -> Vec<f64> {
        let mut rng = spindle_model::rng::Rng::new(seed);
        (0..n).map(|_| level * (1.0 + share * (2.0 * rng.below(1_000_001) as f64 / 1e6 - 1.0))).collect()
    }

    fn shift_of(rates: &[f64]) -> Option<LevelShift> {
        match over_time(&series(rates)) {
            OverTime::Tested { shift, .. } => shift,
            OverTime::TooShort { seconds } => panic!("{seconds} seconds: too short"),
        }
    }

    #[test]
    fn a_throttle_dropping_from_6000_to_1500_after_10_s_is_a_shift_there() {
        let mut rates = noisy(10, 6000.0, 0.05, 1);
        rates.extend(noisy(20, 1500.0, 0.05, 2));
        let s = shift_of(&rates).expect("a shift");
        assert_eq!(s.at_seconds, 10.0);
        assert!((s.before / 6000.0 - 1.0).abs() < 0.05 && (s.after / 1500.0 - 1.0).abs() < 0.05, "{s:?}");
        assert_eq!(
            shift_words(&s, Counts::Ios),
            format!(
                "fell from {} to {} IOPS after 10 s and stayed there: a burst allowance running out, or other load",
                format_rate(s.before, Reading::Sentence),
                format_rate(s.after, Reading::Sentence)
            )
        );
        // The other way: a limit lifted.
        rates.reverse();
        let up = shift_of(&rates).expect("a rise");
        assert_eq!((up.fell(), up.at_seconds), (false, 20.0));
        let words = shift_words(&up, Counts::Calls);
        assert!(words.starts_with("rose from 1,5") && words.contains(" calls a second after 20 s"), "{words}");
        assert!(words.ends_with("or the database's cache warming"), "{words}");
    }

    #[test]
    fn a_flat_or_noisy_series_has_no_shift() {
        assert_eq!(shift_of(&[5000.0; 30]), None, "flat");
        for seed in 0..50 {
            // A fifth either way each second, a disk shared with a neighbour: no step in it.
            assert_eq!(shift_of(&noisy(30, 5000.0, 0.2, seed)), None, "seed {seed}");
        }
    }

    #[test]
    fn a_small_step_is_not_a_shift_however_certain() {
        // A 20% step, certain by any t-test, is below the 1.5 times a shift must move.
        let mut rates = vec![6000.0; 15];
        rates.extend([5000.0; 15]);
        assert_eq!(shift_of(&rates), None);
    }

    #[test]
    fn a_ramp_is_a_swing_not_a_shift() {
        let ramp: Vec<f64> = (0..30).map(|i| 6000.0 - 150.0 * i as f64).collect();
        assert_eq!(shift_of(&ramp), None);
        let mut noisy_ramp = ramp.clone();
        for (r, n) in noisy_ramp.iter_mut().zip(noisy(30, 1.0, 0.05, 7)) {
            *r *= n;
        }
        assert_eq!(shift_of(&noisy_ramp), None);
        let OverTime::Tested { swing, .. } = over_time(&series(&ramp)) else { panic!() };
        assert!(wide(&swing), "{swing:?}");
        assert_eq!(
            swing_words(&swing, Counts::Ios),
            "swings between 1,868 and 5,783 IOPS (p5-p95 of its seconds): shared or throttled storage, or a busy host"
        );
    }

    #[test]
    fn a_short_series_is_said_too_short_never_a_shift() {
        let mut rates = vec![6000.0; 4];
        rates.extend([1500.0; 5]);
        assert_eq!(over_time(&series(&rates)), OverTime::TooShort { seconds: 9 });
        assert_eq!(too_short_words(9), "too short to test for a lasting change of level: 9 whole seconds, 10 needed");
        rates.push(1500.0);
        assert!(shift_of(&rates).is_some(), "ten seconds are enough for a step this clear");
        // A last point over a sliver of a second is no second.
        let mut cut = series(&rates[..9]);
        cut.push(TimePoint { t: 9.2, iops: 1500.0, ..TimePoint::default() });
        assert_eq!(over_time(&cut), OverTime::TooShort { seconds: 9 });
    }

    #[test]
    fn a_step_at_the_edges_needs_three_seconds_a_side() {
        let mut two = vec![6000.0; 2];
        two.extend([1500.0; 28]);
        assert_eq!(shift_of(&two), None, "two seconds are no level");
        let mut three = vec![6000.0; 3];
        three.extend(noisy(27, 1500.0, 0.05, 3));
        assert_eq!(shift_of(&three).map(|s| s.at_seconds), Some(3.0));
    }

    #[test]
    fn swings_are_read_from_whole_seconds_and_marked_on_the_record() {
        let mut r = spindle_model::fixtures::io_run(&[100.0], 1_000, &[]);
        r.timeseries = series(&(1..=20).map(|i| i as f64 * 100.0).collect::<Vec<_>>());
        mark(&mut r);
        let swing = r.swing.expect("a swing");
        assert!((swing.p5 - 195.0).abs() < 1e-9 && (swing.p95 - 1905.0).abs() < 1e-9, "{swing:?}");
        assert!(r.level_shift.is_none(), "a ramp");
        assert_eq!(too_short(&r), None);
        r.timeseries.truncate(5);
        mark(&mut r);
        assert_eq!((r.swing, r.level_shift, too_short(&r)), (None, None, Some(5)));
        // Nothing is said of a run that kept no series, or whose operations have no rate.
        r.timeseries.clear();
        assert_eq!(too_short(&r), None);
        assert!(!wide(&Swing { p5: 0.0, p95: 0.0 }) && wide(&Swing { p5: 0.0, p95: 1.0 }));
    }

    #[test]
    fn a_view_says_the_shift_else_a_wide_swing_else_too_short_else_nothing() {
        let mut r = spindle_model::fixtures::io_run(&[6000.0; 12], 1_000, &[]);
        mark(&mut r);
        assert_eq!(said(&r), None, "steady");
        r.timeseries = series(&[[6000.0; 10], [1500.0; 10]].concat());
        mark(&mut r);
        assert!(said(&r).unwrap().starts_with("the rate fell from 6,000 to 1,500 IOPS after 10 s"), "{:?}", said(&r));
        r.timeseries = series(&[[6000.0, 2000.0]; 6].concat());
        mark(&mut r);
        assert_eq!(
            said(&r).unwrap(),
            "the rate swings between 2,000 and 6,000 IOPS (p5-p95 of its seconds): shared or throttled storage, or a busy host"
        );
        r.timeseries.truncate(3);
        mark(&mut r);
        assert_eq!(said(&r).unwrap(), too_short_words(3));
    }
}
