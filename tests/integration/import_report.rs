//! `spindle import` on every real result file in testdata, and `spindle report` of a sweep, an
//! A/B comparison, a Hammer run and imported runs: the HTML rendered by headless Chromium,
//! the workbook opened by LibreOffice.

use crate::common::{path_str, spindle_with_store};
use std::path::{Path, PathBuf};
use std::process::Command;

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/formats/testdata").join(name)
}

const FILES: [&str; 12] = [
    "sqlio.random.read.8.8.G.txt",
    "sqlio.random.write.0.4.G.txt",
    "sqlio.sequential.write.8.64.G.txt",
    "DiskSpdExample-ReadWrite.txt",
    "DiskSpdExample-WriteOnly-v2.2.0.txt",
    "DiskSpdExample-WriteOnly-v2.2.0-MultiNumaMultiGroup.txt",
    "diskspd-expected-results.xml",
    "fio-plot_HPDL380G8-MX200_randread-1-1.json",
    "fio-plot_HPDL380G8-MX200_randwrite-8-64.json",
    "fio-plot_example_data01_randread-01.json",
    "bensonjohnson_fio.json",
    "quarch_insttestfile.csv",
];

fn run_count(store: &Path) -> usize {
    let out = spindle_with_store(store).args(["runs", "list", "--all", "--json"]).output().unwrap();
    if !out.status.success() {
        return 0;
    }
    serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap().as_array().map_or(0, Vec::len)
}

#[test]
fn every_real_result_file_imports_with_its_own_figures() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let files: Vec<PathBuf> = FILES.iter().map(|f| testdata(f)).collect();
    let out = spindle_with_store(&store)
        .arg("import")
        .args(&files)
        .args(["--label", "array=old", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(records.len(), FILES.len());
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/run-record.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for r in &records {
        assert!(validator.is_valid(r), "{:?}", validator.iter_errors(r).map(|e| e.to_string()).collect::<Vec<_>>());
        assert_eq!((r["details"]["kind"].as_str(), r["labels"]["array"].as_str()), (Some("imported"), Some("old")));
        assert_eq!(r["details"]["origin"]["sha256"].as_str().unwrap().len(), 64);
        assert!(r["environment"]["hostname"] == "", "the environment is absent, not invented");
    }
    let by_tool = |tool: &str| records.iter().filter(|r| r["details"]["origin"]["tool"] == tool).collect::<Vec<_>>();
    assert_eq!(
        (by_tool("sqlio").len(), by_tool("diskspd").len(), by_tool("fio").len(), by_tool("iometer").len()),
        (3, 4, 4, 1)
    );
    let sqlio = by_tool("sqlio")[0];
    assert_eq!(sqlio["summary"]["iops"], 22893.54, "IOs/sec as the file prints it");
    assert_eq!(sqlio["summary"]["sqlio_histogram_pct"][24], 49.0);
    assert!(
        sqlio["details"]["origin"]["absent"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str().unwrap().contains("percentiles"))
    );
    let diskspd = by_tool("diskspd")[0];
    assert_eq!(
        (diskspd["summary"]["ios"].as_u64(), diskspd["summary"]["read"]["ios"].as_u64()),
        (Some(35686), Some(25060))
    );
    assert_eq!(diskspd["summary"]["latency_ns"]["p99"], 4_713_000);
    assert_eq!(diskspd["started_at"], "2021-04-16T19:03:38Z");
    let iometer = by_tool("iometer")[0];
    assert_eq!(iometer["summary"]["mb_per_sec"].as_f64().map(|v| (v * 1e6).round() / 1e6), Some(279.441315));

    // The same bytes again are refused, and nothing is added; --again imports them.
    let again = spindle_with_store(&store).arg("import").arg(&files[0]).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already imported"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(run_count(&store), FILES.len());
    let again = spindle_with_store(&store).arg("import").arg(&files[0]).arg("--again").output().unwrap();
    assert!(again.status.success());
    assert_eq!(run_count(&store), FILES.len() + 1);
}

#[test]
fn unknown_and_broken_files_import_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "just some notes\n").unwrap();
    let out = spindle_with_store(&store).arg("import").arg(&notes).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("notes.txt") && err.contains("SQLIO text") && err.contains("IOMeter"), "{err}");

    // A good file beside a truncated one: neither is imported.
    let full = std::fs::read_to_string(testdata("fio-plot_HPDL380G8-MX200_randread-1-1.json")).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &full[..full.len() / 3]).unwrap();
    let out = spindle_with_store(&store).arg("import").arg(testdata(FILES[0])).arg(&cut).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cut.json: line ") && err.contains("nothing was imported"), "{err}");
    assert_eq!(run_count(&store), 0);

    // 20,000 nested elements (140 KB) ran the XML parser out of stack and aborted the process.
    let nested = dir.path().join("nested.xml");
    std::fs::write(&nested, format!("<Results>{}{}</Results>", "<a>".repeat(20_000), "</a>".repeat(20_000))).unwrap();
    let out = spindle_with_store(&store).arg("import").arg(&nested).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nested.xml: line 1: elements nested more than 64 deep"), "{err}");
    assert_eq!(run_count(&store), 0);

    // 1e308 IOPS imported once, and every view of the store failed after.
    let forged = dir.path().join("forged.json");
    std::fs::write(&forged, full.replacen("\"iops\" : 6614.073099", "\"iops\" : 1e308", 1)).unwrap();
    let out = spindle_with_store(&store).arg("import").arg(&forged).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("forged.json: run 1 (") && err.contains("IOPS is 1e308"), "{err}");
    assert_eq!(run_count(&store), 0);
}

/// Runs of every kind the report draws: a sweep, an A/B experiment, a Hammer run, imports.
fn store_with_runs(dir: &Path) -> PathBuf {
    let store = dir.join("s.db");
    let ok = |args: &[&str]| {
        let out = spindle_with_store(&store).current_dir(dir).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    ok(&[
        "io",
        "--engine",
        "null",
        "--target",
        "a.dat",
        "--size",
        "1M",
        "--duration",
        "200ms",
        "--warmup",
        "0s",
        "--sweep",
        "depth=1,4",
        "-q",
        "--label",
        "note=<script>alert(1)</script>",
    ]);
    let spec = |name: &str, depth: u32| {
        let path = dir.join(name);
        std::fs::write(&path, format!("duration = \"200ms\"\nwarmup = \"0s\"\nengine = \"null\"\n[[target]]\npath = \"a.dat\"\nsize = \"1M\"\ndepth = {depth}\n")).unwrap();
        path
    };
    let (a, b) = (spec("a.toml", 1), spec("b.toml", 8));
    ok(&["ab", path_str(&a), path_str(&b), "--rounds", "2", "-q"]);
    let db = format!("sqlite://{}", path_str(&dir.join("h.db")));
    ok(&["hammer", "load", "--db", &db, "--rows", "2000", "-q"]);
    ok(&["hammer", "run", "--db", &db, "--sessions", "2", "--duration", "300ms", "--warmup", "0s", "-q"]);
    ok(&["import", path_str(&testdata(FILES[0])), path_str(&testdata(FILES[3]))]);
    store
}

fn chromium() -> Option<&'static str> {
    spindle_testenv::chromium_installed().then_some("chromium")
}

fn libreoffice() -> Option<&'static str> {
    let found = Command::new("soffice").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        spindle_testenv::unavailable("LibreOffice", "not installed (Debian package libreoffice-calc-nogui)");
    }
    found.then_some("soffice")
}

#[test]
fn a_report_of_every_kind_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_runs(dir.path());
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let files: Vec<PathBuf> = ["r.html", "r.xlsx", "r.csv", "r.md"].iter().map(|f| out_dir.join(f)).collect();
    let mut cmd = spindle_with_store(&store);
    cmd.arg("report");
    // A build without the xlsx feature writes the rest (and says why not a workbook: features.rs).
    for f in files.iter().filter(|f| cfg!(feature = "xlsx") || f.extension().is_some_and(|e| e != "xlsx")) {
        cmd.arg("-o").arg(f);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let html = std::fs::read_to_string(&files[0]).unwrap();
    for needle in [
        "SQLIO matrix",
        "MB/s, highest first",
        "IOPS, highest first",
        "Average latency (ms), lowest first",
        "Group 1: sweep",
        "B against A, with simultaneous",
        "Database Hammer runs",
        "calls/s",
        "Imported from",
        "sqlio",
    ] {
        assert!(html.contains(needle), "the HTML lacks {needle:?}");
    }
    assert!(!html.contains("<script") && html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "a label is text");
    assert!(!html.contains("http://") && !html.contains("https://"), "works offline");
    let csv = std::fs::read_to_string(&files[2]).unwrap();
    assert!(csv.lines().nth(1).unwrap().starts_with("1,"), "rows carry run ids");
    let md = std::fs::read_to_string(&files[3]).unwrap();
    assert!(md.contains("## I/O runs") && md.contains("| run 1 |"));
    if cfg!(feature = "xlsx") {
        let xlsx = std::fs::read(&files[1]).unwrap();
        assert!(String::from_utf8_lossy(&xlsx).contains("xl/charts/chart1.xml"), "native charts");
    }

    if let Some(browser) = chromium() {
        let shot = dir.path().join("shot.png");
        let profile = dir.path().join("chromium-profile");
        let out = Command::new(browser)
            .args(spindle_testenv::CHROMIUM_FLAGS)
            .arg("--window-size=1200,1600")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("file://{}", files[0].display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // A blank 1200x1600 page compresses to a few KB; this one has charts and tables.
        let png = std::fs::read(&shot).unwrap();
        assert!(png.starts_with(b"\x89PNG") && png.len() > 40_000, "screenshot of {} bytes", png.len());
        let dom = Command::new(browser)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--dump-dom"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("file://{}", files[0].display()))
            .output()
            .unwrap();
        let dom = String::from_utf8_lossy(&dom.stdout);
        assert!(dom.matches("<svg").count() >= 6, "the browser built the charts");
    }
    // A build without the xlsx feature wrote no workbook to open.
    let office = if cfg!(feature = "xlsx") { libreoffice() } else { None };
    if let Some(office) = office {
        let converted = dir.path().join("converted");
        let out = Command::new(office)
            .args(["--headless", "--norestore", "--convert-to", "csv", "--outdir"])
            .arg(&converted)
            .arg(&files[1])
            .env("HOME", dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let overview = std::fs::read_to_string(converted.join("r.csv")).unwrap();
        assert!(overview.contains("spindle report"), "LibreOffice read the workbook: {overview}");
    }
}

#[test]
fn report_refuses_what_it_cannot_do_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let report =
        |args: &[&str]| spindle_with_store(&store).current_dir(dir.path()).arg("report").args(args).output().unwrap();
    let no_store = report(&["-o", "r.html"]);
    assert_eq!(no_store.status.code(), Some(2));
    let ok = spindle_with_store(&store)
        .current_dir(dir.path())
        .args([
            "io",
            "--engine",
            "null",
            "--target",
            "a.dat",
            "--size",
            "1M",
            "--duration",
            "100ms",
            "--warmup",
            "0s",
            "-q",
        ])
        .output()
        .unwrap();
    assert!(ok.status.success());
    let none = report(&["--label", "raid=10", "-o", "r.html"]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no stored run matches"));
    let unknown = report(&["-o", "r.pdf"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains(".html, .xlsx, .csv or .md"));
    let missing_dir = report(&["-o", "nowhere/r.html"]);
    assert_eq!(missing_dir.status.code(), Some(2));
    std::fs::write(dir.path().join("kept.html"), "mine").unwrap();
    let exists = report(&["-o", "kept.html"]);
    assert_eq!(exists.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("kept.html")).unwrap(),
        "mine",
        "never overwritten without --force"
    );
    assert!(report(&["-o", "kept.html", "--force"]).status.success());
    assert!(std::fs::read_to_string(dir.path().join("kept.html")).unwrap().starts_with("<!DOCTYPE html>"));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary files left: {leftovers:?}");
}

/// DiskSpd's XML without -L has no latency, and no foreign tool records spindle's own CPU or
/// the environment: every view shows those figures as absent ("-", an empty CSV field, null in
/// JSON), never as 0, while a spindle run beside it keeps its figures.
#[test]
fn figures_a_tool_did_not_record_are_absent_in_every_view_not_zero() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let run = |args: &[&str]| {
        let out = spindle_with_store(&store).current_dir(dir.path()).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    run(&["import", path_str(&testdata("diskspd-expected-results.xml"))]);
    run(&[
        "io",
        "--engine",
        "null",
        "--target",
        "a.dat",
        "--size",
        "1M",
        "--duration",
        "200ms",
        "--warmup",
        "0s",
        "-q",
    ]);

    let list = run(&["runs", "list"]);
    let imported = list.lines().find(|l| l.trim_start().starts_with("1 ")).unwrap();
    assert!(imported.ends_with(" -        -"), "avg and p99 absent: {list}");
    let native = list.lines().find(|l| l.trim_start().starts_with("2 ")).unwrap();
    assert!(!native.ends_with('-'), "a spindle run keeps its latency: {list}");
    let listed: serde_json::Value = serde_json::from_str(&run(&["runs", "list", "--json"])).unwrap();
    assert!(listed[0]["latency_mean_ns"].is_null() && listed[0]["latency_p99_ns"].is_null(), "{listed}");
    assert!(listed[1]["latency_p99_ns"].is_u64(), "{listed}");

    let shown = run(&["runs", "show", "1"]);
    assert!(!shown.contains("0ns"), "{shown}");
    assert!(shown.contains("Avg_Latency: -") && shown.contains("p99 -"), "{shown}");
    assert!(shown.contains("CPU (spindle itself): user -") && shown.contains("environment: -"), "{shown}");

    let csv = dir.path().join("r.csv");
    let (html, md) = (dir.path().join("r.html"), dir.path().join("r.md"));
    run(&["report", "-o", path_str(&csv), "-o", path_str(&html), "-o", path_str(&md)]);
    let csv = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let total = csv.lines().find(|l| l.starts_with("1,") && l.contains(",total,")).unwrap();
    let field = |name: &str| {
        let at = header.iter().position(|h| *h == name).unwrap();
        total.split(',').nth(at).unwrap().to_string()
    };
    for name in ["lat_mean_ns", "lat_p99_ns", "lat_max_ns", "read_mean_ns", "cpu_us_per_io"] {
        assert_eq!(field(name), "", "{name} is absent: {total}");
    }
    assert_eq!(field("ios"), "16", "what the tool recorded stays");
    let html = std::fs::read_to_string(&html).unwrap();
    let md = std::fs::read_to_string(&md).unwrap();
    let run1 = &md[md.find("run 1:").unwrap()..];
    let run1 = &run1[..run1.find("run 2:").unwrap_or(run1.len())];
    assert!(!run1.contains("0ns") && run1.contains("| latency p99 | - |"), "{run1}");
    let html1 = &html[html.find("id=\"run-1\"").unwrap()..html.find("id=\"run-2\"").unwrap()];
    assert!(!html1.contains("0ns") && html1.contains("latency mean"), "{html1}");
}
