//! A comparison as text: the two sides, a table of metrics with the change, its simultaneous
//! interval, the Bonferroni-corrected p-value and the verdict; the headline; what the table alone does not say
//! (inconclusive metrics and how many runs would settle them, drift); the method; and what
//! else differs between A and B.

use crate::view::rate_text;
use spindle_analysis::compare::{Basis, Comparison, Metric, words};
use spindle_model::units::{format_latency_ns, signed_pct};
use std::fmt::Write;

/// `a_name`/`b_name` say how each side was selected (`raid=5`, `run 12`, `a.toml`).
pub fn render_compare(c: &Comparison, a_name: &str, b_name: &str) -> Vec<u8> {
    let mut out = String::new();
    let ids = |v: &[i64]| v.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    let runs = |n: usize| if n == 1 { "1 run".to_string() } else { format!("{n} runs") };
    let _ = writeln!(out, "A: {a_name} ({}: {})", runs(c.a_runs.len()), ids(&c.a_runs));
    let _ = writeln!(out, "B: {b_name} ({}: {})", runs(c.b_runs.len()), ids(&c.b_runs));
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<13} {:>12} {:>12} {:>9} {:>21} {:>10}  verdict",
        "metric",
        "A geomean",
        "B geomean",
        "B vs A",
        format!("{} interval", words::confidence_text(c.interval_confidence)),
        "p (Bonf.)"
    );
    for m in &c.metrics {
        let ci = m.ci_pct.map(words::interval).unwrap_or_else(|| "-".into());
        let p = match m.p_adjusted {
            Some(p) if p < 0.001 => "<0.001".to_string(),
            Some(p) => format!("{p:.3}"),
            None => "-".into(),
        };
        let verdict = m.verdict_words();
        let (a, b, geometric) = m.change_means();
        let mark = if geometric { "" } else { ARITHMETIC_MARK };
        let _ = writeln!(
            out,
            "{:<13} {:>12} {:>12} {:>9} {:>21} {:>10}  {verdict}",
            m.metric.label(c.counts),
            format!("{}{mark}", metric_value(m.metric, a)),
            format!("{}{mark}", metric_value(m.metric, b)),
            signed_pct(m.change_pct, 2),
            ci,
            p
        );
    }
    let _ = writeln!(out, "{}", means_note(c));
    let _ = writeln!(out, "\n{}", c.headline);
    for note in &c.notes {
        let _ = writeln!(out, "  {note}");
    }
    let _ = writeln!(out, "Method: {}.", c.method);
    if !c.confounders.is_empty() {
        let heading = match c.basis {
            // In an A/B experiment the files' differences are what is compared.
            Basis::Paired => "A and B differ in (what this experiment compares):",
            _ => "A and B also differ in (these may explain part of the margin):",
        };
        let _ = writeln!(out, "\n{heading}");
        for x in &c.confounders {
            let _ = writeln!(out, "  {} {}: A {}; B {}", x.area, x.key, x.a.join(", "), x.b.join(", "));
            if let Some(meaning) = x.meaning {
                let _ = writeln!(out, "    ({meaning})");
            }
        }
    }
    out.into_bytes()
}

/// Beside a row's A and B when they are arithmetic means (a run's figure is 0).
pub(crate) const ARITHMETIC_MARK: &str = "*";

/// What a comparison table's A and B are, so a reader can recompute B vs A from them: the
/// sides' geometric means (a test on log figures compares them), or, where marked, arithmetic.
pub(crate) fn means_note(c: &Comparison) -> String {
    let mut note = "A and B are the geometric means of each side's runs; B vs A is their ratio".to_string();
    if c.metrics.iter().any(|m| !m.change_means().2) {
        note.push_str(&format!(
            " ({ARITHMETIC_MARK}: arithmetic means, where a run's figure is 0, which has no geometric mean)"
        ));
    }
    note
}

/// A metric's figure as tables print it: times with their unit, rates as every other table
/// prints them (16,023 IOPS, not 16023.33).
pub(crate) fn metric_value(metric: Metric, v: f64) -> String {
    if metric.is_time() { format_latency_ns(v) } else { rate_text(v) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_analysis::compare::{Settings, compare};
    use spindle_model::fixtures::io_run;

    #[test]
    fn table_headline_and_differences() {
        let a1 = io_run(&[1000.0; 20], 200_000, &[("raid", "5")]);
        let a2 = io_run(&[1010.0; 20], 200_000, &[("raid", "5")]);
        let mut b1 = io_run(&[2000.0; 20], 100_000, &[("raid", "10")]);
        b1.environment.hostname = "db02".into();
        let mut b2 = io_run(&[2020.0; 20], 100_000, &[("raid", "10")]);
        b2.environment.hostname = "db02".into();
        let selected = ["raid".to_string()];
        let settings = Settings { selected_by: &selected, ..Settings::default() };
        let c = compare(&[(1, &a1), (2, &a2)], &[(3, &b1), (4, &b2)], &settings);
        let text = String::from_utf8(render_compare(&c, "raid=5", "raid=10")).unwrap();
        for needle in [
            "A: raid=5 (2 runs: 1, 2)",
            "B: raid=10 (2 runs: 3, 4)",
            "98.75% interval",
            "p (Bonf.)",
            "Method: Welch's t-test",
            "B outperforms A by 100.00% IOPS",
            "environment hostname: A db01; B db02",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
        let iops_line = text.lines().find(|l| l.starts_with("IOPS")).unwrap();
        assert!(iops_line.contains("+100.00%") && iops_line.ends_with("B better"), "{iops_line}");
        // The geometric means the change is the ratio of (sqrt(1000 x 1010) = 1,004.99, and
        // twice that), as the other tables print rates: thousands separated.
        assert!(iops_line.contains(" 1,005 ") && iops_line.contains(" 2,010 "), "{iops_line}");
        assert!(text.lines().next_back().is_some() && text.contains("A and B are the geometric means"), "{text}");
        assert!(!text.contains("arithmetic means"), "every figure is positive: {text}");

        let single = compare(&[(1, &a1)], &[(3, &b1)], &Settings::default());
        let text = String::from_utf8(render_compare(&single, "1", "3")).unwrap();
        let iops_line = text.lines().find(|l| l.starts_with("IOPS")).unwrap();
        assert!(iops_line.ends_with("not tested"), "{iops_line}");
        assert!(text.contains("--repeat 3"), "{text}");
    }

    /// The issue's case: arithmetic means beside a change of geometric ones ("745,248 vs
    /// 723,027 -> +0.41%") could not be recomputed from the table.
    #[test]
    fn the_table_shows_the_means_its_change_is_computed_on() {
        let run = |iops: f64| io_run(&[iops; 10], 100_000, &[]);
        // A: 1,000 and 4,000 IOPS (arithmetic 2,500, geometric 2,000); B: 2,000 and 2,000.
        let (a, b) = ([run(1000.0), run(4000.0)], [run(2000.0), run(2000.0)]);
        let c = compare(&[(1, &a[0]), (2, &a[1])], &[(3, &b[0]), (4, &b[1])], &Settings::default());
        let text = String::from_utf8(render_compare(&c, "a", "b")).unwrap();
        let head = text.lines().find(|l| l.starts_with("metric")).unwrap();
        assert!(head.contains("A geomean") && head.contains("B geomean"), "{head}");
        let iops_line = text.lines().find(|l| l.starts_with("IOPS")).unwrap();
        let fields: Vec<&str> = iops_line.split_whitespace().collect();
        assert_eq!(fields[1..4], ["2,000", "2,000", "+0.00%"], "{iops_line}");
        assert!(!iops_line.contains("2,500"), "not the arithmetic mean: {iops_line}");
        // A side that measured nothing has no geometric mean: its row's means are arithmetic,
        // marked, and said so.
        let (idle, busy) = ([run(0.0), run(0.0)], [run(100.0), run(100.0)]);
        let c = compare(&[(1, &idle[0]), (2, &idle[1])], &[(3, &busy[0]), (4, &busy[1])], &Settings::default());
        let text = String::from_utf8(render_compare(&c, "a", "b")).unwrap();
        let iops_line = text.lines().find(|l| l.starts_with("IOPS")).unwrap();
        let fields: Vec<&str> = iops_line.split_whitespace().collect();
        assert_eq!(fields[1..3], ["0.00*", "100*"], "{iops_line}");
        assert!(text.contains("(*: arithmetic means, where a run's figure is 0"), "{text}");
    }
}
