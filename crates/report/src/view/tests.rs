use super::*;
use crate::document::{ReportGroup, ReportRun};
use crate::format::Format;
use spindle_model::db_spec::HammerSpec;
use spindle_model::fixtures::{io_run, record};
use spindle_model::group::{GroupKind, Point};
use spindle_model::{KindData, RunKind, RunRecord};

fn stored(id: i64, group: Option<i64>, point: Option<Point>, record: RunRecord) -> ReportRun {
    ReportRun { id: Some(id), group, point, repeat: 1, record }
}

/// A sweep of depth, an A/B pair of rounds, a Hammer run, and a run with a hostile label.
pub(crate) fn sample() -> Document {
    let mut runs = Vec::new();
    for (i, (d, iops, lat)) in [(1, 100.0, 100), (2, 190.0, 105), (4, 360.0, 110), (8, 380.0, 210)].iter().enumerate() {
        runs.push(stored(
            i as i64 + 1,
            Some(1),
            Some(Point::sweep("depth", d.to_string())),
            io_run(&[*iops; 5], lat * 1000, &[]),
        ));
    }
    for (i, (side, round, iops)) in
        [("a", "1", 400.0), ("b", "1", 800.0), ("b", "2", 810.0), ("a", "2", 395.0)].iter().enumerate()
    {
        runs.push(stored(i as i64 + 5, Some(2), None, io_run(&[*iops; 5], 100_000, &[("ab", side), ("round", round)])));
    }
    let mut hammer = io_run(&[3000.0; 5], 300_000, &[]);
    hammer.details = KindData::Hammer { spec: HammerSpec { engine: "sqlite".into(), ..HammerSpec::default() } };
    hammer.counts = RunKind::Hammer.counts();
    runs.push(stored(9, None, None, hammer));
    let mut hostile = record();
    hostile.labels.insert("note".into(), "<script>alert(1)</script>".into());
    runs.push(stored(10, None, None, hostile));
    let group = |id, kind: GroupKind, name: &str| ReportGroup {
        id,
        kind,
        name: name.into(),
        created_at: "2026-11-24T10:00:00Z".into(),
        summary: None,
    };
    Document {
        title: "test report".into(),
        generated_at: "2026-11-24T12:00:00Z".into(),
        runs,
        groups: vec![group(1, GroupKind::Sweep, "--sweep depth=1,2,4,8"), group(2, GroupKind::Ab, "ab a.toml b.toml")],
    }
}

#[test]
fn a_section_per_kind_group_and_run() {
    let v = report_view(&sample());
    let titles: Vec<&str> = v.sections.iter().map(|s| s.title.as_str()).collect();
    assert!(titles.contains(&"I/O runs") && titles.contains(&"Database Hammer runs"), "{titles:?}");
    assert!(titles.iter().any(|t| t.starts_with("Group 1: sweep")), "{titles:?}");
    assert_eq!(v.sections.iter().filter(|s| s.level == 3).count(), 10);
    let io = v.sections.iter().find(|s| s.anchor == "kind-io").unwrap();
    let charts: Vec<&str> = io.charts.iter().map(|c| c.title.as_str()).collect();
    assert_eq!(
        charts,
        [
            "MB/s, highest first",
            "IOPS, highest first",
            "Average latency (ms), lowest first",
            "p99 latency (ms), lowest first"
        ]
    );
    let bw = &io.charts[0].series[0].values;
    assert!(bw.windows(2).all(|w| w[0] >= w[1]), "bandwidth is sorted: {bw:?}");
    let tables: Vec<&str> = io.tables.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(tables, ["I/O runs (9)", "SQLIO matrix (9 runs)"]);
    let sweep = v.sections.iter().find(|s| s.anchor == "group-1").unwrap();
    assert_eq!(sweep.charts[0].mark, Some((2, "knee".to_string())), "the knee is marked at depth=4");
    let ab = v.sections.iter().find(|s| s.anchor == "group-2").unwrap();
    assert_eq!(ab.charts[0].kind, ChartKind::Interval);
    assert!(ab.notes[0].contains("B outperforms A"), "{:?}", ab.notes);
    let hammer = v.sections.iter().find(|s| s.anchor == "kind-hammer").unwrap();
    assert!(hammer.tables[0].columns.contains(&"calls/s".to_string()));
    assert!(!hammer.tables[0].columns.iter().any(|c| c == "IOPS" || c == "MB/s"), "Hammer speaks calls");
}

#[test]
fn html_is_self_contained_and_escapes_what_runs_say() {
    let html = String::from_utf8(Format::Html.exporter().export(&sample()).unwrap()).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
    assert!(!html.contains("<script"), "a label's markup is shown as text");
    // As text, where a long word may break (`<wbr>`).
    assert!(html.replace("<wbr>", "").contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("src="), "nothing is fetched");
    assert!(html.matches("<svg").count() >= 8, "charts drawn inline");
    assert!(html.contains("knee"));
}

#[test]
fn markdown_and_csv_carry_the_same_runs() {
    let doc = sample();
    let md = String::from_utf8(Format::Markdown.exporter().export(&doc).unwrap()).unwrap();
    assert!(md.contains("## I/O runs") && md.contains("| run 10 |"), "{md}");
    assert!(md.contains("&lt;script&gt;"), "markup is not passed through");
    let csv = String::from_utf8(Format::Csv.exporter().export(&doc).unwrap()).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("10,")), "rows carry run ids");
}

#[test]
#[cfg(feature = "xlsx")]
fn xlsx_has_a_sheet_per_section_and_native_charts() {
    let bytes = Format::Xlsx.exporter().export(&sample()).unwrap();
    assert_eq!(&bytes[..2], b"PK", "a zip container");
    let names = String::from_utf8_lossy(&bytes);
    for part in ["xl/charts/chart1.xml", "xl/charts/chart3.xml", "xl/worksheets/sheet2.xml", "xl/drawings/drawing1.xml"]
    {
        assert!(names.contains(part), "missing {part}");
    }
}

/// 200 runs of an hour each, with 20 counters sampled every second: the page stays small
/// enough to mail and open at once (series are thinned to what a chart can show).
#[test]
fn a_report_of_200_long_runs_stays_under_5_mb() {
    use spindle_model::counters::{CounterLog, CounterSeries};
    let seconds = 3600;
    let mut run = io_run(&vec![1000.0; seconds], 200_000, &[("raid", "10")]);
    run.counters = Some(CounterLog {
        interval_seconds: 1.0,
        t: (1..=seconds).map(|s| s as f64).collect(),
        counters: (0..20)
            .map(|c| {
                CounterSeries::new(format!("\\PhysicalDisk(vd{c})\\Disk Reads/sec"), vec![Some(123.456789); seconds])
            })
            .collect(),
    });
    let doc =
        Document { runs: (0..200).map(|i| stored(i + 1, None, None, run.clone())).collect(), ..Document::default() };
    let html = Format::Html.exporter().export(&doc).unwrap();
    assert!(html.len() < 5_000_000, "{} bytes", html.len());
}

/// Runs imported from other tools' files were made on machines their files do not name: the
/// overview counts them apart from the runs on this report's hosts, never as runs on them.
#[test]
fn the_overview_counts_imported_runs_apart_from_this_hosts() {
    let imported = |tool: &str| {
        let mut r = io_run(&[100.0; 3], 100_000, &[]);
        r.environment.hostname = String::new();
        let origin = spindle_model::Origin { tool: tool.into(), ..Default::default() };
        r.details = KindData::Imported { origin, spec: spindle_model::ImportedSpec::default() };
        r
    };
    let doc = |records: Vec<RunRecord>| Document {
        runs: records.into_iter().enumerate().map(|(i, r)| stored(i as i64 + 1, None, None, r)).collect(),
        ..Document::default()
    };
    let mut mixed: Vec<RunRecord> = (0..34).map(|_| io_run(&[100.0; 3], 100_000, &[])).collect();
    mixed.extend((0..11).map(|i| imported(if i % 2 == 0 { "sqlio" } else { "fio" })));
    let first = report_view(&doc(mixed)).overview[0].clone();
    assert!(first.starts_with("45 runs"), "{first}");
    assert!(
        first.contains(": 34 on 1 host (db01), 11 imported from fio, sqlio result files, made on other machines"),
        "{first}"
    );
    assert!(!first.contains("45 runs on 1 host"), "{first}");

    let only = report_view(&doc(vec![imported("fio")])).overview[0].clone();
    assert!(only.starts_with("1 run imported from fio result files, made on other machines"), "{only}");
    let here = report_view(&doc(vec![io_run(&[100.0; 3], 100_000, &[])])).overview[0].clone();
    assert!(here.starts_with("1 run on 1 host (db01)"), "{here}");
}

/// `spindle suite sqlserver`'s 12 SQLIO runs (random and sequential, reads and writes, at
/// 8K, 64K, 512K and 256K with 8, 100 and 200 outstanding) in group 3, and, when `other`, an
/// I/O run outside the suite.
fn sqlio_suite(other: bool) -> Document {
    use spindle_model::spec::{MixEntry, TargetSpec, Workload};
    let mut runs = Vec::new();
    let shapes = [(8, 8), (64, 8), (512, 8), (8, 8), (256, 100), (256, 200)];
    for (i, (random, (kib, depth))) in [100u8, 0].iter().flat_map(|r| shapes.iter().map(move |s| (*r, *s))).enumerate()
    {
        let read = if i % 6 < 3 { 100 } else { 0 };
        // Each member's throughput and latency differ in their own order, so every chart ranks
        // the runs differently.
        let iops = 1000.0 + ((i * 7) % 12) as f64 * 150.0;
        let latency = 200_000 + ((i * 5) % 12) as u64 * 90_000;
        let mut rec = io_run(&[iops; 3], latency, &[]);
        let workload = Workload {
            mix: vec![MixEntry { block: kib << 10, weight: 1, read_pct: read, random_pct: random }],
            threads: 2,
            depth,
            rate_iops: None,
            buffered: false,
            write_through: false,
            fsync_every: 0,
        };
        let target = TargetSpec { path: "/mnt/t/spindle-test.dat".into(), size: 64 << 20, workload };
        rec.details = KindData::Io { spec: spindle_model::fixtures::job(vec![target]), verify: None };
        rec.summary.mb_per_sec = iops * (kib << 10) as f64 / 1e6;
        let access = if random == 100 { "random" } else { "seq" };
        let direction = if read == 100 { "read" } else { "write" };
        let name = format!("{access}-{kib}k-{direction}-o{depth}");
        runs.push(stored(i as i64 + 1, Some(3), Some(Point::Member(name)), rec));
    }
    if other {
        runs.push(stored(20, None, None, io_run(&[5000.0; 3], 100_000, &[])));
    }
    Document {
        title: "suite".into(),
        generated_at: "2026-11-24T12:00:00Z".into(),
        runs,
        groups: vec![ReportGroup {
            id: 3,
            kind: GroupKind::Suite,
            name: "suite sqlserver".into(),
            created_at: "2026-11-24T10:00:00Z".into(),
            summary: None,
        }],
    }
}

#[test]
fn a_suite_has_its_sqlio_matrix_once() {
    // The suite's runs and others: the group's section has the suite's own matrix, first.
    let v = report_view(&sqlio_suite(true));
    let group = v.sections.iter().find(|s| s.anchor == "group-3").unwrap();
    assert_eq!(group.tables[0].title, "SQLIO matrix (12 runs)");
    assert_eq!(group.tables[0].columns, matrix::COLUMNS);
    assert_eq!(group.charts.len(), 4);
    assert!(group.charts.iter().all(|c| c.categories.len() == 12));
    let io = v.sections.iter().find(|s| s.anchor == "kind-io").unwrap();
    assert_eq!(io.tables[1].title, "SQLIO matrix (13 runs)");

    // The suite's runs alone: the I/O runs' section has the matrix, and the group points there.
    let v = report_view(&sqlio_suite(false));
    let group = v.sections.iter().find(|s| s.anchor == "group-3").unwrap();
    assert!(group.charts.is_empty() && group.tables.iter().all(|t| !t.title.starts_with("SQLIO matrix")));
    assert!(group.notes.iter().any(|n| n.contains("SQLIO matrix") && n.contains("I/O runs")), "{:?}", group.notes);
    let io = v.sections.iter().find(|s| s.anchor == "kind-io").unwrap();
    assert_eq!(io.tables[1].title, "SQLIO matrix (12 runs)");
    // Every chart ranks by its own measure, so they order the runs differently.
    let orders: Vec<&Vec<String>> = io.charts.iter().map(|c| &c.categories).collect();
    assert_ne!(orders[0], orders[1], "IOPS is not ranked by bandwidth");
    assert_ne!(orders[1], orders[2], "latency is not ranked by IOPS");
}

#[test]
fn html_and_markdown_draw_the_matrix_from_the_one_table() {
    let doc = sqlio_suite(true);
    let html = String::from_utf8(Format::Html.exporter().export(&doc).unwrap()).unwrap();
    assert!(html.contains("<caption>SQLIO matrix (12 runs)</caption>"), "{html}");
    let header: String = matrix::COLUMNS.iter().map(|c| format!("<th>{}</th>", crate::html::escape::esc(c))).collect();
    assert!(html.contains(&header), "the matrix's header");
    assert!(html.contains("p99 latency (ms), lowest first"));
    let md = String::from_utf8(Format::Markdown.exporter().export(&doc).unwrap()).unwrap();
    assert!(md.contains("**SQLIO matrix (12 runs)**"));
    assert!(md.contains(&format!("| {} |", matrix::COLUMNS.join(" | "))), "{md}");
    assert!(md.contains("| run 5 | 2 | 100 | /mnt/t/spindle-test.dat | 64 | 3 | random write | 256 |"), "{md}");
}

#[test]
#[cfg(feature = "xlsx")]
fn the_workbooks_sqlio_matrix_is_numbers_with_a_ranked_chart_per_measure() {
    use spindle_testenv::xlsx::{Sheet, XCell};
    let bytes = Format::Xlsx.exporter().export(&sqlio_suite(true)).unwrap();
    let sheets = spindle_testenv::xlsx::read(&bytes).unwrap();
    let names: Vec<&str> = sheets.iter().map(|s| s.0.as_str()).collect();
    let group = &sheets.iter().find(|s| s.0.starts_with("Group 3")).unwrap_or_else(|| panic!("{names:?}")).1;
    // A sheet's name has no `/`.
    let io = &sheets.iter().find(|s| s.0 == "I O runs").unwrap_or_else(|| panic!("{names:?}")).1;
    let check = |sheet: &Sheet, runs: u32| {
        let header = sheet.find_row(&matrix::COLUMNS).expect("the matrix's header, exactly");
        for r in header + 1..=header + runs {
            for (c, name) in matrix::COLUMNS.iter().enumerate() {
                let cell = sheet.get(r, c as u32).unwrap_or_else(|| panic!("row {r} has no {name}"));
                match *name {
                    "run" | "file" | "pattern" => assert!(cell.text().is_some(), "{name}: {cell:?}"),
                    _ => assert!(cell.number().is_some(), "{name} in row {r} is a number: {cell:?}"),
                }
            }
        }
        assert_eq!(sheet.get(header + 1, 1), Some(&XCell::Number(2.0)), "threads");
        assert_eq!(sheet.get(header + 1, 2), Some(&XCell::Number(8.0)), "outstanding");
        assert_eq!(sheet.get(header + 1, 4), Some(&XCell::Number(64.0)), "MiB");
        assert_eq!(sheet.get(header + 1, 6), Some(&XCell::Text("random read".into())));
        assert_eq!(sheet.get(header + 1, 7), Some(&XCell::Number(8.0)), "KiB");
        assert_eq!(sheet.get(header + runs + 1, 0), None, "a row per run");
        // Each chart's data, beside the tables: a column of run names and one of the measure,
        // sorted by that measure.
        let mut blocks = Vec::new();
        for (&(r, c), cell) in &sheet.cells {
            let label = cell.text().unwrap_or("");
            if ["MB/s", "IOPS", "ms"].contains(&label)
                && c > 0
                && sheet.get(r, c - 1).and_then(XCell::text) == Some("run")
            {
                let values: Vec<f64> = (r + 1..).map_while(|row| sheet.get(row, c).and_then(XCell::number)).collect();
                blocks.push((label.to_string(), values));
            }
        }
        let labels: Vec<&str> = blocks.iter().map(|b| b.0.as_str()).collect();
        assert_eq!(labels, ["MB/s", "IOPS", "ms", "ms"]);
        for (label, values) in &blocks {
            assert_eq!(values.len(), runs as usize, "{label}");
            let descending = label != "ms";
            assert!(
                values.windows(2).all(|w| if descending { w[0] >= w[1] } else { w[0] <= w[1] }),
                "{label} is ranked by itself: {values:?}"
            );
        }
    };
    check(group, 12);
    check(io, 13);
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("xl/charts/chart8.xml"), "four native charts on each sheet");
}

/// The four large operations with data and log on volumes of their own, the log's writes
/// large and the data's small (as measured: about 934 KB and 63 KB), and one operation whose
/// data and log share a volume.
fn large_ops() -> Document {
    use spindle_model::db::{DeviceIo, LargeOpFigures};
    let vol = |device: &str, writes: u64, kb: u64| DeviceIo {
        device: device.into(),
        reads: 3,
        bytes_read: 3 * 8192,
        writes,
        bytes_written: writes * kb * 1024,
        queue_ms: Some(2000),
        seconds: Some(2.0),
        ..DeviceIo::default()
    };
    let runs = ["load", "scan", "update", "checkpoint"]
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let mut figures = LargeOpFigures {
                operation: op.to_string(),
                rows: 1000,
                seconds: 2.0,
                volumes: vec![vol("loop1", 100, 63), vol("loop2", 10, 934)],
                data_volumes: vec!["loop1".into()],
                log_volumes: vec!["loop2".into()],
                ..LargeOpFigures::default()
            };
            if *op == "scan" {
                figures.volumes.truncate(1);
                figures.log_volumes = figures.data_volumes.clone();
            }
            figures.roles = figures.by_role();
            let mut rec = RunRecord::new(
                KindData::LargeOps { spec: Default::default(), figures },
                spindle_model::record::RunStatus::Complete,
                std::time::SystemTime::UNIX_EPOCH,
                2.0,
            );
            rec.summary.ios = if *op == "checkpoint" { 0 } else { 1000 };
            rec.summary.iops = if *op == "checkpoint" { 0.0 } else { 500.0 };
            stored(i as i64 + 1, Some(1), Some(Point::sweep("op", *op)), rec)
        })
        .collect();
    Document { runs, ..Document::default() }
}

#[test]
fn each_large_operation_shows_its_data_and_log_apart_and_no_rate_for_a_checkpoint() {
    let doc = large_ops();
    let v = report_view(&doc);
    let kind = v.sections.iter().find(|s| s.anchor == "kind-largeops").unwrap();
    let table = &kind.tables[0];
    assert!(!table.columns.iter().any(|c| c == "IOPS" || c.contains("IOs")), "{:?}", table.columns);
    let rate = table.columns.iter().position(|c| c == "rows/s").unwrap();
    let rates: Vec<&str> = table.rows.iter().map(|r| r[rate].text.as_str()).collect();
    assert_eq!(rates, ["500", "500", "500", ""], "a checkpoint has no rate of rows");
    let roles = &kind.tables[1];
    let col = |name: &str| roles.columns.iter().position(|c| c == name).unwrap();
    let rows: Vec<Vec<&str>> = roles
        .rows
        .iter()
        .map(|r| {
            ["operation", "role", "volumes", "writes", "KB/write", "queue"]
                .iter()
                .map(|c| r[col(c)].text.as_str())
                .collect()
        })
        .collect();
    assert_eq!(
        rows,
        [
            ["load", "data", "loop1", "100", "63.0", "1.00"],
            ["load", "log", "loop2", "10", "934.0", "1.00"],
            ["scan", "data and log", "loop1", "100", "63.0", "1.00"],
            ["update", "data", "loop1", "100", "63.0", "1.00"],
            ["update", "log", "loop2", "10", "934.0", "1.00"],
            ["checkpoint", "data", "loop1", "100", "63.0", "1.00"],
            ["checkpoint", "log", "loop2", "10", "934.0", "1.00"],
        ]
    );
    // The run's own section has the same rows.
    let run = v.sections.iter().find(|s| s.anchor == "run-3").unwrap();
    let own = run.tables.iter().find(|t| t.title.starts_with("Data and log volumes")).unwrap();
    assert_eq!(own.rows.len(), 2);
    let figures = &run.tables[0];
    assert!(!figures.rows.iter().any(|r| r[0].text.contains("IOs")), "{:?}", figures.rows);
    let checkpoint = v.sections.iter().find(|s| s.anchor == "run-4").unwrap();
    let rate = checkpoint.tables[0].rows.iter().find(|r| r[0].text == "rows/sec").unwrap();
    assert_eq!(rate[1].text, "", "{rate:?}");
    // HTML and Markdown draw them; the JSON of the view carries them.
    let html = String::from_utf8(Format::Html.exporter().export(&doc).unwrap()).unwrap();
    let md = String::from_utf8(Format::Markdown.exporter().export(&doc).unwrap()).unwrap();
    for text in [&html, &md] {
        assert!(text.contains("Data and log volumes") && text.contains("934.0") && !text.contains("IOs/sec"));
    }
    let json = serde_json::to_string(&v).unwrap();
    assert!(json.contains("\"data and log\"") && json.contains("934.0"));
}

#[test]
#[cfg(feature = "xlsx")]
fn the_workbook_has_each_large_operations_data_and_log_rows_as_numbers() {
    use spindle_testenv::xlsx::XCell;
    let bytes = Format::Xlsx.exporter().export(&large_ops()).unwrap();
    let sheets = spindle_testenv::xlsx::read(&bytes).unwrap();
    let names: Vec<&str> = sheets.iter().map(|s| s.0.as_str()).collect();
    let sheet = &sheets.iter().find(|s| s.0 == "Large operations").unwrap_or_else(|| panic!("{names:?}")).1;
    let header = sheet.find_row(&super::runs::ROLE_COLUMNS).expect("the roles' header, exactly");
    assert_eq!(sheet.get(header + 2, 2), Some(&XCell::Text("log".into())));
    assert_eq!(sheet.get(header + 2, 5), Some(&XCell::Number(10.0)), "the log's writes");
    assert_eq!(sheet.get(header + 2, 7), Some(&XCell::Number(934.0)), "KB a log write");
}

/// Every latency a page shows, as its text says it: `(number, unit)`.
fn latencies_shown(v: &ReportView) -> Vec<String> {
    let cells = v.sections.iter().flat_map(|s| s.tables.iter()).flat_map(|t| t.rows.iter()).flatten();
    cells.filter(|c| c.unit == "ns").map(|c| c.text.rsplit(' ').next().unwrap().to_string()).collect()
}

#[test]
fn a_page_shows_its_latencies_in_one_unit_and_spells_microseconds() {
    // Latencies from 331 ns to 77 ms in one run: one unit, the one most of them suit.
    let mut run = io_run(&[400.0; 5], 4_130_000, &[]);
    run.summary.latency_ns.min = 331;
    run.summary.latency_ns.max = 77_100_000;
    run.summary.latency_ns.p99 = 56_900_000;
    let doc = Document { runs: vec![stored(1, None, None, run)], ..Document::default() };
    let v = report_view(&doc);
    let units = latencies_shown(&v);
    assert!(units.len() >= 4 && units.iter().all(|u| u == "ms"), "{units:?}");
    let percentiles = v.sections[0].charts.iter().find(|c| c.title == "Latency percentiles");
    assert!(percentiles.is_none_or(|c| c.y_label == "ms"), "{percentiles:?}");
    // The sample's runs are in microseconds: said so, never "us".
    let v = report_view(&sample());
    let units = latencies_shown(&v);
    assert!(units.iter().all(|u| u == "µs"), "{units:?}");
    let html = String::from_utf8(Format::Html.exporter().export(&sample()).unwrap()).unwrap();
    assert!(!says_us(&html), "\"us\" as a unit");
}

/// Whether `text` has "us" as a unit: after a number (`12 us`, `12us`) or alone as a label.
pub(crate) fn says_us(text: &str) -> bool {
    text.match_indices("us").any(|(i, _)| {
        let before = text[..i].trim_end_matches(' ');
        let after = text[i + 2..].chars().next();
        let word_ends = !after.is_some_and(char::is_alphanumeric);
        word_ends && (before.ends_with(|c: char| c.is_ascii_digit()) || before.ends_with('>'))
    })
}

#[test]
fn a_report_of_one_run_leads_with_its_figures_and_a_groups_with_its_answer() {
    let doc = Document { runs: vec![stored(1, None, None, io_run(&[400.0; 5], 100_000, &[]))], ..Document::default() };
    let v = report_view(&doc);
    assert_eq!(
        v.sections.len(),
        1,
        "the run's own section alone: {:?}",
        v.sections.iter().map(|s| &s.title).collect::<Vec<_>>()
    );
    assert!(v.sections[0].lead_tables == 1 && v.sections[0].tables[0].title == "Figures");
    let html = crate::html::render_framed(&v, &Default::default());
    assert!(html.find("<caption>Figures</caption>") < html.find("<svg"), "the figures before any chart");
    // Groups lead, each with what it found before its runs; an A/B pair's runs are no matrix.
    let mut ab = sample();
    ab.runs.retain(|r| r.group == Some(2));
    ab.groups.retain(|g| g.id == 2);
    let v = report_view(&ab);
    assert_eq!(v.sections[0].anchor, "group-2");
    assert!(
        v.sections[0].title.starts_with("Group 2: A/B comparison ("),
        "named as what it is: {}",
        v.sections[0].title
    );
    let tables: Vec<&str> = v.sections[0].tables.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(tables.last(), Some(&"Runs"), "{tables:?}");
    let html = crate::html::render_framed(&v, &Default::default());
    assert!(!html.contains("SQLIO matrix") && !html.contains("highest first"), "no rankings of an A/B pair");
}

/// A streamed export builds the sections over every run from slim runs: they must be the
/// sections the whole records give, for every kind of run and group the fixtures hold.
#[test]
fn slim_runs_give_the_sections_over_every_run_that_whole_ones_give() {
    use crate::document::slim_document;
    for doc in [sample(), sqlio_suite(true), sqlio_suite(false), large_ops()] {
        let whole = serde_json::to_string(&super::summary_view(&doc)).unwrap();
        let slim = serde_json::to_string(&super::summary_view(&slim_document(&doc).unwrap())).unwrap();
        assert_eq!(slim, whole);
    }
}
