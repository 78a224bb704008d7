//! Sweeps and suites: one saved run per point or member, in one group, with the curve's knee
//! or the suite's table at the end.

use crate::common::{io_usage_error, spindle_with_store};

#[test]
fn a_depth_sweep_prints_the_curve_and_saves_every_point() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let out = spindle_with_store(&store)
        .args(["io", "--engine", "null", "--duration", "100ms", "--sweep", "depth=1,2,...,8", "--target"])
        .arg(dir.path().join("x.dat"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("sweep of depth:"), "{text}");
    assert!(text.contains("knee: "), "{text}");
    let list = spindle_with_store(&store).args(["runs", "list", "--json"]).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let points: Vec<&str> = runs.as_array().unwrap().iter().map(|r| r["point"].as_str().unwrap()).collect();
    assert_eq!(points, ["depth=1", "depth=2", "depth=4", "depth=8"]);
    assert!(runs.as_array().unwrap().iter().all(|r| r["group"] == runs[0]["group"] && r["group"].is_i64()));

    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--sweep", "size=1G,2G"]);
    assert!(err.contains("--sweep") && err.contains("sweepable"), "{err}");
}

#[test]
fn a_sweep_as_json_is_one_document_and_its_stored_group_shows_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let out = spindle_with_store(&store)
        .args(["io", "--engine", "null", "--duration", "100ms", "--sweep", "depth=1,2,4", "--repeat", "2", "--json"])
        .arg("--target")
        .arg(dir.path().join("x.dat"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(doc["param"], "depth");
    assert_eq!(doc["runs"].as_array().unwrap().len(), 6, "three points, twice");
    let curve = doc["curve"].as_array().unwrap();
    let values: Vec<&str> = curve.iter().map(|p| p["value"].as_str().unwrap()).collect();
    assert_eq!(values, ["1", "2", "4"]);
    assert!(curve.iter().all(|p| p["runs"] == 2));
    assert!(doc.get("knee").is_some(), "the knee is there, null or a value");
    let group = doc["group"].as_i64().expect("the stored group");

    let show = |extra: &[&str]| {
        let out = spindle_with_store(&store)
            .args(["runs", "show", "--group", &group.to_string()])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let text = String::from_utf8(show(&[])).unwrap();
    assert!(text.starts_with(&format!("group {group}: sweep")) && text.contains("sweep of depth:"), "{text}");
    let view: serde_json::Value = serde_json::from_slice(&show(&["--json"])).unwrap();
    assert_eq!(view["findings"]["kind"], "sweep");
    assert_eq!(view["findings"]["curve"], doc["curve"], "the stored group says what the run said");
    assert_eq!(view["runs"].as_array().unwrap().len(), 6);

    let missing = spindle_with_store(&store).args(["runs", "show", "--group", "999"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no group 999"));
}

/// The 13 members of "Disk Benchmark testing using SQLIO"'s matrix, told in at most 40 lines
/// (a line per run as it ends, then the summary), the detail kept for `-v` and `runs show`.
#[test]
fn the_sqlserver_suite_runs_its_matrix_and_says_so_in_40_lines() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let out = spindle_with_store(&store)
        .args(["suite", "sqlserver", "--engine", "null", "--duration", "50ms", "--warmup", "0s", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("suite sqlserver") && text.contains("random-256k-write-o200"), "{text}");
    let said = text.lines().count() + String::from_utf8_lossy(&out.stderr).lines().count();
    assert!(said <= 40, "{said} lines: {text}{}", String::from_utf8_lossy(&out.stderr));
    let list = spindle_with_store(&store).args(["runs", "list", "--json"]).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 13);
    assert_eq!(runs[12]["point"], "log-write");

    let bad = spindle_with_store(&store).args(["suite", "oracle", "--dir"]).arg(dir.path()).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("valid engines: sqlserver, postgres, mysql"));
}

/// The matrix as "SQL Server I/O Characteristics: SQLIO results in Excel" charted it, from real
/// runs of the suite: in the workbook a row per run whose threads, outstanding I/Os, sizes,
/// duration, rates and latencies are numbers a spreadsheet charts, each run's pattern and sizes
/// those its member's name says; the same table in the HTML page and the Markdown.
#[test]
fn the_sqlserver_suites_report_is_the_sqlio_matrix_in_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let out = spindle_with_store(&store)
        .args(["suite", "sqlserver", "--engine", "null", "--duration", "50ms", "--warmup", "0s", "--size", "8M"])
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let list = spindle_with_store(&store).args(["runs", "list", "--json"]).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let point_of: std::collections::HashMap<String, String> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (format!("run {}", r["id"]), r["point"].as_str().unwrap().to_string()))
        .collect();
    let (html, book, md) = (dir.path().join("r.html"), dir.path().join("r.xlsx"), dir.path().join("r.md"));
    let mut report = spindle_with_store(&store);
    report.arg("report").arg("-o").arg(&html).arg("-o").arg(&md);
    if cfg!(feature = "xlsx") {
        report.arg("-o").arg(&book);
    }
    let out = report.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // The log's writes are write-through, each a commit: the matrix says whose latency each
    // run's is, and shows each I/O's beside a commit's.
    const COLUMNS: [&str; 14] = [
        "run",
        "threads",
        "outstanding I/Os per thread",
        "file",
        "file size (MiB)",
        "duration (s)",
        "pattern",
        "block size (KiB)",
        "MB/s",
        "IOPS",
        "latency of",
        "average latency (ms)",
        "p99 latency (ms)",
        "I/O average latency (ms)",
    ];
    const WORDS: [&str; 5] = ["run", "file", "pattern", "latency of", "I/O average latency (ms)"];
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<caption>SQLIO matrix (13 runs)</caption>"));
    for chart in [
        "MB/s, highest first",
        "IOPS, highest first",
        "Average latency (ms), lowest first",
        "p99 latency (ms), lowest first",
    ] {
        assert!(page.contains(&format!("<figcaption>{chart}</figcaption>")), "the page lacks the chart {chart:?}");
    }
    assert!(page.contains("The SQLIO matrix of these runs, with its charts, is in the I/O runs section."));
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains(&format!("| {} |", COLUMNS.join(" | "))), "{markdown}");

    if !cfg!(feature = "xlsx") {
        return;
    }
    use spindle_testenv::xlsx::XCell;
    let bytes = std::fs::read(&book).unwrap();
    // A sheet's name cannot hold `/`.
    let sheet = spindle_testenv::xlsx::sheet(&bytes, "I O runs").unwrap();
    let header = sheet.find_row(&COLUMNS).expect("the matrix's header, exactly");
    let cell = |r: u32, name: &str| {
        let c = COLUMNS.iter().position(|c| *c == name).unwrap() as u32;
        sheet.get(r, c).unwrap_or_else(|| panic!("row {r} has no {name}")).clone()
    };
    let number = |r: u32, name: &str| cell(r, name).number().unwrap_or_else(|| panic!("{name} is not a number"));
    let mut seen = 0;
    for r in (header + 1..).take_while(|&r| sheet.get(r, 0).is_some()) {
        seen += 1;
        let run = cell(r, "run").text().unwrap().to_string();
        let point = &point_of[&run];
        for name in COLUMNS.iter().filter(|n| !WORDS.contains(n)) {
            assert!(number(r, name) >= 0.0, "{run}: {name}");
        }
        assert!(number(r, "threads") >= 1.0 && number(r, "IOPS") > 0.0 && number(r, "MB/s") > 0.0, "{run}");
        assert_eq!(number(r, "file size (MiB)"), 8.0, "{run}");
        assert!(number(r, "duration (s)") > 0.0 && number(r, "duration (s)") < 1.0, "{run}");
        assert!(cell(r, "file").text().unwrap().starts_with(dir.path().to_str().unwrap()), "{run}");
        // `random-256k-write-o200`: the pattern, the block size and the outstanding I/Os.
        let parts: Vec<&str> = point.split('-').collect();
        if let [access, size, direction, rest @ ..] = parts.as_slice() {
            let access = if *access == "seq" { "sequential" } else { access };
            assert_eq!(cell(r, "pattern"), XCell::Text(format!("{access} {direction}")), "{point}");
            let kib: f64 = size.trim_end_matches('k').parse().unwrap();
            assert_eq!(number(r, "block size (KiB)"), kib, "{point}");
            if let [depth] = rest {
                assert_eq!(number(r, "outstanding I/Os per thread"), depth[1..].parse::<f64>().unwrap(), "{point}");
            }
            assert_eq!(cell(r, "latency of"), XCell::Text("I/O".into()), "{point}");
        } else {
            assert_eq!(point, "log-write");
            assert_eq!(cell(r, "pattern"), XCell::Text("sequential write".into()));
            assert_eq!(cell(r, "latency of"), XCell::Text("commit".into()));
            assert!(number(r, "I/O average latency (ms)") > 0.0);
        }
    }
    assert_eq!(seen, 13, "a row per run");
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("xl/charts/chart4.xml") && !text.contains("xl/charts/chart5.xml"), "four native charts");
}

/// `suite --dir` names where to test, as a new user would: a directory that does not exist yet
/// is made, with its parents, and said so; a suite refused before it runs leaves none behind.
#[test]
fn a_suite_makes_its_new_directory_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let suite = |at: &std::path::Path, extra: &[&str]| {
        spindle_with_store(&store)
            .args(["suite", "postgres", "--duration", "20ms", "--warmup", "0s", "--size", "1M"])
            .args(extra)
            .arg("--dir")
            .arg(at)
            .output()
            .unwrap()
    };
    // The engine is checked by the planner, after the directory is made.
    let refused = suite(&dir.path().join("never/made"), &["--engine", "bogus"]);
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(!dir.path().join("never").exists(), "a refused suite makes no directory");

    let new = dir.path().join("new/vol");
    let out = suite(&new, &["--engine", "null"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!("created the directory {} (--dir)", new.display())), "{err}");
    assert!(new.is_dir() && std::fs::read_dir(&new).unwrap().next().is_none(), "made, and its test file removed");

    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let out = suite(&file, &["--engine", "null"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--dir") && err.contains("not a directory"), "{err}");
}

/// A sweep reads at a glance: a line per run on stderr as each ends, the curve at the end on
/// stdout, and each run's full report only with -v.
#[test]
fn a_sweep_prints_a_line_per_run_and_the_curve_full_reports_with_v() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let sweep = |verbose: bool| {
        let mut cmd = spindle_with_store(&store);
        cmd.args([
            "io",
            "--engine",
            "null",
            "--duration",
            "100ms",
            "--warmup",
            "0s",
            "--sweep",
            "depth=1,4",
            "--target",
        ])
        .arg(dir.path().join("x.dat"));
        if verbose {
            cmd.arg("-v");
        }
        cmd.output().unwrap()
    };
    let brief = sweep(false);
    let (out, err) = (String::from_utf8_lossy(&brief.stdout), String::from_utf8_lossy(&brief.stderr));
    assert!(!out.contains("throughput metrics:") && out.contains("sweep of depth:"), "{out}");
    assert_eq!(out.matches("IOs/sec").count(), 1, "one table, not a runs table and a curve: {out}");
    assert_eq!(err.lines().filter(|l| l.contains("IOs/sec, ")).count(), 2, "a line per run: {err}");
    let full = sweep(true);
    let out = String::from_utf8_lossy(&full.stdout);
    assert_eq!(out.matches("throughput metrics:").count(), 2, "{out}");
}
