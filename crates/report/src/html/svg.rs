//! Charts as inline SVG: no script, no network, drawn by any browser and printer. Horizontal
//! bars (long run names stay readable), lines over ordered categories with a marked point, and
//! changes with their intervals around zero on a ratio scale.

use super::escape::esc;
use crate::view::{Chart, ChartKind, counter_text, rate_text};
use spindle_model::units::signed_pct;
use std::fmt::Write;

const WIDTH: f64 = 760.0;
const LABEL_WIDTH: f64 = 280.0;
const ROW: f64 = 16.0;
/// Labels longer than this are cut on the chart (the full name is in the bar's tooltip and
/// the tables).
const LABEL_CHARS: usize = 44;

pub fn chart(out: &mut String, c: &Chart) {
    if c.is_empty() && c.intervals.is_empty() {
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

fn short(label: &str) -> String {
    if label.chars().count() <= LABEL_CHARS {
        label.to_string()
    } else {
        let cut: String = label.chars().take(LABEL_CHARS - 1).collect();
        format!("{cut}…")
    }
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
    for (i, (label, v)) in c.categories.iter().zip(values).enumerate() {
        let y = i as f64 * ROW + 4.0;
        let w = if v.is_finite() { (v / max * plot).max(0.0) } else { 0.0 };
        let _ = write!(
            out,
            "<text x=\"{:.0}\" y=\"{:.0}\" class=\"l\">{}</text><rect x=\"{LABEL_WIDTH}\" y=\"{y:.0}\" width=\"{w:.1}\" height=\"{:.0}\"><title>{}: {}</title></rect><text x=\"{:.0}\" y=\"{:.0}\">{}</text>",
            LABEL_WIDTH - 6.0,
            y + ROW - 5.0,
            esc(&short(label)),
            ROW - 3.0,
            esc(label),
            counter_text(*v),
            LABEL_WIDTH + w + 4.0,
            y + ROW - 5.0,
            counter_text(*v)
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
    let max = finite_max(c.series.iter().flat_map(|s| s.values.iter().copied())).max(f64::MIN_POSITIVE);
    let x = |i: usize| if n <= 1 { left + plot_w / 2.0 } else { left + plot_w * i as f64 / (n - 1) as f64 };
    let y = |v: f64| top + plot_h - if v.is_finite() { v.max(0.0) / max * plot_h } else { 0.0 };
    let _ = write!(
        out,
        "<svg viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\" aria-label=\"{}\">",
        esc(&c.title)
    );
    // Axes and three value ticks.
    let _ = write!(out, "<path class=\"ax\" d=\"M{left} {top}V{:.0}H{:.0}\"/>", top + plot_h, left + plot_w);
    for frac in [0.0, 0.5, 1.0] {
        let _ = write!(
            out,
            "<text x=\"{:.0}\" y=\"{:.0}\" class=\"l\">{}</text>",
            left - 6.0,
            y(max * frac) + 4.0,
            rate_text(max * frac)
        );
    }
    // At most about ten category labels, evenly spread.
    let every = n.div_ceil(10).max(1);
    for (i, label) in c.categories.iter().enumerate().filter(|(i, _)| i % every == 0 || *i + 1 == n) {
        let _ = write!(
            out,
            "<text x=\"{:.0}\" y=\"{:.0}\" class=\"m\">{}</text>",
            x(i),
            top + plot_h + 16.0,
            esc(&short(label))
        );
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
                    rate_text(*v)
                );
            }
        }
    }
    if let Some((i, words)) = &c.mark {
        let _ = write!(
            out,
            "<path class=\"mark\" d=\"M{:.1} {top}V{:.0}\"/><text x=\"{:.1}\" y=\"{:.0}\" class=\"markt\">{}</text>",
            x(*i),
            top + plot_h,
            x(*i) + 4.0,
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
