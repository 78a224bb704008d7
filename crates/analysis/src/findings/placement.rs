//! Data and log on one volume or two: the answer of "Optimizing tempdb and log disk
//! performance" and "Database Hammer", read off a paired comparison of the two layouts (A: both
//! files on the first directory's volume, B: the log moved to the second), in one sentence that
//! says how sure it is.

use super::Level;
use crate::compare::words::{estimate, p_text, settle_words};
use crate::compare::{Comparison, Lean, Metric, MetricComparison, Settle, Verdict};
use serde::Serialize;
use spindle_model::db::Counts;

/// What to do with the log, and how sure.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recommendation {
    /// `Ok` for a clear answer either way, `Note` when the rounds cannot tell.
    pub level: Level,
    pub text: String,
}

/// How the user asks for more rounds: a flag that sets how many (`--rounds`, given the number
/// the settle estimate names), or one that asks for more (`--thorough`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoreRounds<'a> {
    Count(&'a str),
    Flag(&'a str),
}

impl<'a> From<&'a str> for MoreRounds<'a> {
    fn from(flag: &'a str) -> Self {
        MoreRounds::Flag(flag)
    }
}

impl MoreRounds<'_> {
    /// The clause that says how, for the rounds `settle` estimates (none beyond a thousand).
    fn clause(self, settle: Option<Settle>) -> String {
        match (self, settle.and_then(|s| s.runs)) {
            (MoreRounds::Count(flag), Some(n)) => format!(" ({flag} {n})"),
            (MoreRounds::Flag(flag), Some(_)) => format!(" ({flag} runs more rounds)"),
            (_, None) => String::new(),
        }
    }
}

/// The recommendation from the comparison of one volume (A) against two (B), with the log on
/// `log_dir` in B; `shared_device` names the disk both directories sit on, if they do;
/// `more_rounds` says how to ask for more rounds.
pub fn recommend<'a>(
    c: &Comparison,
    log_dir: &str,
    shared_device: Option<&str>,
    more_rounds: impl Into<MoreRounds<'a>>,
) -> Recommendation {
    // What a database feels: its commits (a workload of calls: each call's latency, which
    // holds its commit), its rate of page I/Os or calls, and how long an operation timed as a
    // whole (a checkpoint) takes.
    let deciding: Vec<&MetricComparison> = c
        .metrics
        .iter()
        .filter(|m| match m.metric {
            Metric::CommitLatency | Metric::Iops | Metric::Duration => true,
            Metric::LatencyMean => c.counts == Counts::Calls,
            Metric::MbPerSec | Metric::WriteMbPerSec | Metric::LatencyP99 => false,
        })
        .collect();
    let said = |m: &MetricComparison| {
        let p = m.p_adjusted.map(|p| format!(", {}", p_text(p)));
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
        (true, true) => (Level::Note, unsettled(c, &deciding, log_dir, more_rounds.into())),
    };
    if let Some(disk) = shared_device {
        text.push_str(&format!(
            "; both directories are on one device ({disk}), so a split there cannot relieve it: compare two devices"
        ));
    }
    Recommendation { level, text }
}

/// The rounds cannot tell: which way each undecided figure leans and by how much, and how many
/// rounds would likely settle it, in the words (and from the estimate) of the comparison's own
/// notes.
fn unsettled(c: &Comparison, deciding: &[&MetricComparison], log_dir: &str, more_rounds: MoreRounds<'_>) -> String {
    let rounds = c.a_runs.len().min(c.b_runs.len());
    let head = format!("Cannot tell from {rounds} rounds whether the log belongs on {log_dir}");
    let open: Vec<&MetricComparison> =
        deciding.iter().filter(|m| m.verdict == Verdict::Inconclusive).copied().collect();
    let Some(settling) = settling(&open, c.threshold_pct) else {
        return format!("{head}: none of what the database waits on could be tested");
    };
    let leans: Vec<String> = open
        .iter()
        .map(|m| {
            let way = if m.lean == Some(Lean::Worse) { "worse" } else { "better" };
            let p = m.p_adjusted.map(|p| format!(", {}", p_text(p))).unwrap_or_default();
            format!("{} leans {way} ({}{p})", m.metric.label(c.counts), estimate(m, c.interval_confidence))
        })
        .collect();
    let which = if open.len() > 1 { format!("for {}, ", settling.metric.label(c.counts)) } else { String::new() };
    format!(
        "{head}: with it there, {}; {which}{}{}",
        leans.join(", "),
        settle_words(settling.settle, c.basis),
        more_rounds.clause(settling.settle)
    )
}

/// Of the undecided figures, the one whose settling would most likely settle the answer: of
/// those whose estimate lies beyond the threshold (one settled beyond it says where the log
/// goes), the soonest settled; when every estimate lies within it (each must settle inside it
/// before one volume serves as well as two), the last.
fn settling<'m>(open: &[&'m MetricComparison], threshold_pct: f64) -> Option<&'m MetricComparison> {
    let rounds = |m: &&&MetricComparison| m.settle.and_then(|s| s.runs).unwrap_or(u32::MAX);
    let beyond: Vec<&&MetricComparison> = open.iter().filter(|m| m.change_pct.abs() > threshold_pct).collect();
    if beyond.is_empty() {
        open.iter().max_by_key(rounds).copied()
    } else {
        beyond.into_iter().min_by_key(rounds).copied()
    }
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
            a_geomean: None,
            b_geomean: None,
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
        calls.metrics[1].lean = Some(Lean::Better);
        let r = recommend(&calls, "/log", None, MoreRounds::Count("--rounds"));
        assert!(r.text.contains("mean latency leans better (-25.00%"), "{}", r.text);
        assert!(r.text.ends_with("settling it would take more than 1000 rounds"), "no flag for a count: {}", r.text);
        // A p99 alone decides nothing: it is not what the database waits on as a whole.
        let p99 = comparison(vec![metric(Metric::LatencyP99, -50.0, Verdict::Better)]);
        assert_eq!(recommend(&p99, "/log", None, "--thorough").level, Level::Note);
    }

    /// The case: after 3 rounds calls/s leaned 47% better for two volumes at p = 0.049,
    /// and the detail said about 179 rounds would settle it while the recommendation said only
    /// "cannot tell; --rounds 6".
    #[test]
    fn an_unsettled_answer_names_the_lean_its_size_and_the_rounds_of_the_detail() {
        let mut calls = metric(Metric::Iops, 47.0, Verdict::Inconclusive);
        calls.ci_pct = Some((1.0, 114.0));
        calls.p_adjusted = Some(0.049);
        calls.lean = Some(Lean::Better);
        calls.settle = Some(Settle { runs: Some(179), more: Some(176) });
        let mut c = comparison(vec![calls]);
        c.counts = Counts::Calls;
        let r = recommend(&c, "/log", None, MoreRounds::Count("--rounds"));
        assert_eq!(r.level, Level::Note);
        assert_eq!(
            r.text,
            "Cannot tell from 3 rounds whether the log belongs on /log: with it there, calls/s leans better (+47.00%, \
             98.75% interval +1.0% .. +114.0%, p = 0.049); about 179 rounds (176 more) would likely settle it \
             (--rounds 179)"
        );
        let thorough = recommend(&c, "/log", None, "--thorough");
        assert!(thorough.text.ends_with("settle it (--thorough runs more rounds)"), "{}", thorough.text);
    }

    /// The rounds figure a text gives: `about N rounds (M more)`, or `more than 1000 rounds`.
    fn rounds_figure(text: &str) -> Option<&str> {
        if let Some(at) = text.find("about ") {
            let rest = &text[at..];
            return rest.find(" more)").map(|end| &rest[..end + " more)".len()]);
        }
        text.find("more than 1000 rounds").map(|at| &text[at..at + "more than 1000 rounds".len()])
    }

    /// Random paired rounds (a seeded generator: the same ten inputs every run) that the rounds
    /// cannot settle: the recommendation names the rounds figure that the comparison's own
    /// note gives for the figure it names, in each.
    #[test]
    fn the_recommendation_and_the_detail_agree_on_the_rounds_that_would_settle_it() {
        use crate::compare::{Pair, Settings, compare_paired};
        use spindle_model::RunRecord;
        use spindle_model::fixtures::io_run;
        use spindle_model::rng::Rng;
        let mut rng = Rng::new(43);
        let mut uniform = move |lo: f64, hi: f64| lo + (hi - lo) * rng.below(1_000_000) as f64 / 1e6;
        let mut agreed = 0;
        for _ in 0..200 {
            let rounds = uniform(3.0, 7.0) as usize;
            let (ratio, spread) = (uniform(0.8, 1.6), uniform(0.05, 0.4));
            let calls = uniform(0.0, 1.0) < 0.5;
            let mut run = |level: f64| {
                let mut r: RunRecord = io_run(&[level * uniform(1.0 - spread, 1.0 + spread); 5], 100_000, &[]);
                if calls {
                    r.counts = Counts::Calls;
                    r.summary.latency_ns.mean = 1e9 / r.summary.iops * uniform(1.0 - spread, 1.0 + spread);
                }
                r
            };
            let runs: Vec<(RunRecord, RunRecord)> = (0..rounds).map(|_| (run(1000.0), run(1000.0 * ratio))).collect();
            let pairs: Vec<Pair<'_>> = runs
                .iter()
                .enumerate()
                .map(|(i, (a, b))| Pair { a: (2 * i as i64, a), b: (2 * i as i64 + 1, b) })
                .collect();
            let c = compare_paired(&pairs, &Settings::default());
            let r = recommend(&c, "/log", None, MoreRounds::Count("--rounds"));
            if !r.text.starts_with("Cannot tell") {
                continue;
            }
            // The figure the recommendation settles on: the one it names, or its only one.
            let named = match r.text.find("; for ") {
                Some(at) => &r.text[at + "; for ".len()..r.text[at..].find(", ").map_or(0, |e| at + e)],
                None => {
                    let from = r.text.find("with it there, ").unwrap() + "with it there, ".len();
                    &r.text[from..from + r.text[from..].find(" leans").unwrap()]
                }
            };
            let detail = c.notes.iter().find(|n| n.starts_with(&format!("{named}: inconclusive"))).unwrap();
            let (said, detailed) = (rounds_figure(&r.text), rounds_figure(detail));
            assert!(said.is_some() && said == detailed, "{}\nvs the detail: {detail}", r.text);
            agreed += 1;
            if agreed == 10 {
                break;
            }
        }
        assert_eq!(agreed, 10, "ten unsettled inputs, each agreeing");
    }
}
