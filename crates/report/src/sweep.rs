//! A sweep's curve as a table, with its knee marked and said in words.

use serde::Serialize;
use spindle_analysis::curve::{CurvePoint, Dip, KneeRange, KneeSpan, Shape, close_call, dip, noise, shape};
use spindle_model::RunRecord;
use spindle_model::db::Counts;
use spindle_model::units::format_latency_ns;
use std::fmt::Write;

/// A sweep as one JSON document: its runs (full records), the curve and the knee.
#[derive(Serialize)]
pub struct SweepDocument<'a> {
    /// The stored group, when the runs were saved.
    pub group: Option<i64>,
    pub param: &'a str,
    pub runs: &'a [RunRecord],
    pub curve: &'a [CurvePoint],
    /// The swept value at the knee, when there is one.
    pub knee: Option<&'a str>,
    /// Where the knee may lie when it is too close to call (`to` null: the deepest point may
    /// still be climbing).
    pub knee_range: Option<KneeSpan<'a>>,
}

pub fn render_sweep_json(doc: &SweepDocument<'_>) -> Vec<u8> {
    // Records and curve points always serialize.
    crate::json::pretty(doc)
}

/// The knee in words, as the text table and the report say it: as sure as the runs behind it.
pub fn knee_words(param: &str, curve: &[CurvePoint]) -> String {
    let close = close_call(curve).map_or(String::new(), |r| format!("; {}", close_words(param, curve, r)));
    match shape(curve) {
        Shape::Knee(i) => {
            // One run a point places even a clear knee only roughly.
            let about = if curve.iter().any(|p| p.runs <= 1) { "about " } else { "" };
            format!(
                "{about}{param}={}: no point beyond it gains 10% more throughput, while latency keeps growing{close}",
                curve[i].value
            )
        }
        Shape::Climbing => {
            format!("none yet: the last point still gains 10% or more over every point before it{close}")
        }
        Shape::Noisy => {
            let fell = noise(curve)
                .map_or("throughput fell by more than 25% and rose again".to_string(), |d| fell_words(param, curve, d));
            format!(
                "none named: {fell}, too noisy to say; repeat the points (--repeat 3) or measure when the storage is \
                 quiet"
            )
        }
    }
}

/// `throughput fell from depth=8 to depth=16 by 33% and rose again at depth=32`.
fn fell_words(param: &str, curve: &[CurvePoint], d: Dip) -> String {
    format!(
        "throughput fell from {param}={} to {param}={} by {:.0}% and rose again at {param}={}",
        curve[d.high].value,
        curve[d.low].value,
        d.fall * 100.0,
        curve[d.rose].value
    )
}

/// A knee too close to call, in words: where it may lie, why, and how to settle it.
fn close_words(param: &str, curve: &[CurvePoint], range: KneeRange) -> String {
    let from = &curve[range.from].value;
    let span = match range.to {
        Some(to) => format!("between {param}={from} and {param}={}", curve[to].value),
        None => format!("at {param}={from} or beyond the last point"),
    };
    let why = match dip(curve) {
        Some(d) => format!("{}, so one run a point swings at least that much", fell_words(param, curve, d)),
        None => "a step's gain lies within 5 points of 10%".into(),
    };
    format!(
        "but a close call: {why}, so the knee may be anywhere {span}; repeated runs of those points place it (io: --repeat 3)"
    )
}

/// The curve as a table, and the knee in words. The rate is named by what the runs count
/// (`counts`); MB/s is shown for I/O only, since calls and rows move no bytes of their own.
pub fn render_sweep(param: &str, curve: &[CurvePoint], counts: Counts) -> Vec<u8> {
    let mut out = String::new();
    let bytes = counts == Counts::Ios;
    let mb = |text: String| if bytes { format!(" {text:>10}") } else { String::new() };
    let _ = writeln!(out, "\nsweep of {param}:");
    let _ = writeln!(
        out,
        "  {:>10} {:>12}{} {:>10} {:>10} {:>5}",
        param,
        counts.per_sec(),
        mb("MB/s".into()),
        "avg",
        "p99",
        "runs"
    );
    let shape = shape(curve);
    let close = close_call(curve);
    let maybe = |i: usize| close.is_some_and(|r| i >= r.from && r.to.is_none_or(|to| i <= to));
    for (i, p) in curve.iter().enumerate() {
        let mark = if shape == Shape::Knee(i) {
            "  <- knee"
        } else if maybe(i) {
            "  <- knee?"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {:>10} {:>12}{} {:>10} {:>10} {:>5}{mark}",
            p.value,
            crate::view::rate_text(p.iops),
            mb(crate::view::rate_text(p.mb_per_sec)),
            format_latency_ns(p.latency_mean_ns),
            format_latency_ns(p.latency_p99_ns),
            p.runs
        );
    }
    let _ = writeln!(out, "knee: {}", knee_words(param, curve));
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_analysis::curve::CurvePoint;

    fn point(value: &str, mb: f64, lat: f64) -> CurvePoint {
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
    fn the_knee_is_marked_and_said() {
        let c = [
            point("1", 10.0, 100.0),
            point("2", 19.0, 105.0),
            point("4", 36.0, 110.0),
            point("8", 38.0, 210.0),
            point("16", 39.0, 410.0),
        ];
        let text = String::from_utf8(render_sweep("depth", &c, Counts::Ios)).unwrap();
        assert!(text.contains("knee: about depth=4 (") || text.contains("knee: about depth=4:"), "{text}");
        assert!(text.contains("IOs/sec") && text.contains("MB/s"), "{text}");
        assert!(text.lines().any(|l| l.contains("<- knee") && l.trim_start().starts_with('4')), "{text}");
        // Three runs a point: the knee without "about".
        let repeated: Vec<CurvePoint> = c.iter().map(|p| CurvePoint { runs: 3, ..p.clone() }).collect();
        let text = String::from_utf8(render_sweep("depth", &repeated, Counts::Ios)).unwrap();
        assert!(text.contains("knee: depth=4: no point beyond it"), "{text}");
        assert!(String::from_utf8(render_sweep("depth", &[], Counts::Ios)).unwrap().contains("knee: none"));
    }

    #[test]
    fn a_close_call_marks_every_place_the_knee_may_be() {
        // 16 -> 32 gains 24%, 32 -> 64 6.6%: 32 by the 10% rule, and 64 within 5 points of it.
        let c =
            [point("8", 100.0, 100.0), point("16", 150.0, 130.0), point("32", 186.0, 200.0), point("64", 198.3, 390.0)];
        let text = String::from_utf8(render_sweep("depth", &c, Counts::Ios)).unwrap();
        let marked = |mark: &str, at: &str| text.lines().any(|l| l.ends_with(mark) && l.trim_start().starts_with(at));
        assert!(marked("<- knee", "32") && marked("<- knee?", "64") && !marked("knee?", "16"), "{text}");
        assert!(text.contains("knee: about depth=32: ") && text.contains("close call"), "{text}");
        assert!(text.contains("at depth=32 or beyond the last point"), "{text}");
        let clear = String::from_utf8(render_sweep("depth", &c[..3], Counts::Ios)).unwrap();
        assert!(!clear.contains("close call") && !clear.contains("knee?"), "{clear}");
    }

    /// Hammer's session counts: calls a second, no MB/s column (its calls move no bytes of
    /// their own), and the knee marked by calls a second.
    #[test]
    fn a_sweep_of_calls_names_its_rate_and_shows_no_bytes() {
        let calls = |value: &str, per_sec: f64, lat: f64| CurvePoint {
            iops: per_sec,
            mb_per_sec: 0.0,
            ..point(value, 0.0, lat)
        };
        let c = [calls("1", 1000.0, 1e6), calls("8", 7000.0, 1.1e6), calls("32", 7300.0, 4.4e6)];
        let text = String::from_utf8(render_sweep("sessions", &c, Counts::Calls)).unwrap();
        assert!(text.contains("calls/sec") && !text.contains("MB/s") && !text.contains("0.00"), "{text}");
        assert!(text.lines().any(|l| l.contains("<- knee") && l.trim_start().starts_with('8')), "{text}");
        assert!(text.contains("knee: about sessions=8"), "{text}");
    }

    #[test]
    fn a_dip_and_a_noisy_fall_are_named_where_they_happened() {
        // 100, 200, 160, 224 MB/s: fell at 4 by a fifth, rose at 8.
        let c = [point("1", 100.0, 1.0), point("2", 200.0, 2.0), point("4", 160.0, 3.0), point("8", 224.0, 4.0)];
        let text = knee_words("depth", &c);
        assert!(
            text.contains(
                "close call: throughput fell from depth=2 to depth=4 by 20% and rose again at depth=8, so \
                           one run a point swings at least that much, so the knee may be anywhere at depth=2 or beyond"
            ),
            "{text}"
        );
        // The quick check's noisy curve: the fall was 8 -> 16.
        let iops = [5_814.0, 7_119.0, 23_322.0, 39_109.0, 26_243.0, 40_035.0];
        let c: Vec<CurvePoint> =
            iops.iter().enumerate().map(|(i, v)| point(&(1 << i).to_string(), v / 128.0, (i + 1) as f64)).collect();
        assert!(
            knee_words("depth", &c)
                .starts_with("none named: throughput fell from depth=8 to depth=16 by 33% and rose again at depth=32")
        );
    }
}
