//! What `spindle io` prints: the JSON run record (validated against the published schema),
//! CSV and the human summary, on the deterministic null engine.

use crate::common::{io_json, spindle};

fn schema() -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/run-record.schema.json"))
        .expect("docs/run-record.schema.json");
    serde_json::from_str(&text).expect("the schema is JSON")
}

pub(crate) fn assert_valid(record: &serde_json::Value) {
    let validator = jsonschema::validator_for(&schema()).expect("the schema compiles");
    let errors: Vec<String> = validator.iter_errors(record).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "record does not match docs/run-record.schema.json:\n{}", errors.join("\n"));
}

#[test]
fn json_record_matches_the_schema_and_has_the_promised_fields() {
    let r = io_json(&[
        "--engine",
        "null",
        "--target",
        "data.dat",
        "--block",
        "4K",
        "--depth",
        "8",
        "--threads",
        "2",
        "--duration",
        "1500ms",
        "--warmup",
        "200ms",
        "--label",
        "raid=10",
    ]);
    assert_valid(&r);
    assert_eq!(r["schema"], "spindle.run-record/v2");
    assert_eq!(r["details"]["kind"], "io");
    assert_eq!(r["status"], "complete");
    assert_eq!(r["labels"]["raid"], "10");
    let s = &r["summary"];
    assert!(s["iops"].as_f64().unwrap() > 1000.0);
    assert!(s["bytes_per_sec"].as_f64().unwrap() > 0.0);
    for key in ["min", "mean", "max", "p50", "p99", "p99_9"] {
        assert!(s["latency_ns"][key].is_number(), "summary.latency_ns.{key}");
    }
    assert_eq!(r["targets"].as_array().unwrap().len(), 1);
    assert_eq!(r["threads"].as_array().unwrap().len(), 2);
    assert_eq!(r["timeseries"].as_array().unwrap().len(), 2, "1.5 s measured: two points");
    assert!(r["environment"]["logical_cpus"].as_u64().unwrap() >= 1);
    let threads_ios: u64 = r["threads"].as_array().unwrap().iter().map(|t| t["stats"]["ios"].as_u64().unwrap()).sum();
    assert_eq!(threads_ios, s["ios"].as_u64().unwrap());
}

#[test]
fn csv_has_total_target_and_thread_rows() {
    let out = spindle()
        .args(["io", "--engine", "null", "--target", "a.dat", "--threads", "2", "--duration", "200ms", "--csv"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 1 + 1 + 2, "header, total, one target, two threads:\n{text}");
    let columns = csv_fields(lines[0]);
    assert!(lines.iter().all(|l| csv_fields(l) == columns), "{text}");
    let run = lines[1].split(',').next().unwrap();
    assert!(run.parse::<i64>().is_ok_and(|id| id > 0) && lines[1].contains(",total,"), "the run's id: {text}");
}

/// Fields in one CSV line, honouring RFC 4180 quotes (workload text has commas).
fn csv_fields(line: &str) -> usize {
    let mut quoted = false;
    1 + line
        .chars()
        .filter(|c| {
            if *c == '"' {
                quoted = !quoted;
            }
            *c == ',' && !quoted
        })
        .count()
}

#[test]
fn text_summary_reads_like_sqlio() {
    let out = spindle().args(["io", "--engine", "null", "--target", "a.dat", "--duration", "200ms"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in ["IOs/sec", "MBs/sec", "Avg_Latency", "histogram", "24+"] {
        assert!(text.contains(needle), "missing {needle}:\n{text}");
    }
}

#[test]
fn example_specs_plan_and_run() {
    let dir = tempfile::tempdir().unwrap();
    for example in ["data-and-log.toml", "tempdb.toml"] {
        let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/specs/").to_string() + example;
        let out = spindle()
            .current_dir(dir.path())
            .args(["io", "--engine", "null", "--duration", "200ms", "--warmup", "0s", "--json", "--spec", &spec])
            .output()
            .unwrap();
        assert!(out.status.success(), "{example}: {}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_valid(&r);
        assert!(!r["targets"].as_array().unwrap().is_empty());
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the null engine creates no files");
}

#[test]
fn per_line_mix_keeps_reads_and_writes_apart() {
    let r = io_json(&[
        "--engine",
        "null",
        "--target",
        "t.dat",
        "--mix",
        "64K:2:100,512:98:0",
        "--duration",
        "300ms",
        "--depth",
        "16",
    ]);
    let s = &r["summary"];
    let reads = s["read"]["ios"].as_f64().unwrap();
    let writes = s["write"]["ios"].as_f64().unwrap();
    assert!((reads / (reads + writes) - 0.02).abs() < 0.005);
    let read_size = s["read"]["bytes"].as_f64().unwrap() / reads;
    let write_size = s["write"]["bytes"].as_f64().unwrap() / writes;
    assert_eq!((read_size, write_size), (65536.0, 512.0));
}

#[test]
fn a_warning_is_said_once_on_stderr_and_kept_in_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("small.dat");
    let hint = "reads may be served by the page cache";
    let run = |read: &str, json: bool| {
        let mut cmd = spindle();
        cmd.args(["io", "--engine", "sync", "--buffered", "--size", "4M", "--duration", "200ms", "--read", read]);
        cmd.arg("--target").arg(&target);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    let (stdout, stderr) = run("100", false);
    assert_eq!(stderr.matches(hint).count(), 1, "{stderr}");
    assert_eq!(stdout.matches(hint).count(), 0, "the live report does not repeat it: {stdout}");
    let (json, _) = run("100", true);
    assert!(json.contains(hint), "the record keeps it");
    let (_, stderr) = run("0", false);
    assert!(!stderr.contains(hint), "a run that does not read has no reads to serve from memory: {stderr}");
}

/// `spindle man --dir DIR` writes a page for every page spindle(1) and the others point to,
/// into a directory it makes: no page names spindle-io(1) or spindle-help(1) that is not there.
#[test]
fn every_manual_page_pointed_to_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("share/man/man1");
    let out = spindle().args(["man", "--dir"]).arg(&dir).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("manual pages to") && err.contains("a new directory"), "{err}");
    let mut pointed = Vec::new();
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        names.push(path.file_name().unwrap().to_string_lossy().into_owned());
        let page = std::fs::read_to_string(&path).unwrap();
        // roff writes the names' hyphens as `\-`: spindle\-hammer\-run(1).
        for (at, _) in page.match_indices("(1)") {
            let name = page[..at].rsplit(|c: char| c.is_whitespace()).next().unwrap().replace("\\-", "-");
            if name.starts_with("spindle") {
                pointed.push(name);
            }
        }
    }
    for page in ["spindle.1", "spindle-check.1", "spindle-io.1", "spindle-hammer.1", "spindle-hammer-run.1"] {
        assert!(names.iter().any(|n| n == page), "{page} in {names:?}");
    }
    assert!(pointed.iter().any(|p| p == "spindle-hammer-run"), "pages point to pages: {pointed:?}");
    for p in &pointed {
        assert!(names.contains(&format!("{p}.1")), "a page points to {p}(1), which was not written: {names:?}");
    }
    let file = tmp.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let refused = spindle().args(["man", "--dir"]).arg(&file).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--dir"));
}

/// Completions and the manual page come from the same description of the commands, so every
/// command is in them; --version names the commit.
#[test]
fn completions_man_page_and_version() {
    for shell in ["bash", "zsh", "fish"] {
        let out = spindle().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains("placement") && script.contains("report") && script.contains("import"), "{shell}");
    }
    let man = spindle().arg("man").output().unwrap();
    let page = String::from_utf8_lossy(&man.stdout);
    assert!(man.status.success() && page.contains(".TH spindle 1") && page.contains("largeops"), "{page}");
    assert!(page.contains("spindle man \\-\\-dir"), "the page says where the pages it lists come from: {page}");
    let version = spindle().arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&version.stdout);
    assert!(text.starts_with("spindle ") && text.contains('('), "{text}");
    assert_eq!(spindle().args(["completions", "tcsh"]).output().unwrap().status.code(), Some(2));
}

/// `--expect` against runs held at 500 IOPS by `--rate` (kept exactly on the null engine): 1,000
/// expected is half delivered, so `--strict` exits 1; 400 expected is delivered, exit 0. The
/// JSON document stays whole on stdout, the answer beside it on stderr.
#[test]
fn expected_rates_are_held_against_the_best_run_and_strict_exits_1_when_short() {
    let run = |expect: &str, json: bool| {
        let mut args = vec!["io", "--engine", "null", "--target", "e.dat", "--rate", "500", "--duration", "1s"];
        args.extend(["--expect", expect, "--strict"]);
        if json {
            args.push("--json");
        }
        spindle().args(&args).output().unwrap()
    };
    let short = run("1000iops", false);
    let text = String::from_utf8_lossy(&short.stdout);
    assert_eq!(short.status.code(), Some(1), "{text}");
    assert!(
        text.contains("this volume delivers ") && text.contains(" of the 1,000 IOPS expected (50%): run "),
        "{text}"
    );
    assert!(text.contains("(8KiB I/Os) ") && text.contains(" IOPS at 1 outstanding, "), "{text}");
    let met = run("400iops", true);
    assert_eq!(met.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&met.stdout).expect("the record alone on stdout");
    assert!(doc["summary"]["iops"].as_f64().unwrap() > 400.0);
    assert!(String::from_utf8_lossy(&met.stderr).contains("this volume delivers the 400 IOPS expected: run "));
}
