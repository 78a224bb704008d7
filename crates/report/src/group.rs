//! A stored group as a view: the group, its runs, and what the group says as a whole (a
//! sweep's curve and knee, the spread of repeats, an A/B experiment's comparison), derived
//! again from the stored records so it always agrees with them. The CLI prints it as text or
//! JSON; a report or a web page can draw the same view.

use serde::{Deserialize, Serialize};
use spindle_analysis::check_summary::{KeptCheck, StoppedEarly};
use spindle_analysis::compare::{Comparison, compare_rounds};
use spindle_analysis::curve::{CurvePoint, curve, knee};
use spindle_analysis::group_summary::AbSummary;
use spindle_analysis::spread::{Spread, spread};
use spindle_model::RunRecord;
use spindle_model::db::Counts;
use spindle_model::group::{GroupKind, Point};
use spindle_model::record::LatencyOf;
use spindle_model::units::format_latency_opt;
use std::fmt::Write;

/// A group as stored: what it is, and each of its runs.
pub struct GroupInput<'a> {
    pub id: i64,
    pub kind: GroupKind,
    pub name: &'a str,
    pub created_at: &'a str,
    /// The summary saved when the group ended (a sweep's curve, an A/B experiment's comparison:
    /// `spindle_analysis::group_summary`; a check's: `spindle_analysis::check_summary`; the log
    /// test's: `spindle_model::group_summary`), each read through its type.
    pub summary: Option<&'a serde_json::Value>,
    /// `(run id, point, repeat, record)`, in the order they ran.
    pub runs: Vec<(i64, Option<&'a Point>, u32, &'a RunRecord)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct GroupRun {
    pub id: i64,
    pub point: Option<Point>,
    pub repeat: u32,
    pub status: String,
    /// The rate of what the group counts; absent where a rate means nothing (a checkpoint).
    pub iops: Option<f64>,
    pub mb_per_sec: f64,
    /// Each I/O's mean and p99 latency.
    pub latency_mean_ns: f64,
    pub latency_p99_ns: u64,
    /// Whether the run has latencies of its own (a large operation has none).
    pub latency: bool,
    /// What the latency the group's tables lead with is of (`commit` where the run committed,
    /// else `io`: `IoStats::lead_latency`), and its mean and p99.
    pub latency_of: LatencyOf,
    pub lead_latency_mean_ns: f64,
    pub lead_latency_p99_ns: u64,
}

/// What the whole group says, by kind.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Findings {
    Sweep {
        param: String,
        curve: Vec<CurvePoint>,
        knee: Option<String>,
    },
    Repeat {
        spread: Vec<Spread>,
    },
    Ab {
        comparison: Comparison,
    },
    /// A suite's members are each their own workload, and a run of several agents is their
    /// shares and the merged run: the run table is the finding.
    Suite,
    /// `spindle check`: what it found, and the page reads' curve over depth; whether it
    /// stopped before its last step (the findings then cover the steps it measured).
    Check {
        findings: Vec<CheckFinding>,
        curve: Vec<CurvePoint>,
        knee: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        stopped: Option<StoppedEarly>,
    },
}

/// One of a check's findings, as its group's summary keeps it (`spindle-check/1`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckFinding {
    pub dir: String,
    pub area: String,
    pub level: String,
    /// The rule's stable name (absent in the oldest summaries).
    #[serde(default)]
    pub rule: String,
    pub text: String,
    #[serde(default)]
    pub threshold: Option<String>,
    /// `published` or `own` (absent in summaries from before findings said).
    #[serde(default)]
    pub basis: Option<String>,
    /// A published basis: the document, and what it says.
    #[serde(default)]
    pub source: Option<CheckSource>,
    #[serde(default)]
    pub says: Option<String>,
    /// An own basis: how it was set, and the document whose idea it follows.
    #[serde(default)]
    pub how: Option<String>,
    #[serde(default)]
    pub after: Option<CheckSource>,
    #[serde(default)]
    pub advice: Option<String>,
}

impl CheckFinding {
    /// What the threshold rests on, in words: "published: ..." or "spindle's own rule: ...".
    pub fn basis_words(&self) -> String {
        match (self.basis.as_deref(), &self.says, &self.how) {
            (Some("own"), _, Some(how)) => format!("spindle's own rule: {how}"),
            (Some("published"), Some(says), _) => format!("published: {says}"),
            _ => String::new(),
        }
    }

    /// The document to follow: the threshold's source, or the one an own rule follows.
    pub fn document_words(&self) -> String {
        let show = |s: &CheckSource| format!("{} ({}), {}", s.title, s.publisher, s.url);
        match (&self.source, &self.after) {
            (Some(s), _) => show(s),
            (None, Some(s)) => format!("after {}", show(s)),
            (None, None) => String::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckSource {
    pub title: String,
    pub publisher: String,
    pub url: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct GroupView {
    pub id: i64,
    pub kind: GroupKind,
    pub name: String,
    pub created_at: String,
    pub runs: Vec<GroupRun>,
    pub findings: Findings,
    /// What the group's runs count, so rates are named for it.
    pub counts: Counts,
}

pub fn group_view(g: &GroupInput<'_>) -> GroupView {
    let runs = g
        .runs
        .iter()
        .map(|&(id, point, repeat, r)| GroupRun {
            id,
            point: point.cloned(),
            repeat,
            status: r.status.name().to_string(),
            iops: r.rate(),
            mb_per_sec: r.summary.mb_per_sec,
            latency_mean_ns: r.summary.latency_ns.mean,
            latency_p99_ns: r.summary.latency_ns.p99,
            latency: r.recorded().latency,
            latency_of: r.summary.lead_latency().0,
            lead_latency_mean_ns: r.summary.lead_latency().1.mean,
            lead_latency_p99_ns: r.summary.lead_latency().1.p99,
        })
        .collect();
    let findings = match g.kind {
        GroupKind::Sweep => sweep_findings(g),
        GroupKind::Repeat => Findings::Repeat { spread: spread(&g.runs.iter().map(|r| r.3).collect::<Vec<_>>()) },
        GroupKind::Ab => ab_findings(g),
        GroupKind::Suite | GroupKind::Agents => Findings::Suite,
        GroupKind::Check => check_findings(g),
    };
    GroupView {
        id: g.id,
        kind: g.kind,
        name: g.name.to_string(),
        created_at: g.created_at.to_string(),
        runs,
        findings,
        counts: g.runs.first().map_or(Counts::Ios, |r| r.3.counts),
    }
}

/// The swept setting's values, in the order the first repeat ran them.
fn sweep_findings(g: &GroupInput<'_>) -> Findings {
    // The large operations are four different operations, not points of one setting: no
    // curve or knee over them (a checkpoint's rows/sec is no rate); the run table is all.
    if !g.runs.is_empty() && g.runs.iter().all(|r| r.3.kind() == spindle_model::RunKind::LargeOps) {
        return Findings::Suite;
    }
    let (param, curve, knee) = swept_curve(g, None);
    Findings::Sweep { param, curve, knee }
}

/// The curve of the runs swept over `only` (else over whichever setting the runs step), and
/// its knee.
fn swept_curve(g: &GroupInput<'_>, only: Option<&str>) -> (String, Vec<CurvePoint>, Option<String>) {
    let swept = |r: &(i64, Option<&Point>, u32, &RunRecord)| {
        r.1.and_then(Point::as_sweep).filter(|p| only.is_none_or(|o| p.param == o)).cloned()
    };
    let mut values: Vec<String> = Vec::new();
    let mut param = String::new();
    for p in g.runs.iter().filter_map(swept) {
        if !values.contains(&p.value) {
            values.push(p.value);
        }
        param = p.param;
    }
    let points: Vec<(String, Vec<&RunRecord>)> = values
        .into_iter()
        .map(|v| {
            let at = g.runs.iter().filter(|r| swept(r).is_some_and(|p| p.param == param && p.value == v));
            let records = at.map(|r| r.3).collect();
            (v, records)
        })
        .collect();
    let c = curve(&points);
    let knee = knee(&c).map(|i| c[i].value.clone());
    (param, c, knee)
}

/// A check's findings as it judged them (kept in the group's summary: the rules of the
/// version that ran it), and its page reads' depth curve drawn again from the runs.
fn check_findings(g: &GroupInput<'_>) -> Findings {
    let (findings, stopped) =
        g.summary.map(KeptCheck::<CheckFinding>::of).map_or_else(Default::default, |k| (k.findings, k.stopped));
    let (_, curve, knee) = swept_curve(g, Some("depth"));
    Findings::Check { findings, curve, knee, stopped }
}

/// Rounds paired by the runs' side and round labels, judged with the threshold the
/// experiment used.
fn ab_findings(g: &GroupInput<'_>) -> Findings {
    let summary: AbSummary = g.summary.and_then(|s| AbSummary::deserialize(s).ok()).unwrap_or_default();
    let threshold_pct = summary.comparison.threshold_pct;
    let runs: Vec<(i64, &RunRecord)> = g.runs.iter().map(|r| (r.0, r.3)).collect();
    Findings::Ab { comparison: compare_rounds(&runs, threshold_pct) }
}

fn render_check_findings(findings: &[CheckFinding]) -> Vec<u8> {
    let mut out = String::from("\nfindings:\n");
    for f in findings {
        let own = if f.basis.as_deref() == Some("own") { " (spindle's rule)" } else { "" };
        let _ = writeln!(out, "  {:<8} {:<13} {}{own}", f.level, f.area, f.text);
    }
    out.into_bytes()
}

/// The view as text: the group, its runs, and its findings.
pub fn render_group(v: &GroupView) -> Vec<u8> {
    let mut out = format!("group {}: {} ({}), created {}\n", v.id, v.kind, v.name, v.created_at);
    // Calls and rows move no bytes of their own: their MB/s would be a column of zeros.
    let mb = |text: String| if v.counts == Counts::Ios { format!(" {text:>10}") } else { String::new() };
    // Where a run commits, its latency is its commits': a column says whose, and each I/O's
    // mean follows.
    let commits = v.runs.iter().any(|r| r.latency_of == LatencyOf::Commit);
    let of = |text: &str| if commits { format!(" {text:<6}") } else { String::new() };
    let beside = |text: String| if commits { format!(" {text:>10}") } else { String::new() };
    let _ = writeln!(
        out,
        "\n  {:>6} {:<24} {:>12}{}{} {:>10} {:>10}{}  status",
        "run",
        "point",
        v.counts.per_sec(),
        mb("MB/s".into()),
        of("of"),
        "avg",
        "p99",
        beside("I/O avg".into())
    );
    for r in &v.runs {
        let mut point = r.point.as_ref().map(Point::to_string).unwrap_or_default();
        if r.repeat > 1 {
            let _ = write!(point, " #{}", r.repeat);
        }
        let io_mean = match r.latency_of {
            LatencyOf::Commit => format_latency_opt(r.latency.then_some(r.latency_mean_ns)),
            LatencyOf::Io => String::new(),
        };
        let _ = writeln!(
            out,
            "  {:>6} {:<24} {:>12}{}{} {:>10} {:>10}{}  {}",
            r.id,
            point,
            r.iops.map_or("-".to_string(), crate::figures::rate_text),
            mb(crate::figures::rate_text(r.mb_per_sec)),
            of(crate::lead::of_text(r.latency_of)),
            format_latency_opt(r.latency.then_some(r.lead_latency_mean_ns)),
            format_latency_opt(r.latency.then_some(r.lead_latency_p99_ns as f64)),
            beside(io_mean),
            r.status
        );
    }
    let mut bytes = out.into_bytes();
    match &v.findings {
        Findings::Sweep { param, curve, .. } => bytes.extend(crate::render_sweep(param, curve, v.counts)),
        Findings::Repeat { spread } => bytes.extend(render_spread(spread, v.counts)),
        Findings::Ab { comparison } => {
            let (a, b) = v.name.strip_prefix("ab ").and_then(|n| n.split_once(' ')).unwrap_or(("A", "B"));
            bytes.push(b'\n');
            bytes.extend(crate::render_compare(comparison, a, b));
        }
        Findings::Suite => {}
        Findings::Check { findings, curve, stopped, .. } => {
            if let Some(stopped) = stopped {
                bytes.extend(format!("\n{stopped}; the findings cover those alone\n").into_bytes());
            }
            bytes.extend(render_check_findings(findings));
            if !curve.is_empty() {
                bytes.extend(crate::render_sweep("depth", curve, Counts::Ios));
            }
        }
    }
    bytes
}

fn render_spread(spread: &[Spread], counts: Counts) -> Vec<u8> {
    let mut out = String::from("\nrepeats:\n");
    let _ = writeln!(out, "  {:<13} {:>12} {:>12} {:>8} {:>12} {:>12}", "metric", "mean", "stddev", "cv", "min", "max");
    for s in spread {
        let show = |x: f64| crate::compare::metric_value(s.metric, x);
        let _ = writeln!(
            out,
            "  {:<13} {:>12} {:>12} {:>7.1}% {:>12} {:>12}",
            s.metric.label(counts),
            show(s.mean),
            show(s.stddev),
            s.cv_pct,
            show(s.min),
            show(s.max)
        );
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::fixtures::io_run;

    fn input<'a>(
        kind: GroupKind,
        name: &'a str,
        runs: Vec<(i64, Option<&'a Point>, u32, &'a RunRecord)>,
    ) -> GroupInput<'a> {
        GroupInput { id: 7, kind, name, created_at: "2026-11-23T10:00:00Z", summary: None, runs }
    }

    #[test]
    fn a_sweep_group_shows_its_curve_and_knee() {
        let levels = [(1, 100.0, 100), (2, 190.0, 105), (4, 360.0, 110), (8, 380.0, 210), (16, 390.0, 410)];
        let runs: Vec<(Point, RunRecord)> = levels
            .iter()
            .map(|(d, iops, lat)| (Point::sweep("depth", d.to_string()), io_run(&[*iops; 3], lat * 1000, &[])))
            .collect();
        let rows = runs.iter().enumerate().map(|(i, (p, r))| (i as i64 + 1, Some(p), 1, r)).collect();
        let v = group_view(&input(GroupKind::Sweep, "--sweep depth=1,2,...,16", rows));
        let Findings::Sweep { param, curve, knee } = &v.findings else { panic!("{:?}", v.findings) };
        assert_eq!((param.as_str(), curve.len(), knee.as_deref()), ("depth", 5, Some("4")));
        let text = String::from_utf8(render_group(&v)).unwrap();
        assert!(text.starts_with("group 7: sweep") && text.contains("knee: about depth=4"), "{text}");
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["findings"]["kind"], "sweep");
        assert_eq!(json["findings"]["knee"], "4");
        assert_eq!((&json["kind"], &json["runs"][0]["point"]), (&"sweep".into(), &"depth=1".into()), "as stored");
    }

    /// A large operations' group: a run per operation, no curve or knee over them, no rate
    /// for the checkpoint and no latencies.
    #[test]
    fn a_large_operations_group_is_its_run_table() {
        use spindle_model::KindData;
        use spindle_model::db::LargeOpFigures;
        let runs: Vec<(Point, RunRecord)> = ["load", "checkpoint"]
            .iter()
            .map(|op| {
                let figures = LargeOpFigures { operation: op.to_string(), ..LargeOpFigures::default() };
                let mut r = io_run(&[500.0; 3], 1000, &[]);
                r.details = KindData::LargeOps { spec: Default::default(), figures };
                r.counts = Counts::Rows;
                (Point::sweep("op", *op), r)
            })
            .collect();
        let rows = runs.iter().enumerate().map(|(i, (p, r))| (i as i64 + 1, Some(p), 1, r)).collect();
        let v = group_view(&input(GroupKind::Sweep, "largeops --rows 1000", rows));
        assert!(matches!(v.findings, Findings::Suite), "{:?}", v.findings);
        let text = String::from_utf8(render_group(&v)).unwrap();
        let row = |op: &str| -> Vec<String> {
            let line = text.lines().find(|l| l.contains(op)).unwrap();
            line.split_whitespace().map(str::to_string).collect()
        };
        assert_eq!(row("op=load")[2..5], ["500", "-", "-"], "{text}");
        assert_eq!(row("op=checkpoint")[2..5], ["-", "-", "-"], "{text}");
        assert!(!text.contains("knee") && !text.contains("IOs/sec"), "{text}");
    }

    /// A check that stopped early says so in its group, how far it got and why, as its summary
    /// keeps it; a whole check (or one an older spindle kept) says nothing of the kind.
    #[test]
    fn a_check_group_says_it_stopped_early_when_its_summary_does() {
        let run = io_run(&[500.0; 3], 1000, &[]);
        let point = Point::sweep("depth", "1");
        let view = |summary: &serde_json::Value| {
            let g = GroupInput {
                summary: Some(summary),
                ..input(GroupKind::Check, "check /data", vec![(1, Some(&point), 1, &run)])
            };
            let v = group_view(&g);
            (String::from_utf8(render_group(&v)).unwrap(), serde_json::to_value(&v).unwrap())
        };
        let stopped = serde_json::json!({"findings": [], "stopped": {"why": "interrupted", "steps": 3, "of": 13}});
        let (text, json) = view(&stopped);
        assert!(
            text.contains("\nstopped early (interrupted): 3 of 13 steps measured; the findings cover those alone\n"),
            "{text}"
        );
        assert_eq!(json["findings"]["stopped"], stopped["stopped"]);
        let (text, json) = view(&serde_json::json!({"findings": []}));
        assert!(!text.contains("stopped") && json["findings"].get("stopped").is_none(), "{text}");
    }

    #[test]
    fn repeat_and_ab_groups_show_their_spread_and_comparison() {
        let runs: Vec<RunRecord> = [990.0, 1010.0].iter().map(|l| io_run(&[*l; 3], 100_000, &[])).collect();
        let rows = runs.iter().enumerate().map(|(i, r)| (i as i64 + 1, None, i as u32 + 1, r)).collect();
        let v = group_view(&input(GroupKind::Repeat, "--repeat 2", rows));
        let text = String::from_utf8(render_group(&v)).unwrap();
        assert!(text.contains("repeats:") && text.contains("IOPS"), "{text}");

        let ab: Vec<RunRecord> = [("a", "1", 400.0), ("b", "1", 800.0), ("b", "2", 800.0), ("a", "2", 400.0)]
            .iter()
            .map(|(side, round, iops)| io_run(&[*iops; 3], 100_000, &[("ab", side), ("round", round)]))
            .collect();
        let rows = ab.iter().enumerate().map(|(i, r)| (i as i64 + 1, None, 1, r)).collect();
        let v = group_view(&input(GroupKind::Ab, "ab a.toml b.toml", rows));
        let Findings::Ab { comparison } = &v.findings else { panic!() };
        assert_eq!((comparison.a_runs.as_slice(), comparison.b_runs.as_slice()), (&[1, 4][..], &[2, 3][..]));
        let text = String::from_utf8(render_group(&v)).unwrap();
        assert!(text.contains("A: a.toml") && text.contains("B outperforms A by 100.00% IOPS"), "{text}");
    }

    #[test]
    fn an_ab_group_is_judged_again_with_the_threshold_its_summary_holds() {
        let ab: Vec<RunRecord> = [("a", "1"), ("b", "1")]
            .iter()
            .map(|(side, round)| io_run(&[500.0; 3], 100_000, &[("ab", side), ("round", round)]))
            .collect();
        // As `spindle ab` has always stored it (the comparison cut short).
        let stored: serde_json::Value = serde_json::from_str(
            r#"{"a":"a.toml","b":"b.toml","comparison":{"headline":"h","threshold_pct":12.5},"order":"A B"}"#,
        )
        .unwrap();
        let threshold = |summary: Option<&serde_json::Value>| {
            let rows = ab.iter().enumerate().map(|(i, r)| (i as i64 + 1, None, 1, r)).collect();
            let v = group_view(&GroupInput { summary, ..input(GroupKind::Ab, "ab a.toml b.toml", rows) });
            let Findings::Ab { comparison } = v.findings else { panic!() };
            comparison.threshold_pct
        };
        assert_eq!(threshold(Some(&stored)), 12.5);
        assert_eq!(threshold(None), spindle_analysis::compare::DEFAULT_THRESHOLD_PCT);
    }
}
