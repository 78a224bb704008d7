//! Each view of a run that commits leads with its commit latency and shows each I/O's beside
//! it, named; a run that commits nothing is shown as before. The fixture's commits take ten
//! times its I/Os, so a view that shows one for the other fails.

use crate::document::{Document, ReportGroup, ReportRun};
use crate::format::Format;
use crate::group::{GroupInput, group_view, render_group};
use crate::view::{Cell, Table, matrix, report_view};
use spindle_model::fixtures::io_run;
use spindle_model::group::{GroupKind, Point};
use spindle_model::record::OpStats;
use spindle_model::units::format_latency_ns;
use spindle_model::{Histogram, RunRecord};

/// Each I/O about 31 us, each commit (the write and its flush) about 311 us.
fn committed() -> RunRecord {
    let mut r = io_run(&[500.0; 2], 25_000, &[]);
    let mut h = Histogram::new();
    for k in 0..1_000 {
        h.record(250_000 + k % 50 * 2_500);
    }
    for s in [&mut r.summary, &mut r.targets[0].stats, &mut r.threads[0].stats] {
        s.commit = OpStats::of(&h);
    }
    r
}

fn plain() -> RunRecord {
    io_run(&[500.0; 2], 25_000, &[])
}

/// Means of the fixture's commits and of its I/Os, tenfold apart.
fn means() -> (f64, f64) {
    let r = committed();
    let (commit, io) = (r.summary.commit.latency_ns.mean, r.summary.latency_ns.mean);
    assert!(commit > 9.0 * io, "the fixture keeps them apart: {commit} {io}");
    assert_eq!(plain().summary.latency_ns.mean, io, "the plain run's I/Os are the committed run's");
    (commit, io)
}

/// Run 1 commits, run 2 does not: a suite's two members.
fn suite() -> Document {
    let run = |id, name: &str, record| ReportRun {
        id: Some(id),
        group: Some(7),
        point: Some(Point::Member(name.into())),
        repeat: 1,
        record,
    };
    Document {
        runs: vec![run(1, "wal-write", committed()), run(2, "page-read", plain())],
        groups: vec![ReportGroup {
            id: 7,
            kind: GroupKind::Suite,
            name: "suite postgres".into(),
            created_at: "2026-11-26T20:00:00Z".into(),
            summary: None,
        }],
        ..Document::default()
    }
}

fn only_plain() -> Document {
    let mut doc = suite();
    doc.runs.remove(0);
    doc
}

fn column(t: &Table, name: &str) -> usize {
    t.columns.iter().position(|c| c == name).unwrap_or_else(|| panic!("no {name} in {:?}", t.columns))
}

fn value(t: &Table, row: usize, name: &str) -> Option<f64> {
    t.rows[row][column(t, name)].value
}

#[test]
fn the_text_report_and_the_overview_lead_with_the_commit_latency() {
    let (commit, io) = means();
    let text = String::from_utf8(crate::render_text(&[committed()])).unwrap();
    let lead = text.find(&format!("Avg_Latency: {}", format_latency_ns(commit))).expect(&text);
    assert!(text[..lead].contains("commits (each write-through write): 1000"), "{text}");
    let rows = [("wal".to_string(), &committed()), ("read".to_string(), &plain())];
    let overview = String::from_utf8(crate::render_overview(&rows)).unwrap();
    let avg =
        |name: &str| overview.lines().find(|l| l.trim_start().starts_with(name)).unwrap().split_whitespace().nth(3);
    assert_eq!(avg("wal"), Some(format_latency_ns(commit).as_str()), "{overview}");
    assert_eq!(avg("read"), Some(format_latency_ns(io).as_str()), "{overview}");
}

#[test]
fn the_csv_says_whose_latency_leads_and_keeps_each_ios_in_lat() {
    let (commit, io) = means();
    let csv = String::from_utf8(crate::render_csv(&suite())).unwrap();
    let lines: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    let at = |name: &str| lines[0].iter().position(|h| *h == name).unwrap_or_else(|| panic!("{name}"));
    assert!(at("latency_of") < at("lat_mean_ns"), "the lead comes first: {}", lines[0].join(","));
    let total = |id: &str| lines.iter().find(|l| l[0] == id && l[4] == "total").unwrap();
    let (wal, read) = (total("1"), total("2"));
    assert_eq!(wal[at("latency_of")], "commit");
    assert_eq!(wal[at("lead_mean_ns")], format!("{commit:.1}"));
    assert_eq!(wal[at("lead_p99_ns")], committed().summary.commit.latency_ns.p99.to_string());
    assert_eq!(wal[at("lat_mean_ns")], format!("{io:.1}"), "lat_* keep each I/O's");
    assert_eq!(read[at("latency_of")], "io");
    assert_eq!(read[at("lead_mean_ns")], format!("{io:.1}"));
    assert_eq!(read[at("lat_mean_ns")], format!("{io:.1}"));
}

#[test]
fn the_kinds_table_leads_with_commits_and_names_each_ios_beside() {
    let (commit, io) = means();
    let v = report_view(&suite());
    let table = &v.sections.iter().find(|s| s.anchor == "kind-io").unwrap().tables[0];
    let at = column(table, "latency of");
    assert_eq!([column(table, "mean"), column(table, "I/O mean")], [at + 1, at + 4], "{:?}", table.columns);
    assert_eq!(table.rows[0][at].text, "commit");
    assert_eq!(value(table, 0, "mean"), Some(commit));
    assert_eq!(value(table, 0, "I/O mean"), Some(io));
    assert_eq!(table.rows[1][at].text, "I/O");
    assert_eq!(value(table, 1, "mean"), Some(io));
    assert_eq!(table.rows[1][column(table, "I/O mean")].text, "", "nothing beside each I/O's own");
    let unchanged = report_view(&only_plain());
    let table = &unchanged.sections.iter().find(|s| s.anchor == "kind-io").unwrap().tables[0];
    assert!(!table.columns.iter().any(|c| c == "latency of" || c == "I/O mean"), "{:?}", table.columns);
    assert_eq!(value(table, 0, "mean"), Some(io));
}

#[test]
fn the_matrix_and_its_latency_rankings_lead_with_commits() {
    let (commit, io) = means();
    let doc = suite();
    let runs: Vec<(usize, &ReportRun)> = doc.runs.iter().enumerate().collect();
    let m = matrix::matrix(&runs);
    assert_eq!(m.table.columns, matrix::columns(true));
    let ms = |row, name| value(&m.table, row, name).unwrap() * 1e6;
    assert!((ms(0, "average latency (ms)") - commit).abs() < 1.0, "{}", ms(0, "average latency (ms)"));
    assert!((ms(0, matrix::IO_AVERAGE) - io).abs() < 1.0);
    assert!((ms(1, "average latency (ms)") - io).abs() < 1.0);
    assert_eq!(m.table.rows[0][column(&m.table, matrix::LATENCY_OF)].text, "commit");
    let average = m.charts.iter().find(|c| c.title.starts_with("Average latency")).unwrap();
    assert_eq!(average.categories, ["run 2: page-read", "run 1: wal-write (commit)"]);
    assert_eq!(average.series[0].values[1] * 1e6, commit);
    let iops = m.charts.iter().find(|c| c.title.starts_with("IOPS")).unwrap();
    assert!(iops.categories.iter().all(|c| !c.contains("commit")), "{:?}", iops.categories);
    let doc = only_plain();
    let runs: Vec<(usize, &ReportRun)> = doc.runs.iter().enumerate().collect();
    assert_eq!(matrix::matrix(&runs).table.columns, matrix::COLUMNS, "no commits, the matrix as it was");
}

#[test]
fn a_runs_figures_lead_with_commits_and_chart_both_percentiles() {
    let (commit, io) = means();
    let v = report_view(&suite());
    let run = |anchor: &str| v.sections.iter().find(|s| s.anchor == anchor).unwrap();
    let figures = &run("run-1").tables[0];
    let names: Vec<&str> = figures.rows.iter().map(|r| r[0].text.as_str()).collect();
    let at = |name: &str| names.iter().position(|n| *n == name).unwrap_or_else(|| panic!("{name}: {names:?}"));
    assert!(at("commit latency mean") < at("I/O latency mean"), "{names:?}");
    assert_eq!(figures.rows[at("commit latency mean")][1].value, Some(commit));
    assert_eq!(figures.rows[at("I/O latency mean")][1].value, Some(io));
    let percentiles = run("run-1").charts.iter().find(|c| c.title == "Latency percentiles").unwrap();
    let series: Vec<&str> = percentiles.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(series, ["commit", "I/O"]);
    assert!(percentiles.series[0].values[0] > 5.0 * percentiles.series[1].values[0], "{percentiles:?}");
    let figures = &run("run-2").tables[0];
    let mean = figures.rows.iter().find(|r| r[0].text == "latency mean").expect("named as before");
    assert_eq!(mean[1].value, Some(io));
    assert!(!figures.rows.iter().any(|r| r[0].text.contains("commit")));
    let threads = run("run-1").tables.iter().find(|t| t.title == "Threads");
    assert!(threads.is_none(), "one thread, no table");
}

#[test]
fn a_suites_group_leads_with_commits_in_text_json_and_its_table() {
    let (commit, io) = means();
    let (wal, read) = (committed(), plain());
    let (a, b) = (Point::Member("wal-write".into()), Point::Member("page-read".into()));
    let input = GroupInput {
        id: 7,
        kind: GroupKind::Suite,
        name: "suite postgres",
        created_at: "2026-11-26T20:00:00Z",
        summary: None,
        runs: vec![(1, Some(&a), 1, &wal), (2, Some(&b), 1, &read)],
    };
    let view = group_view(&input);
    let text = String::from_utf8(render_group(&view)).unwrap();
    let row = |name: &str| -> Vec<String> {
        text.lines().find(|l| l.contains(name)).unwrap().split_whitespace().map(String::from).collect()
    };
    let wal_row = row("wal-write");
    assert_eq!([&wal_row[4], &wal_row[5], &wal_row[7]], ["commit", &format_latency_ns(commit), &format_latency_ns(io)]);
    assert_eq!(row("page-read")[4..6], ["I/O".to_string(), format_latency_ns(io)], "{text}");
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["runs"][0]["latency_of"], "commit");
    assert_eq!(json["runs"][0]["lead_latency_mean_ns"], commit);
    assert_eq!(json["runs"][0]["latency_mean_ns"], io, "the field keeps its meaning");
    assert_eq!(json["runs"][1]["latency_of"], "io");
    let v = report_view(&suite());
    let group = v.sections.iter().find(|s| s.anchor == "group-7").unwrap();
    let runs = group.tables.iter().find(|t| t.title == "Runs").unwrap();
    assert_eq!(value(runs, 0, "mean"), Some(commit));
    assert_eq!(value(runs, 0, "I/O mean"), Some(io));
    assert_eq!(value(runs, 1, "mean"), Some(io));
}

#[test]
fn html_and_markdown_show_the_commit_latency_first() {
    let (commit, io) = means();
    let md = String::from_utf8(Format::Markdown.exporter().export(&suite()).unwrap()).unwrap();
    let row = md.lines().find(|l| l.starts_with("| run 1 |") && l.contains("| commit |")).expect(&md);
    // Each as the page shows it, in the page's one latency unit.
    let cells: Vec<Cell> =
        report_view(&suite()).sections.into_iter().flat_map(|s| s.tables).flat_map(|t| t.rows).flatten().collect();
    let text = |ns: f64| cells.iter().find(|c| c.unit == "ns" && c.value == Some(ns)).unwrap().text.clone();
    let (lead, beside) = (format!("| commit | {} |", text(commit)), format!("| {} |", text(io)));
    assert!(row.contains(&lead) && row.find(&lead) < row.rfind(&beside), "{row}");
    let html = String::from_utf8(Format::Html.exporter().export(&suite()).unwrap()).unwrap();
    assert!(html.contains("<th>latency of</th>") && html.contains("<th>I/O mean</th>"), "the table's headings");
}

#[test]
#[cfg(feature = "xlsx")]
fn the_workbook_leads_with_commits_as_numbers() {
    use spindle_testenv::xlsx::XCell;
    let (commit, io) = means();
    let bytes = Format::Xlsx.exporter().export(&suite()).unwrap();
    let sheets = spindle_testenv::xlsx::read(&bytes).unwrap();
    let io_sheet = &sheets.iter().find(|s| s.0 == "I O runs").unwrap().1;
    let header = io_sheet.find_row(&["run", "started"]).expect("the kind's table");
    let named = |name: &str| {
        (0..40)
            .find(|&c| io_sheet.get(header, c).and_then(XCell::text) == Some(name))
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(io_sheet.get(header + 1, named("latency of")), Some(&XCell::Text("commit".into())));
    assert_eq!(io_sheet.get(header + 1, named("mean (ns)")), Some(&XCell::Number(commit)));
    assert_eq!(io_sheet.get(header + 1, named("I/O mean (ns)")), Some(&XCell::Number(io)));
    assert_eq!(io_sheet.get(header + 2, named("mean (ns)")), Some(&XCell::Number(io)));
}
