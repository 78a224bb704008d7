//! Database Hammer on a real SQLite database through the binary: load (new, refused, resumed),
//! run over several session counts, everything saved; bad input named, passwords never shown.

use crate::common::spindle_with_store;
use std::path::{Path, PathBuf};

fn hammer(store: &Path, args: &[&str]) -> std::process::Output {
    spindle_with_store(store).arg("hammer").args(args).output().unwrap()
}

/// A scratch directory with a store and a SQLite Hammer database of 1,000 rows loaded: the
/// directory (kept while it lives), the store and the database's URL.
fn loaded() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let db = format!("sqlite://{}", dir.path().join("hammer.db").display());
    assert!(hammer(&store, &["load", "--db", &db, "--rows", "1K"]).status.success());
    (dir, store, db)
}

#[test]
fn sqlite_hammer_loads_resumes_runs_and_saves() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let db = format!("sqlite://{}", dir.path().join("hammer.db").display());

    let out = hammer(&store, &["load", "--db", &db, "--rows", "20K", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let load: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (load["details"]["kind"].as_str(), load["summary"]["ios"].as_u64()),
        (Some("hammer-load"), Some(20_000))
    );

    let again = hammer(&store, &["load", "--db", &db, "--rows", "30K"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    let resumed = hammer(&store, &["load", "--db", &db, "--rows", "30K", "--resume", "--json"]);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let resumed: serde_json::Value = serde_json::from_slice(&resumed.stdout).unwrap();
    assert_eq!(resumed["summary"]["ios"], 10_000, "only the missing rows are loaded");

    let out = hammer(
        &store,
        &[
            "run",
            "--db",
            &db,
            "--sessions",
            "1,3",
            "--read-ratio",
            "80",
            "--duration",
            "600ms",
            "--warmup",
            "100ms",
            "--json",
            "--sample-interval",
            "100ms",
        ],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for (r, sessions) in runs.iter().zip([1, 3]) {
        assert_eq!(r["details"]["kind"], "hammer");
        assert_eq!(r["details"]["spec"]["rows"], 30_000);
        assert_eq!(r["threads"].as_array().unwrap().len(), sessions, "one result per session");
        let (reads, writes) =
            (r["summary"]["read"]["ios"].as_u64().unwrap(), r["summary"]["write"]["ios"].as_u64().unwrap());
        assert!(reads > 0 && writes > 0, "{reads} {writes}");
        assert!(r["summary"]["read"]["latency_ns"]["p99"].as_u64().unwrap() > 0);
        let counters = r["counters"]["counters"].as_array().unwrap();
        let wal = counters.iter().find(|c| c["path"] == "\\spindle:SQLite\\WAL file bytes").expect("SQLite's counters");
        assert!(wal["max"].as_f64().unwrap() > 0.0, "updates go through the WAL: {wal}");
    }
    let list = spindle_with_store(&store).args(["runs", "list", "--kind", "hammer", "--json"]).output().unwrap();
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let points: Vec<&str> = list.as_array().unwrap().iter().map(|r| r["point"].as_str().unwrap()).collect();
    assert_eq!(points, ["sessions=1", "sessions=3"]);
}

#[test]
fn bad_hammer_input_is_named_and_passwords_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let db = format!("sqlite://{}", dir.path().join("none.db").display());
    let cases: [(&[&str], &str); 8] = [
        (&["run", "--db", &db, "--sessions", "0"], "--sessions 0"),
        (&["run", "--db", &db, "--read-ratio", "120"], "--read-ratio 120"),
        (&["run", "--db", &db], "spindle hammer load"),
        (&["load", "--db", &db, "--rows", "0"], "--rows 0"),
        (&["load", "--db", "hammer.db"], "write a URL"),
        (&["load", "--db", "postgres://bench:s3cret@127.0.0.1/test"], "postgres://bench:****@127.0.0.1/test"),
        (&["load", "--db", "sqlite:///no/such/dir/h.db", "--rows", "10"], "directory"),
        (&["load", "--db", "postgres://bench:s3cret@127.0.0.1"], "names no database"),
    ];
    for (args, needle) in cases {
        let out = hammer(&store, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("s3cret"), "{err}");
    }
    assert!(!store.exists(), "nothing was measured, so nothing was saved");
}

#[test]
fn more_sqlite_sessions_than_the_machine_has_threads_for_are_refused_before_any_start() {
    let (_dir, store, db) = loaded();
    // More threads than any machine's default vm.max_map_count allows (65,530 mappings, four a
    // thread): once started, the runtime would abort the process as its mappings ran out.
    let out = hammer(&store, &["run", "--db", &db, "--sessions", "100000", "--duration", "1s"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--sessions 100000") && err.contains("threads"), "{err}");
}

#[test]
fn calls_a_rate_still_owes_at_the_end_are_a_warning() {
    let (_dir, store, db) = loaded();
    // Ten million calls a second: no session keeps up, on any machine.
    let args = ["run", "--db", &db, "--sessions", "1", "--rate", "10000000", "--duration", "300ms", "--warmup", "0s"];
    let out = hammer(&store, &[&args[..], &["--json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = r["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w.as_str().unwrap().starts_with("behind schedule by ")), "{warnings:?}");
}

/// Hammer's CSV names each row's stored run by its id, as `runs show` and `compare` take it.
#[test]
fn hammer_csv_rows_carry_run_ids() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let db = format!("sqlite://{}", dir.path().join("hammer.db").display());
    assert!(hammer(&store, &["load", "--db", &db, "--rows", "1K", "-q"]).status.success());
    let out =
        hammer(&store, &["run", "--db", &db, "--sessions", "1,2", "--duration", "200ms", "--warmup", "0s", "--csv"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let ids: Vec<&str> =
        text.lines().skip(1).filter(|l| l.contains(",total,")).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(ids, ["2", "3"], "{text}");
}

/// A server that takes the connection and never answers: spindle waits in the handshake (up
/// to its connect timeout), long enough to look at its process from outside.
#[cfg(feature = "postgres")]
#[test]
fn the_password_is_gone_from_the_process_list_while_spindle_runs() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let url = format!("postgres://bench:Pa55w0rdX@127.0.0.1:{port}/test?password=Pa55w0rdY");
    let mut child = crate::common::spindle_process()
        .args(["hammer", "load", "--db", &url, "--rows", "10"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _held = silent.accept().unwrap();
    // spindle is connecting, so its arguments were parsed and overwritten before.
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", child.id())).unwrap();
    let shown = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    let _ = child.kill();
    let _ = child.wait();
    assert!(!shown.contains("Pa55w0rd"), "{shown}");
    assert!(shown.contains("bench:xxxxxxxxx@127.0.0.1") && shown.contains("password=xxxxxxxxx"), "{shown}");
}

/// `hammer run --sessions 1,2,4` reads as a sweep does: a line per session count on stderr as
/// each ends, then the curve over session counts with its knee, and nothing that describes
/// I/O (no MB/s of calls that move no bytes, no test file's size, no CPU "per I/O"). One
/// session count prints its run's report, in the same words.
#[test]
fn a_hammer_run_over_session_counts_prints_a_line_each_and_the_curve() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let db = format!("sqlite://{}", dir.path().join("hammer.db").display());
    assert!(hammer(&store, &["load", "--db", &db, "--rows", "1K", "-q"]).status.success());
    let run = |sessions: &str| {
        let out =
            hammer(&store, &["run", "--db", &db, "--sessions", sessions, "--duration", "200ms", "--warmup", "0s"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    let (out, err) = run("1,2,4");
    let per_run: Vec<&str> = err.lines().filter(|l| l.contains("calls/sec, mean")).collect();
    assert_eq!(per_run.len(), 3, "a line per session count: {err}");
    assert!(per_run[2].contains("(sessions=4)"), "{err}");
    assert!(out.contains("sweep of sessions:") && out.contains("calls/sec"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("knee: ")), "the knee is said: {out}");
    assert_eq!(out.lines().filter(|l| l.trim_start().starts_with(['1', '2', '4'])).count(), 3, "{out}");
    let said = out.lines().count() + err.lines().count();
    assert!(said <= 20, "{said} lines:\n{out}{err}");
    for text in [&out, &err] {
        assert!(!text.contains("MB/s") && !text.contains("(0B)") && !text.contains("per I/O"), "{text}");
    }
    let (one, _) = run("2");
    assert!(one.contains("us per call") && one.contains("calls/sec"), "{one}");
    assert!(!one.contains("MB/s") && !one.contains("(0B)") && !one.contains("per I/O"), "{one}");
    let group = spindle_with_store(&store).args(["runs", "show", "--group", "1"]).output().unwrap();
    let group = String::from_utf8_lossy(&group.stdout);
    assert!(group.contains("sweep of sessions:") && !group.contains("MB/s"), "the stored group says the same: {group}");
}

/// A load cut short by a full disk (the database on a 4 MiB tmpfs, full long before 1M rows,
/// whatever the timing) is saved as a run that did not complete, with what filled up, and
/// exits 1, as the log test and the large operations do; the rows committed before it stay.
#[test]
fn a_load_that_fills_the_disk_is_saved_as_an_incomplete_run_and_exits_1() {
    let Some(fs) = crate::io_safety::Tmpfs::mount("4M") else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let db = format!("sqlite://{}", fs.0.join("hammer.db").display());
    let out = hammer(&store, &["load", "--db", &db, "--rows", "1M", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("out of space"), "the cause is said: {stderr}");
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (record["details"]["kind"].as_str(), record["status"].as_str()),
        (Some("hammer-load"), Some("interrupted"))
    );
    let errors = record["errors"].as_object().unwrap();
    assert!(errors.keys().any(|e| e.contains("full")), "what stopped it is in the record: {errors:?}");
    assert!(record["summary"]["ios"].as_u64().unwrap() < 1_000_000);
    let runs = crate::common::runs_in(&store);
    assert_eq!(runs.len(), 1, "the partial load is saved");
    assert_eq!((runs[0]["kind"].as_str(), runs[0]["status"].as_str()), (Some("hammer-load"), Some("interrupted")));
}

/// The window holds the calls that ended inside it: with no warm-up, no counted call can have
/// taken longer than the window, however long the calls queued on SQLite's one writer.
#[test]
fn no_counted_call_is_longer_than_the_window_it_is_counted_in() {
    let (_dir, store, db) = loaded();
    let args = ["run", "--db", &db, "--sessions", "50", "--read-ratio", "0", "--duration", "300ms", "--warmup", "0s"];
    let out = hammer(&store, &[&args[..], &["--json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    crate::io_output::assert_valid(&r);
    let window_ns = r["measured_seconds"].as_f64().unwrap() * 1e9;
    let slowest = r["summary"]["write"]["latency_ns"]["max"].as_f64().unwrap();
    assert!(slowest <= window_ns, "a call of {slowest} ns counted in a window of {window_ns} ns");
    assert!(r["in_flight_at_end"].as_u64().unwrap() <= 50, "at most one call a session was running at the end");
    assert_eq!(
        r["sessions_started"]["started"].as_u64().unwrap() + r["sessions_started"]["not_started"].as_u64().unwrap(),
        50
    );
}

/// Sessions that began no call before a short window's end are said, in the record and on
/// stderr, with how many did and when the last began: at 2 calls/s over 20 sessions each
/// session's first call comes within 10 s of the start, so most fall after a 200 ms window.
#[test]
fn sessions_that_began_no_call_in_a_short_window_are_said() {
    let (_dir, store, db) = loaded();
    let args = ["run", "--db", &db, "--sessions", "20", "--rate", "2", "--duration", "200ms", "--warmup", "0s"];
    let out = hammer(&store, &[&args[..], &["--json"]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    crate::io_output::assert_valid(&r);
    let starts = &r["sessions_started"];
    let count = |what: &str| starts[what].as_u64().unwrap();
    assert!(count("not_due") > 0, "{starts}");
    assert_eq!(count("started") + count("not_started") + count("not_due"), 20, "{starts}");
    let warning = format!("{} of 20 sessions had no call due in the measured window", count("not_due"));
    let warnings = r["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w.as_str().unwrap().starts_with(&warning)), "{warnings:?}");
    assert!(stderr.contains(&warning), "said as it arises: {stderr}");
    assert!(stderr.contains(&format!("{} of 20 began a call in the measured window", count("started"))), "{stderr}");
}
