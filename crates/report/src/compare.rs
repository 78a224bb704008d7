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
        "A",
        "B",
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
        let _ = writeln!(
            out,
            "{:<13} {:>12} {:>12} {:>9} {:>21} {:>10}  {verdict}",
            m.metric.label(c.counts),
            metric_value(m.metric, m.a_mean),
            metric_value(m.metric, m.b_mean),
            signed_pct(m.change_pct, 2),
            ci,
            p
        );
    }
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

/// A metric's figure as tables print it: latencies with their unit, rates as every other
/// table prints them (16,023 IOPS, not 16023.33).
pub(crate) fn metric_value(metric: Metric, v: f64) -> String {
    match metric {
        Metric::LatencyMean | Metric::LatencyP99 | Metric::CommitLatency => format_latency_ns(v),
        Metric::Iops | Metric::MbPerSec => rate_text(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_analysis::compare::{Settings, compare};
    use spindle_model::fixtures::io_run;

    #[test]
    fn table_headline_and_differences() {
        let a1 = io_run(&[990.0; 20], 200_000, &[("raid", "5")]);
        let a2 = io_run(&[1010.0; 20], 200_000, &[("raid", "5")]);
        let mut b1 = io_run(&[1980.0; 20], 100_000, &[("raid", "10")]);
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
        // Rates read as the other tables print them: thousands separated.
        assert!(iops_line.contains(" 1,000 ") && iops_line.contains(" 2,000 "), "{iops_line}");

        let single = compare(&[(1, &a1)], &[(3, &b1)], &Settings::default());
        let text = String::from_utf8(render_compare(&single, "1", "3")).unwrap();
        let iops_line = text.lines().find(|l| l.starts_with("IOPS")).unwrap();
        assert!(iops_line.ends_with("not tested"), "{iops_line}");
        assert!(text.contains("--repeat 3"), "{text}");
    }
}
