//! Data and log on one volume or two: the answer of "Optimizing tempdb and log disk
//! performance" and "Database Hammer", read off a paired comparison of the two layouts (A: both
//! files on the first directory's volume, B: the log moved to the second), in one sentence that
//! says how sure it is.

use super::Level;
use crate::compare::{Comparison, Metric, MetricComparison, Verdict};
use serde::Serialize;
use spindle_model::db::Counts;

/// What to do with the log, and how sure.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recommendation {
    /// `Ok` for a clear answer either way, `Note` when the rounds cannot tell.
    pub level: Level,
    pub text: String,
}

/// The recommendation from the comparison of one volume (A) against two (B), with the log on
/// `log_dir` in B; `shared_device` names the disk both directories sit on, if they do;
/// `more_rounds` says how to ask for more rounds (`--thorough`, `--rounds 6`).
pub fn recommend(c: &Comparison, log_dir: &str, shared_device: Option<&str>, more_rounds: &str) -> Recommendation {
    // What a database feels: its commits (a workload of calls: each call's latency, which
    // holds its commit), and its rate of page I/Os or calls.
    let deciding: Vec<&MetricComparison> = c
        .metrics
        .iter()
        .filter(|m| match m.metric {
            Metric::CommitLatency | Metric::Iops => true,
            Metric::LatencyMean => c.counts == Counts::Calls,
            Metric::MbPerSec | Metric::LatencyP99 => false,
        })
        .collect();
    let said = |m: &MetricComparison| {
        let p = m.p_adjusted.map(|p| if p < 0.001 { ", p < 0.001".into() } else { format!(", p = {p:.3}") });
        format!("{} {:+.1}%{}", m.metric.label(c.counts), m.change_pct, p.unwrap_or_default())
    };
    let better: Vec<String> = deciding.iter().filter(|m| m.verdict == Verdict::Better).map(|m| said(m)).collect();
    let worse: Vec<String> = deciding.iter().filter(|m| m.verdict == Verdict::Worse).map(|m| said(m)).collect();
    let rounds = c.a_runs.len().min(c.b_runs.len());
    let sure = format!("{rounds} paired rounds, after Bonferroni's correction");
    let (level, mut text) = match (better.is_empty(), worse.is_empty()) {
        (false, true) => (
            Level::Ok,
            format!("Put the log on its own volume ({log_dir}): {} with it there ({sure})", better.join(", ")),
        ),
        (true, false) => (
            Level::Ok,
            format!("Keep data and log on one volume: moving the log to {log_dir} made {} ({sure})", worse.join(", ")),
        ),
        (false, false) => (
            Level::Note,
            format!(
                "Moving the log to {log_dir} trades: better {}, worse {} ({sure}); choose by what the database waits on",
                better.join(", "),
                worse.join(", ")
            ),
        ),
        (true, true) if !deciding.is_empty() && deciding.iter().all(|m| m.verdict == Verdict::Equivalent) => (
            Level::Ok,
            format!(
                "One volume serves as well as two: {} stay within ±{}% with the log on {log_dir} ({sure})",
                deciding.iter().map(|m| m.metric.label(c.counts)).collect::<Vec<_>>().join(" and "),
                c.threshold_pct
            ),
        ),
        (true, true) => (
            Level::Note,
            format!(
                "Cannot tell from {rounds} rounds whether the log belongs on {log_dir}: the differences are within \
                 what the rounds vary by; more rounds ({more_rounds}) would settle it"
            ),
        ),
    };
    if let Some(disk) = shared_device {
        text.push_str(&format!(
            "; both directories are on one device ({disk}), so a split there cannot relieve it: compare two devices"
        ));
    }
    Recommendation { level, text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{Basis, Sequence};

    fn metric(metric: Metric, change_pct: f64, verdict: Verdict) -> MetricComparison {
        MetricComparison {
            metric,
            a_mean: 1.0,
            b_mean: 1.0 + change_pct / 100.0,
            change_pct,
            ci_pct: None,
            test: None,
            p_adjusted: Some(0.012),
            verdict,
            lean: None,
            settle: None,
            within_drift: false,
            drift_unknown: false,
            drift: None,
        }
    }

    fn comparison(metrics: Vec<MetricComparison>) -> Comparison {
        Comparison {
            counts: Counts::Ios,
            a_runs: vec![1, 3, 5],
            b_runs: vec![2, 4, 6],
            basis: Basis::Paired,
            sequence: Sequence::Rounds,
            method: String::new(),
            threshold_pct: 5.0,
            correction: "bonferroni",
            interval_confidence: 0.9875,
            metrics,
            confounders: Vec::new(),
            notes: Vec::new(),
            headline: String::new(),
        }
    }

    #[test]
    fn faster_commits_with_the_log_apart_say_split_it_and_how_sure() {
        let c = comparison(vec![
            metric(Metric::Iops, 2.0, Verdict::Equivalent),
            metric(Metric::CommitLatency, -38.0, Verdict::Better),
            metric(Metric::LatencyP99, -60.0, Verdict::Better),
        ]);
        let r = recommend(&c, "/log", None, "--thorough");
        assert_eq!(r.level, Level::Ok);
        assert_eq!(
            r.text,
            "Put the log on its own volume (/log): commit latency -38.0%, p = 0.012 with it there (3 paired rounds, \
             after Bonferroni's correction)"
        );
    }

    #[test]
    fn worse_equivalent_mixed_and_unclear_each_say_so() {
        let worse =
            recommend(&comparison(vec![metric(Metric::Iops, -20.0, Verdict::Worse)]), "/log", None, "--thorough");
        assert!(worse.text.starts_with("Keep data and log on one volume"), "{}", worse.text);
        let same = comparison(vec![
            metric(Metric::Iops, 1.0, Verdict::Equivalent),
            metric(Metric::CommitLatency, -2.0, Verdict::Equivalent),
        ]);
        assert!(recommend(&same, "/log", None, "--thorough").text.starts_with("One volume serves as well as two"));
        let mixed = comparison(vec![
            metric(Metric::Iops, -20.0, Verdict::Worse),
            metric(Metric::CommitLatency, -30.0, Verdict::Better),
        ]);
        assert_eq!(recommend(&mixed, "/log", None, "--thorough").level, Level::Note);
        let unclear = comparison(vec![metric(Metric::Iops, 9.0, Verdict::Inconclusive)]);
        let r = recommend(&unclear, "/log", Some("vda"), "--thorough");
        assert_eq!(r.level, Level::Note);
        assert!(r.text.starts_with("Cannot tell from 3 rounds") && r.text.contains("one device (vda)"), "{}", r.text);
        // A workload of calls decides on each call's latency too: it holds the call's commit.
        let mut calls = comparison(vec![
            metric(Metric::Iops, 1.0, Verdict::Equivalent),
            metric(Metric::LatencyMean, -25.0, Verdict::Better),
        ]);
        calls.counts = Counts::Calls;
        let r = recommend(&calls, "/log", None, "--rounds 6");
        assert!(r.text.starts_with("Put the log on its own volume (/log): mean latency -25.0%"), "{}", r.text);
        calls.metrics[1].verdict = Verdict::Inconclusive;
        let r = recommend(&calls, "/log", None, "--rounds 6");
        assert!(r.text.ends_with("more rounds (--rounds 6) would settle it"), "{}", r.text);
        // A p99 alone decides nothing: it is not what the database waits on as a whole.
        let p99 = comparison(vec![metric(Metric::LatencyP99, -50.0, Verdict::Better)]);
        assert_eq!(recommend(&p99, "/log", None, "--thorough").level, Level::Note);
    }
}
