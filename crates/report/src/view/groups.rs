//! A section per group the runs were made in, with what the group says as a whole, from the
//! same `group_view` the text output uses: a sweep's curve with its knee, the log test's MB/s
//! against transaction size with the optimum, repeats' spread, an A/B comparison's changes with
//! their simultaneous intervals, on a ratio scale with the threshold band.

use super::{Chart, ChartKind, Section, Series, Table};
use crate::document::{Document, ReportGroup, ReportRun};
use crate::figures::Cell;
use crate::group::{CheckFinding, Findings, GroupInput, GroupView, group_view};
use serde::Deserialize;
use serde::de::IgnoredAny;
use spindle_analysis::check_summary::KeptCheck;
use spindle_analysis::compare::{Comparison, Metric, words};
use spindle_analysis::curve::CurvePoint;
use spindle_model::group::{GroupKind, Point};
use spindle_model::group_summary::LogTestSummary;
use spindle_model::record::LatencyOf;
use spindle_model::{RunKind, RunRecord};

pub fn sections(doc: &Document) -> Vec<Section> {
    doc.groups.iter().map(|g| section(doc, g)).collect()
}

fn section(doc: &Document, g: &ReportGroup) -> Section {
    let members: Vec<_> = doc.runs.iter().filter(|r| r.group == Some(g.id) && r.id.is_some()).collect();
    let input = GroupInput {
        id: g.id,
        kind: g.kind,
        name: &g.name,
        created_at: &g.created_at,
        summary: g.summary.as_ref(),
        runs: members.iter().map(|r| (r.id.unwrap_or_default(), r.point.as_ref(), r.repeat, &r.record)).collect(),
    };
    let view = group_view(&input);
    let mut section = Section {
        anchor: format!("group-{}", g.id),
        level: 2,
        title: format!("Group {}: {} ({})", g.id, kind_title(g.kind), g.name),
        ..Section::default()
    };
    // What the group found leads; its runs follow.
    let runs = runs_table(&view);
    let records: Vec<&RunRecord> = members.iter().map(|r| &r.record).collect();
    if !records.is_empty() && records.iter().all(|r| r.kind() == RunKind::LogTest) {
        let summary = g.summary.as_ref().and_then(|s| LogTestSummary::deserialize(s).ok());
        log_test(
            &mut section,
            &records,
            summary.as_ref().and_then(LogTestSummary::optimum),
            summary.as_ref().and_then(LogTestSummary::why),
        );
        section.tables.push(runs);
        return section;
    }
    match &view.findings {
        Findings::Sweep { param, curve, knee } => sweep(&mut section, &view, param, curve, knee.as_deref()),
        Findings::Repeat { spread } => {
            let mut t = Table::new("Spread of the repeats", &["metric", "mean", "stddev", "cv", "min", "max"]);
            for s in spread {
                let show = |x: f64| metric_cell(s.metric, x);
                t.rows.push(vec![
                    Cell::text(s.metric.label(view.counts)),
                    show(s.mean),
                    show(s.stddev),
                    Cell::pct(s.cv_pct),
                    show(s.min),
                    show(s.max),
                ]);
            }
            section.tables.push(t);
        }
        Findings::Ab { comparison } => ab(&mut section, comparison),
        Findings::Suite if g.kind == GroupKind::Suite => suite(&mut section, doc, g),
        Findings::Suite => {}
        Findings::Check { findings, curve, knee, stopped } => {
            if let Some(stopped) = stopped {
                section.notes.push(format!("This check {stopped}; the findings cover those alone."));
            }
            check(&mut section, findings);
            if !curve.is_empty() {
                sweep(&mut section, &view, "depth", curve, knee.as_deref());
            }
            let logs: Vec<&RunRecord> = records.iter().copied().filter(|r| r.kind() == RunKind::LogTest).collect();
            if !logs.is_empty() {
                // The check keeps the optimum with the rest of its evidence, and its finding
                // says why there is none.
                let why = findings.iter().find(|f| f.rule == "log-optimum").map(|f| f.text.clone());
                let kept_optimum =
                    |s| KeptCheck::<IgnoredAny>::of(s).evidence.and_then(|e| e.log).and_then(|l| l.optimum);
                let (optimum, why) = match g.summary.as_ref().map(kept_optimum) {
                    Some(optimum) => (optimum, why.filter(|_| optimum.is_none())),
                    None => (None, None),
                };
                log_test(&mut section, &logs, optimum, why.as_deref());
            }
        }
    }
    section.tables.push(runs);
    section
}

/// What a group of this kind is, as a heading calls it (`ab` is the command's name, not what
/// its runs are).
pub fn kind_title(kind: GroupKind) -> &'static str {
    match kind {
        GroupKind::Repeat => "repeats",
        GroupKind::Sweep => "sweep",
        GroupKind::Suite => "suite",
        GroupKind::Ab => "A/B comparison",
        GroupKind::Check => "check",
        GroupKind::Agents => "run by agents",
    }
}

/// A suite's SQLIO matrix (`spindle suite sqlserver`'s patterns x block sizes x threads x
/// outstanding I/Os), its table leading the group's section with a chart per measure. When the
/// report's I/O runs are the suite's and no others, the I/O runs' section has this very matrix,
/// and the group's section says so rather than show it twice.
fn suite(section: &mut Section, doc: &Document, g: &ReportGroup) {
    let io: Vec<(usize, &ReportRun)> =
        doc.runs.iter().enumerate().filter(|(_, r)| r.record.kind() == RunKind::Io).collect();
    let members: Vec<(usize, &ReportRun)> =
        io.iter().copied().filter(|(_, r)| r.group == Some(g.id) && r.id.is_some()).collect();
    if members.is_empty() {
        return;
    }
    if members.len() == io.len() {
        section.notes.push(format!(
            "The SQLIO matrix of these runs, with its charts, is in the {} section.",
            RunKind::Io.title()
        ));
        return;
    }
    let m = super::matrix::matrix(&members);
    section.charts = m.charts;
    section.tables.insert(0, m.table);
}

/// A check's findings, worst first, each with what it was held against, what that threshold
/// rests on (published, or spindle's own) and its document, and what to do.
fn check(section: &mut Section, findings: &[CheckFinding]) {
    let mut t = Table::new("Findings", &["level", "area", "finding", "threshold", "basis", "source", "what to do"]);
    for f in findings {
        t.rows.push(vec![
            Cell::text(f.level.clone()),
            Cell::text(f.area.clone()),
            Cell::text(f.text.clone()),
            Cell::text(f.threshold.clone().unwrap_or_default()),
            Cell::text(f.basis_words()),
            Cell::text(f.document_words()),
            Cell::text(f.advice.clone().unwrap_or_default()),
        ]);
    }
    // The finding, what it rests on and what to do are what a reader reads; the rest wraps
    // narrow beside them.
    t.wide = vec![2, 4, 6];
    // The findings lead the group's section, before its curves: they are its answer.
    section.tables.insert(0, t);
    section.lead_tables = 1;
}

/// The group's runs, each with the latency it leads with; where one commits, what each
/// run's latency is of and each I/O's mean beside it.
fn runs_table(v: &GroupView) -> Table {
    let commits = v.runs.iter().any(|r| r.latency_of == LatencyOf::Commit);
    let mut columns = vec!["run", "point", "repeat", "status", v.counts.per_sec(), "MB/s"];
    columns.extend(if commits { vec!["latency of", "mean", "p99", "I/O mean"] } else { vec!["mean", "p99"] });
    let mut t = Table::new("Runs", &columns);
    for r in &v.runs {
        let mut row = vec![
            Cell::number(format!("run {}", r.id), r.id as f64),
            Cell::text(r.point.as_ref().map(Point::to_string).unwrap_or_default()),
            Cell::count(r.repeat as u64),
            Cell::text(r.status.clone()),
            Cell::opt(r.iops, Cell::rate),
            Cell::rate(r.mb_per_sec),
        ];
        if commits {
            row.push(Cell::text(crate::lead::of_text(r.latency_of)));
        }
        row.extend([
            Cell::latency_if(r.latency, r.lead_latency_mean_ns),
            Cell::latency_if(r.latency, r.lead_latency_p99_ns as f64),
        ]);
        if commits {
            row.push(match r.latency_of {
                LatencyOf::Commit => Cell::latency_if(r.latency, r.latency_mean_ns),
                LatencyOf::Io => Cell::empty(),
            });
        }
        t.rows.push(row);
    }
    t
}

fn sweep(section: &mut Section, v: &GroupView, param: &str, curve: &[CurvePoint], knee: Option<&str>) {
    let categories: Vec<String> = curve.iter().map(|p| p.value.clone()).collect();
    let mark = knee.and_then(|k| categories.iter().position(|c| c == k)).map(|i| (i, "knee".to_string()));
    let rate = v.counts.per_sec();
    let mut throughput = Chart::new(format!("{rate} against {param}"), ChartKind::Line, param, rate);
    throughput.categories = categories.clone();
    throughput.series = vec![Series { name: rate.into(), values: curve.iter().map(|p| p.iops).collect() }];
    throughput.mark = mark.clone();
    let mut latency = Chart::new(format!("Mean latency against {param}"), ChartKind::Line, param, "ns");
    latency.categories = categories;
    latency.series =
        vec![Series { name: "mean latency".into(), values: curve.iter().map(|p| p.latency_mean_ns).collect() }];
    latency.latency = true;
    latency.mark = mark;
    section.charts = vec![throughput, latency];
    section.notes.push(format!("Knee: {}.", crate::sweep::knee_words(param, curve)));
    let mut t = Table::new("Curve", &[param, rate, "MB/s", "mean", "runs"]);
    for p in curve {
        let mut value = Cell::text(p.value.clone());
        if Some(p.value.as_str()) == knee {
            value.text.push_str(" (knee)");
        }
        t.rows.push(vec![
            value,
            Cell::rate(p.iops),
            Cell::rate(p.mb_per_sec),
            Cell::latency_ns(p.latency_mean_ns),
            Cell::count(p.runs as u64),
        ]);
    }
    section.tables.push(t);
}

/// "Transaction log performance" read off its graph: log MB/s against rows a transaction.
/// `optimum` and `why` as the log test's summary (or the check's evidence) says them.
fn log_test(section: &mut Section, records: &[&RunRecord], optimum: Option<u64>, why: Option<&str>) {
    let mut points: Vec<(u64, f64)> = records
        .iter()
        .filter_map(|r| r.details.log_test())
        .map(|f| (f.transaction_size, f.lead().mb_per_sec.unwrap_or(0.0)))
        .collect();
    points.sort_by_key(|p| p.0);
    let mut c = Chart::new("Log MB/s against transaction size", ChartKind::Line, "rows a transaction", "MB/s");
    c.categories = points.iter().map(|p| p.0.to_string()).collect();
    c.series = vec![Series { name: "log MB/s".into(), values: points.iter().map(|p| p.1).collect() }];
    c.mark = optimum.and_then(|o| points.iter().position(|p| p.0 == o)).map(|i| (i, "optimum".to_string()));
    section.charts.push(c);
    // The summary `spindle logtest` wrote says why its optimum, in the rule's words.
    section.notes.push(match (optimum, why) {
        (Some(_), Some(why)) => format!("Optimum: {why} (\"Transaction log performance\")."),
        (Some(o), None) => format!(
            "Optimum: {o} rows a transaction, the smallest within 10% of the best log MB/s (\"Transaction log performance\")."
        ),
        (None, Some(why)) => format!("No optimum: {why}."),
        (None, None) => "No optimum: fewer than two transaction sizes ran to the end.".into(),
    });
}

/// A comparison of any two selections as a section of its own (`spindle serve`'s compare
/// page), drawn as an A/B group's comparison is.
pub fn comparison_section(anchor: impl Into<String>, title: impl Into<String>, c: &Comparison) -> Section {
    let mut section = Section { anchor: anchor.into(), level: 2, title: title.into(), ..Section::default() };
    ab(&mut section, c);
    section
}

fn ab(section: &mut Section, c: &Comparison) {
    section.notes.push(c.headline.clone());
    section.notes.extend(c.notes.iter().cloned());
    section.notes.push(format!("Method: {}.", c.method));
    section.notes.push(format!("{}.", crate::compare::means_note(c)));
    let level = words::confidence_text(c.interval_confidence);
    let title = format!("B against A, with simultaneous {level} intervals");
    let mut chart = Chart::new(title, ChartKind::Interval, "metric", "change %");
    chart.band = Some(c.threshold_pct);
    let interval = format!("{level} interval");
    let mut t = Table::new(
        "Comparison",
        &["metric", "A geomean", "B geomean", "B vs A", &interval, "p (Bonferroni)", "verdict"],
    );
    for m in &c.metrics {
        let label = m.metric.label(c.counts);
        if let Some(ci) = m.ci_pct {
            chart.categories.push(label.to_string());
            chart.intervals.push(ci);
        }
        let verdict = m.verdict_words();
        let (a, b, geometric) = m.change_means();
        let mean_cell = |v: f64| {
            let mut cell = metric_cell(m.metric, v);
            if !geometric {
                cell.text.push_str(crate::compare::ARITHMETIC_MARK);
            }
            cell
        };
        t.rows.push(vec![
            Cell::text(label),
            mean_cell(a),
            mean_cell(b),
            Cell::change_pct(m.change_pct),
            Cell::text(m.ci_pct.map(words::interval).unwrap_or_else(|| "-".into())),
            Cell::opt(m.p_adjusted, |p| Cell::number(if p < 0.001 { "<0.001".into() } else { format!("{p:.3}") }, p)),
            Cell::text(verdict),
        ]);
    }
    chart.series = vec![Series {
        name: "change %".into(),
        values: c.metrics.iter().filter(|m| m.ci_pct.is_some()).map(|m| m.change_pct).collect(),
    }];
    if !chart.categories.is_empty() {
        section.charts.push(chart);
    }
    section.tables.push(t);
    if !c.confounders.is_empty() {
        let mut t = Table::new("What else differs between A and B", &["area", "key", "A", "B", "what it means"]);
        for x in &c.confounders {
            t.rows.push(vec![
                Cell::text(x.area),
                Cell::text(x.key.clone()),
                Cell::text(x.a.join(", ")),
                Cell::text(x.b.join(", ")),
                Cell::text(x.meaning.unwrap_or_default()),
            ]);
        }
        section.tables.push(t);
    }
}

/// A metric's figure: times in their unit, rates as rates.
fn metric_cell(metric: Metric, v: f64) -> Cell {
    if metric.is_time() { Cell::latency_ns(v) } else { Cell::rate(v) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(optimum: Option<u64>, why: Option<&str>) -> String {
        let mut section = Section::default();
        log_test(&mut section, &[], optimum, why);
        section.notes.pop().unwrap()
    }

    #[test]
    fn the_log_tests_note_says_the_optimum_and_why_as_its_summary_does() {
        let summary: LogTestSummary = serde_json::from_value(serde_json::json!({
            "optimum_transaction_size": 64, "rule": "r", "why": "64 rows a transaction, within 10% of the best", "from": "sdb"
        }))
        .unwrap();
        assert_eq!(
            note(summary.optimum(), summary.why()),
            "Optimum: 64 rows a transaction, within 10% of the best (\"Transaction log performance\")."
        );
        assert!(note(Some(64), None).starts_with("Optimum: 64 rows a transaction, the smallest within 10%"));
        assert_eq!(note(None, Some("still rising at 1024 rows")), "No optimum: still rising at 1024 rows.");
        assert_eq!(note(None, None), "No optimum: fewer than two transaction sizes ran to the end.");
    }
}
