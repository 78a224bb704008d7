//! Charts as inline SVG: no script, no network, drawn by any browser and printer. Horizontal
//! bars (long run names stay readable), lines over ordered categories with a marked point, and
//! changes with their intervals around zero on a ratio scale.

use super::escape::esc;
use crate::figures::grouped;
use crate::view::{Chart, ChartKind, counter_text};
use spindle_model::units::signed_pct;
use std::fmt::Write;

const WIDTH: f64 = 760.0;
const LABEL_WIDTH: f64 = 280.0;
const ROW: f64 = 16.0;
/// Labels longer than this are cut on the chart (the full name is in the bar's tooltip and
/// the tables), so that each stays told apart (`labels`).
const LABEL_CHARS: usize = 44;

pub fn chart(out: &mut String, c: &Chart) {
    // A chart of one bar, or a line of one point, says nothing a table does not.
    let one = match c.kind {
        ChartKind::Bar => bars_drawn(c) < 2,
        ChartKind::Line => c.categories.len() < 2,
        ChartKind::Interval => false,
    };
    if (c.is_empty() && c.intervals.is_empty()) || one {
        return;
    }
    let _ = write!(out, "<figure class=\"chart\"><figcaption>{}</figcaption>", esc(&c.title));
    match c.kind {
        ChartKind::Bar => bars(out, c),
        ChartKind::Line => line(out, c),
        ChartKind::Interval => intervals(out, c),
    }
    out.push_str("</figure>\n");
}

/// Bars a chart would draw with a length: a chart of one (a run's rank among itself, a
/// histogram with every operation in one bucket) says nothing a table does not, so it is not
/// drawn.
fn bars_drawn(c: &Chart) -> usize {
    c.series.first().map_or(0, |s| s.values.iter().filter(|v| v.is_finite() && **v != 0.0).count())
}

/// Labels that fit the chart, each still told apart from the others: cut at the end where
/// that keeps them apart, else in the middle (runs of one sweep differ at the end of their
/// names, where the swept value is).
fn labels(categories: &[String]) -> Vec<String> {
    let fits = |l: &String| l.chars().count() <= LABEL_CHARS;
    let head = |l: &String| {
        if fits(l) {
            return l.clone();
        }
        let cut: String = l.chars().take(LABEL_CHARS - 1).collect();
        format!("{cut}…")
    };
    let cut: Vec<String> = categories.iter().map(head).collect();
    if distinct(&cut) {
        return cut;
    }
    let keep = LABEL_CHARS / 3;
    categories
        .iter()
        .map(|l| {
            if fits(l) {
                return l.clone();
            }
            let chars: Vec<char> = l.chars().collect();
            let start: String = chars[..keep].iter().collect();
            let end: String = chars[chars.len() - (LABEL_CHARS - keep - 1)..].iter().collect();
            format!("{start}…{end}")
        })
        .collect()
}

fn distinct(labels: &[String]) -> bool {
    let mut seen = std::collections::HashSet::new();
    labels.iter().all(|l| seen.insert(l))
}

/// An axis from zero to a round top, ticked at round steps (1, 2 or 5 times a power of ten),
/// about four of them: `(top, step)`.
fn axis(max: f64) -> (f64, f64) {
    if !(max.is_finite() && max > 0.0) {
        return (1.0, 0.5);
    }
    let rough = max / 4.0;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|s| *s >= rough).unwrap_or(10.0 * power);
    ((max / step).ceil() * step, step)
}

/// A tick's value with the decimals its step needs (`0.05`, `250`, `15,000,000`), never
/// rounded to `0.00`.
fn tick_text(v: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    if decimals == 0 { grouped(v.round() as u64) } else { format!("{v:.decimals$}") }
}

fn finite_max(values: impl Iterator<Item = f64>) -> f64 {
    values.filter(|v| v.is_finite()).fold(0.0, f64::max)
}

fn bars(out: &mut String, c: &Chart) {
    let values = c.series.first().map(|s| s.values.as_slice()).unwrap_or(&[]);
    let max = finite_max(values.iter().copied()).max(f64::MIN_POSITIVE);
    let plot = WIDTH - LABEL_WIDTH - 70.0;
    let height = values.len() as f64 * ROW + 24.0;
    let _ = write!(
        out,
        "<svg viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"{}\">",
        esc(&c.title)
    );
    let shown = labels(&c.categories);
    for (i, ((label, short), v)) in c.categories.iter().zip(&shown).zip(values).enumerate() {
        let y = i as f64 * ROW + 4.0;
        // An empty bar says 0, not 0.00.
        let said = if *v == 0.0 { "0".to_string() } else { counter_text(*v) };
        let w = if v.is_finite() { (v / max * plot).max(0.0) } else { 0.0 };
        let _ = write!(
            out,
            "<text x=\"{:.0}\" y=\"{:.0}\" class=\"l\">{}</text><rect x=\"{LABEL_WIDTH}\" y=\"{y:.0}\" width=\"{w:.1}\" height=\"{:.0}\"><title>{}: {}</title></rect><text x=\"{:.0}\" y=\"{:.0}\">{}</text>",
            LABEL_WIDTH - 6.0,
            y + ROW - 5.0,
            esc(short),
            ROW - 3.0,
            esc(label),
            said,
            LABEL_WIDTH + w + 4.0,
            y + ROW - 5.0,
            said
        );
    }
    let _ = write!(
        out,
        "<text x=\"{LABEL_WIDTH}\" y=\"{:.0}\" class=\"axis\">{}</text></svg>",
        height - 4.0,
        esc(&c.y_label)
    );
}

fn line(out: &mut String, c: &Chart) {
    const HEIGHT: f64 = 240.0;
    let (left, right, top, bottom) = (70.0, 20.0, 26.0, 40.0);
    let plot_w = WIDTH - left - right;
    let plot_h = HEIGHT - top - bottom;
    let n = c.categories.len();
    let (max, step) = axis(finite_max(c.series.iter().flat_map(|s| s.values.iter().copied())));
    let x = |i: usize| if n <= 1 { left + plot_w / 2.0 } else { left + plot_w * i as f64 / (n - 1) as f64 };
    let y = |v: f64| top + plot_h - if v.is_finite() { v.max(0.0) / max * plot_h } else { 0.0 };
    let _ = write!(
        out,
        "<svg viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\" aria-label=\"{}\">",
        esc(&c.title)
    );
    // Axes and round value ticks.
    let _ = write!(out, "<path class=\"ax\" d=\"M{left} {top}V{:.0}H{:.0}\"/>", top + plot_h, left + plot_w);
    let ticks = (max / step).round() as usize;
    for k in 0..=ticks {
        let v = step * k as f64;
        let _ = write!(
            out,
            "<text x=\"{:.0}\" y=\"{:.0}\" class=\"l\">{}</text>",
            left - 6.0,
            y(v) + 4.0,
            tick_text(v, step)
        );
    }
    // At most about ten category labels, evenly spread.
    let every = n.div_ceil(10).max(1);
    let shown = labels(&c.categories);
    for (i, label) in shown.iter().enumerate().filter(|(i, _)| i % every == 0 || *i + 1 == n) {
        let _ =
            write!(out, "<text x=\"{:.0}\" y=\"{:.0}\" class=\"m\">{}</text>", x(i), top + plot_h + 16.0, esc(label));
    }
    let _ = write!(
        out,
        "<text x=\"{:.0}\" y=\"{:.0}\" class=\"m axis\">{}</text><text x=\"4\" y=\"12\" class=\"axis\">{}</text>",
        left + plot_w / 2.0,
        HEIGHT - 4.0,
        esc(&c.x_label),
        esc(&c.y_label)
    );
    for (k, s) in c.series.iter().enumerate() {
        let mut d = String::with_capacity(s.values.len() * 12);
        for (i, v) in s.values.iter().enumerate() {
            // Whole pixels: the chart is 760 wide, and a long series is most of the page's bytes.
            let _ = write!(d, "{}{:.0} {:.0}", if i == 0 { "M" } else { "L" }, x(i), y(*v));
        }
        let _ = write!(out, "<path class=\"s{}\" d=\"{d}\"><title>{}</title></path>", k % 3, esc(&s.name));
        if s.values.len() <= 40 {
            for (i, v) in s.values.iter().enumerate() {
                let _ = write!(
                    out,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"><title>{}: {}</title></circle>",
                    x(i),
                    y(*v),
                    esc(&c.categories[i.min(n.saturating_sub(1))]),
                    counter_text(*v)
                );
            }
        }
    }
    if let Some((i, words)) = &c.mark {
        // Its words go left of a mark in the right quarter, where they would run off the chart.
        let (dx, anchor) = if x(*i) > left + plot_w * 0.75 { (-4.0, " l") } else { (4.0, "") };
        let _ = write!(
            out,
            "<path class=\"mark\" d=\"M{:.1} {top}V{:.0}\"/><text x=\"{:.1}\" y=\"{:.0}\" class=\"markt{anchor}\">{}</text>",
            x(*i),
            top + plot_h,
            x(*i) + dx,
            top + 10.0,
            esc(words)
        );
    }
    out.push_str("</svg>");
}

/// Changes drawn on a ratio (log) scale fitted to what is shown: every change, zero and the
/// threshold band, and the intervals as far as they reach up to as far again as those span
/// (an interval reaching beyond is cut at the edge with an arrowhead, its ends in its
/// tooltip). A symmetric axis sized by the widest interval (±761% once) squashed the
/// intervals near zero into a few pixels, and half of it stayed empty whenever every change
/// pointed one way. On a ratio scale -50% and +100% lie equally far from zero, as the
/// intervals (of ratios of geometric means) are symmetric there.
fn intervals(out: &mut String, c: &Chart) {
    let values = c.series.first().map(|s| s.values.as_slice()).unwrap_or(&[]);
    // A ratio: -100% would be minus infinity, so the scale stops at -99%.
    let log = |v: f64| (v.max(-99.0) / 100.0).ln_1p();
    let band = c.band.unwrap_or(0.0);
    let span = |xs: &mut dyn Iterator<Item = f64>| {
        xs.filter(|v| v.is_finite()).map(log).fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)))
    };
    let (core_low, core_high) = span(&mut values.iter().copied().chain([-band, band]));
    let reach = (core_high - core_low).max(0.1);
    let (ends_low, ends_high) = span(&mut c.intervals.iter().flat_map(|(lo, hi)| [*lo, *hi]));
    let (low, high) = (ends_low.max(core_low - reach).min(core_low), ends_high.min(core_high + reach).max(core_high));
    // A little room at the ends, so no interval ends on the chart's edge.
    let pad = ((high - low) * 0.05).max(0.005);
    let (low, high) = (low - pad, high + pad);
    let plot = WIDTH - LABEL_WIDTH - 40.0;
    let x = |v: f64| LABEL_WIDTH + (log(v).clamp(low, high) - low) / (high - low) * plot;
    let zero = x(0.0);
    let row = 26.0;
    let height = c.categories.len() as f64 * row + 30.0;
    let _ = write!(
        out,
        "<svg viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"{}\">",
        esc(&c.title)
    );
    if band > 0.0 {
        let _ = write!(
            out,
            "<rect class=\"band\" x=\"{:.1}\" y=\"0\" width=\"{:.1}\" height=\"{:.0}\"><title>within ±{band}%: too small to act on</title></rect>",
            x(-band),
            x(band) - x(-band),
            height - 20.0
        );
    }
    let _ = write!(out, "<path class=\"ax\" d=\"M{zero:.1} 0V{:.0}\"/>", height - 20.0);
    for (i, label) in c.categories.iter().enumerate() {
        let y = i as f64 * row + 16.0;
        let (lo, hi) = c.intervals.get(i).copied().unwrap_or((0.0, 0.0));
        let v = values.get(i).copied().unwrap_or(0.0);
        if log(lo) < low {
            let _ = write!(out, "<path class=\"ci\" d=\"M{:.1} {:.0}l-6 4l6 4\"/>", x(lo) + 6.0, y - 4.0);
        }
        if log(hi) > high {
            let _ = write!(out, "<path class=\"ci\" d=\"M{:.1} {:.0}l6 4l-6 4\"/>", x(hi) - 6.0, y - 4.0);
        }
        let _ = write!(
            out,
            "<text x=\"{:.0}\" y=\"{:.0}\" class=\"l\">{}</text><path class=\"ci\" d=\"M{:.1} {y:.0}H{:.1}\"/><circle cx=\"{:.1}\" cy=\"{y:.0}\" r=\"4\"><title>{}: {} ({} .. {})</title></circle><text x=\"{:.1}\" y=\"{:.0}\" class=\"m\">{}</text>",
            LABEL_WIDTH - 6.0,
            y + 4.0,
            esc(label),
            x(lo),
            x(hi),
            x(v),
            esc(label),
            signed_pct(v, 2),
            signed_pct(lo, 1),
            signed_pct(hi, 1),
            x(v),
            y - 7.0,
            signed_pct(v, 1)
        );
    }
    let end = |l: f64| l.exp_m1() * 100.0;
    let _ = write!(
        out,
        "<text x=\"{:.0}\" y=\"{:.0}\" class=\"m axis\">{}</text><text x=\"{zero:.0}\" y=\"{:.0}\" class=\"m axis\">0 (ratio scale)</text><text x=\"{:.0}\" y=\"{:.0}\" class=\"m axis\">{}</text></svg>",
        LABEL_WIDTH,
        height - 4.0,
        signed_pct(end(low), 0),
        height - 4.0,
        LABEL_WIDTH + plot,
        height - 4.0,
        signed_pct(end(high), 0)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar_chart(labels: &[&str], values: &[f64]) -> Chart {
        let mut c = Chart::new("c", ChartKind::Bar, "run", "IOPS");
        c.categories = labels.iter().map(|l| l.to_string()).collect();
        c.series = vec![crate::view::Series { name: "IOPS".into(), values: values.to_vec() }];
        c
    }

    #[test]
    fn a_chart_of_one_bar_is_not_drawn() {
        let mut out = String::new();
        chart(&mut out, &bar_chart(&["run 1"], &[400.0]));
        // A histogram with every operation in its first bucket is one bar too.
        chart(&mut out, &bar_chart(&["0", "1", "2"], &[100.0, 0.0, 0.0]));
        assert_eq!(out, "");
        chart(&mut out, &bar_chart(&["run 1", "run 2"], &[400.0, 800.0]));
        assert_eq!(out.matches("<rect").count(), 2, "{out}");
    }

    #[test]
    fn cut_labels_stay_told_apart() {
        let long = |n: u32| format!("run 1: 8KiB random read, 1 thread x 1 outstanding, capped at {n} IOPS");
        let labels = labels(&[long(400), long(800)]);
        assert_ne!(labels[0], labels[1], "{labels:?}");
        assert!(labels.iter().all(|l| l.chars().count() <= LABEL_CHARS), "{labels:?}");
        assert!(labels[1].ends_with("800 IOPS"), "{labels:?}");
    }

    #[test]
    fn axes_tick_at_round_values_and_small_ones_keep_their_digits() {
        let close = |(top, step): (f64, f64), want: (f64, f64)| {
            assert!((top - want.0).abs() < want.1 * 1e-9 && (step - want.1).abs() < want.1 * 1e-9, "{top} {step}")
        };
        close(axis(15_007_912.0), (20_000_000.0, 5_000_000.0));
        close(axis(0.27), (0.3, 0.1));
        close(axis(47.0), (60.0, 20.0));
        let (top, step) = axis(0.0009);
        assert_eq!(tick_text(top, step), "0.0010");
        assert_eq!(tick_text(step, step), "0.0005");
        assert_eq!(tick_text(15_000_000.0, 5_000_000.0), "15,000,000");
        let mut c = Chart::new("c", ChartKind::Line, "s", "ms");
        c.categories = vec!["1".into(), "2".into()];
        c.series = vec![crate::view::Series { name: "ms".into(), values: vec![0.0004, 0.0009] }];
        let mut svg = String::new();
        line(&mut svg, &c);
        assert!(!svg.contains(">0.00<"), "{svg}");
    }

    /// The x of each `<circle>`'s centre and each interval path's ends, in order.
    fn numbers_after(svg: &str, key: &str) -> Vec<f64> {
        svg.split(key).skip(1).map(|s| s.split(['"', ' ', 'H']).next().unwrap().parse().unwrap()).collect()
    }

    #[test]
    fn the_axis_fits_the_intervals_and_keeps_the_threshold_band_in_view() {
        // The chart: one wide interval beside one near zero.
        let mut c = Chart::new("B against A", ChartKind::Interval, "metric", "change %");
        c.categories = vec!["IOPS".into(), "p99 latency".into()];
        c.intervals = vec![(21.8, 104.8), (-88.4, 761.0)];
        c.series = vec![crate::view::Series { name: "change %".into(), values: vec![57.9, 0.5] }];
        c.band = Some(5.0);
        let mut svg = String::new();
        intervals(&mut svg, &c);
        let plot = WIDTH - LABEL_WIDTH - 40.0;
        // Every interval's ends lie inside the plot, and the narrow one takes a readable share.
        let ends = numbers_after(&svg, "class=\"ci\" d=\"M");
        assert!(ends.iter().all(|x| *x >= LABEL_WIDTH && *x <= LABEL_WIDTH + plot), "{ends:?}");
        let iops = svg.split("class=\"ci\" d=\"M").nth(1).unwrap();
        let from: f64 = iops.split(' ').next().unwrap().parse().unwrap();
        let to: f64 = iops.split('H').nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert!(to - from > plot * 0.25, "the IOPS interval spans {} of {plot} px", to - from);
        // The band is drawn around zero, and wide enough to see.
        let band = numbers_after(&svg, "class=\"band\" x=\"");
        let width = numbers_after(&svg, "\" width=\"");
        assert!(band.len() == 1 && width[1] > 15.0, "{svg}");
        // The wide interval reaches past the axis at its top: cut, with an arrowhead.
        assert!(svg.contains("l6 4l-6 4"), "{svg}");

        // Every change one way: no empty half, but zero and the band stay in view.
        c.intervals = vec![(21.8, 104.8)];
        c.categories.truncate(1);
        c.series[0].values.truncate(1);
        let mut svg = String::new();
        intervals(&mut svg, &c);
        let zero = numbers_after(&svg, "class=\"ax\" d=\"M")[0];
        assert!(zero > LABEL_WIDTH && zero < LABEL_WIDTH + plot * 0.25, "zero at {zero}");
        assert!(svg.contains("class=\"band\""), "{svg}");
    }
}
