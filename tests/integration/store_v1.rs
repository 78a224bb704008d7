//! A store written by spindle 171a3e5 (store schema 1, run records of v1) read by this
//! spindle: every run shows the figures that spindle showed for it, and its record, migrated
//! to the current schema, validates against the published one. A v1 record kept in a file
//! (`--json` output, a `spindle-unsaved-*.json`) imports as the run it was.

use crate::common::spindle_with_store;
use crate::io_output::assert_valid;
use std::path::{Path, PathBuf};

const TESTDATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/store/testdata");
const RUNS: i64 = 19;
/// Where `runs list` puts a run's second line: what it ran, its group and labels.
const ABOUT_INDENT: &str = "       ";

/// A copy of the v1 store in `dir`: the test data itself is never opened for writing.
fn v1_store(dir: &Path) -> PathBuf {
    let store = dir.join("store-v1.db");
    std::fs::copy(format!("{TESTDATA}/store-v1-171a3e5.db"), &store).unwrap();
    store
}

fn stdout(store: &Path, args: &[&str]) -> String {
    let out = spindle_with_store(store).args(args).output().unwrap();
    assert!(out.status.success(), "spindle {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The lines of `spindle runs show` that state a run's figures: rates, MB/s and latencies.
fn figure_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.contains("/sec:") || l.contains("Latency:") || l.contains("p99.99")).collect()
}

/// `line` with each latency the old spindle printed as `0ns` for a figure never measured (a
/// large operation's, one a foreign tool did not record) shown as absent, as spindle now does.
fn absent_zeros(line: &str) -> String {
    line.split(' ').map(|w| if w == "0ns" { "-" } else { w }).collect::<Vec<_>>().join(" ")
}

#[test]
fn every_run_of_a_v1_store_shows_the_figures_it_showed_before() {
    let dir = tempfile::tempdir().unwrap();
    let store = v1_store(dir.path());
    for id in 1..=RUNS {
        let id = id.to_string();
        let before = std::fs::read_to_string(format!("{TESTDATA}/store-v1-171a3e5.show/{id}.txt")).unwrap();
        let now = stdout(&store, &["runs", "show", &id]);
        let figures = figure_lines(&before);
        assert!(!figures.is_empty(), "run {id}: {before}");
        // A checkpoint processes no rows: its old rows/sec now says so instead of a rate.
        let no_rate = |line: &str| {
            before.contains("checkpoint of")
                && line.contains("rows/sec:")
                && now.contains("a checkpoint processes no rows")
        };
        for line in figures {
            assert!(
                now.lines().any(|l| l == line || l == absent_zeros(line)) || no_rate(line),
                "run {id} no longer shows\n{line}\nin\n{now}"
            );
        }
        let record: serde_json::Value =
            serde_json::from_str(&stdout(&store, &["runs", "show", &id, "--json"])).unwrap();
        assert_eq!(record["schema"], "spindle.run-record/v2", "run {id}");
        assert_valid(&record);
    }
    let list = stdout(&store, &["runs", "list"]);
    let before = std::fs::read_to_string(format!("{TESTDATA}/store-v1-171a3e5.show/list.txt")).unwrap();
    // Each run's figures are its first line now (what it ran, its group and labels follow on
    // lines of their own, indented), so only those are set against the old list's rows.
    let figures = list.lines().skip(1).filter(|l| !l.starts_with(ABOUT_INDENT));
    assert_eq!(figures.clone().count(), before.lines().count() - 1, "{list}");
    for (old, new) in before.lines().skip(1).zip(figures) {
        let columns = |l: &str| l.split_whitespace().take(9).map(str::to_string).collect::<Vec<_>>();
        let (was, mut is) = (columns(old), columns(new));
        // A run that commits (the log test's) now leads with its commits' latency, and the
        // old list's mean, each I/O's, is the column beside it (each I/O's p99 is not listed).
        let all: Vec<&str> = new.split_whitespace().collect();
        if all.len() == 10 {
            let record: serde_json::Value =
                serde_json::from_str(&stdout(&store, &["runs", "show", all[0], "--json"])).unwrap();
            let commit = &record["summary"]["commit"]["latency_ns"];
            let ns = |v: &serde_json::Value| spindle_model::units::format_latency_ns(v.as_f64().unwrap());
            assert_eq!(all[7..9], [ns(&commit["mean"]), ns(&commit["p99"])], "the commits' latency leads: {new}");
            is[7] = all[9].to_string();
            is[8] = was[8].clone();
        }
        // A checkpoint has no rate of its own: the old list's rows/sec for it shows as absent.
        // MB/s is listed only for runs that move bytes of their own (I/O runs).
        let checkpoint = old.contains("op=checkpoint");
        let same = was.iter().zip(&is).enumerate().all(|(i, (w, n))| {
            w == n
                || (w == "0ns" && n == "-")
                || (checkpoint && i == 5 && n == "-")
                || (i == 6 && n == "-" && was[3] != "io")
        });
        assert!(same && was.len() == is.len(), "runs list: id, start, kind, status, rates, latencies\n{old}\n{new}");
    }
    let sweep = stdout(&store, &["runs", "show", "--group", "1"]);
    assert!(sweep.contains("depth=1") && sweep.contains("depth=2"), "{sweep}");
}

#[test]
fn a_v1_record_in_a_file_imports_as_the_run_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let original = rusqlite::Connection::open_with_flags(
        format!("{TESTDATA}/store-v1-171a3e5.db"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let json: String = original.query_row("SELECT json FROM records WHERE run_id = 13", [], |r| r.get(0)).unwrap();
    assert!(json.contains("\"schema\":\"spindle.run-record/v1\""), "the test data is of v1");
    let file = dir.path().join("spindle-unsaved-13.json");
    std::fs::write(&file, &json).unwrap();
    let store = dir.path().join("new.db");
    stdout(&store, &["import", file.to_str().unwrap()]);
    let record: serde_json::Value = serde_json::from_str(&stdout(&store, &["runs", "show", "1", "--json"])).unwrap();
    assert_eq!(record["details"]["kind"], "logtest");
    assert_eq!(record["details"]["figures"]["transaction_size"], 1);
    assert_valid(&record);
}
