//! Real I/O on real files: the sync and io_uring engines, write-through, fsync, Ctrl-C.

use crate::common::{io_json, path_str, spindle, spindle_process, uring_works};
use std::time::{Duration, Instant};

#[test]
fn sync_engine_reads_and_writes_a_created_test_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("t.dat");
    let r = io_json(&[
        "--engine",
        "sync",
        "--target",
        path_str(&target),
        "--size",
        "16M",
        "--read",
        "70",
        "--threads",
        "2",
        "--duration",
        "1s",
    ]);
    assert_eq!(r["status"], "complete");
    let s = &r["summary"];
    assert!(s["read"]["ios"].as_u64().unwrap() > 0 && s["write"]["ios"].as_u64().unwrap() > 0);
    assert!(s["latency_ns"]["min"].as_u64().unwrap() > 0, "real I/O takes time");
    assert!(s["cpu"]["us_per_io"].as_f64().unwrap() > 0.0);
    assert!(!target.exists(), "the test file is removed at the end");
    let spec = &r["details"]["spec"]["targets"][0];
    assert_eq!(spec["size"], 16 << 20);
}

#[test]
fn uring_engine_runs_direct_random_reads_at_depth() {
    let dir = tempfile::tempdir().unwrap();
    if !uring_works(dir.path()) {
        return;
    }
    let target = dir.path().join("u.dat");
    let r = io_json(&[
        "--engine",
        "uring",
        "--target",
        path_str(&target),
        "--size",
        "32M",
        "--block",
        "4K",
        "--depth",
        "16",
        "--duration",
        "1s",
    ]);
    assert_eq!(r["details"]["spec"]["engine"], "uring");
    assert!(r["summary"]["ios"].as_u64().unwrap() > 100);
    assert!(r["errors"].as_object().unwrap().is_empty(), "{}", r["errors"]);
}

#[test]
fn write_through_and_fsync_every_are_measured() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("log.dat");
    let r = io_json(&[
        "--engine",
        "sync",
        "--target",
        path_str(&target),
        "--size",
        "8M",
        "--block",
        "8K",
        "--read",
        "0",
        "--random",
        "0",
        "--fsync-every",
        "2",
        "--duration",
        "1s",
    ]);
    let s = &r["summary"];
    let writes = s["write"]["ios"].as_u64().unwrap();
    let flushes = s["flush"]["count"].as_u64().unwrap();
    assert!(flushes > 0 && writes.abs_diff(2 * flushes) <= 2, "writes {writes}, flushes {flushes}");
    assert!(s["flush"]["latency_ns"]["mean"].as_f64().unwrap() > 0.0);
    let r = io_json(&[
        "--engine",
        "sync",
        "--target",
        path_str(&target),
        "--size",
        "8M",
        "--block",
        "8K",
        "--read",
        "0",
        "--random",
        "0",
        "--write-through",
        "--duration",
        "500ms",
    ]);
    assert!(r["summary"]["write"]["ios"].as_u64().unwrap() > 0);
    assert!(r["targets"][0]["workload"].as_str().unwrap().contains("write-through"));
}

#[test]
fn ctrl_c_prints_the_partial_result_marked_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let target = dir.path().join("i.dat");
    let child = spindle_process()
        .env("SPINDLE_STORE", &store)
        .args(["io", "--engine", "sync", "--size", "8M", "--duration", "60s", "--json", "--target"])
        .arg(&target)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once the run is under way: its worker thread exists only after the test file
    // is made and the Ctrl-C handler installed.
    let worker = format!("/proc/{}/task", child.id());
    let started = Instant::now();
    while !threads_named(&worker).iter().any(|n| n == "spindle-t0-0") {
        assert!(started.elapsed() < Duration::from_secs(120), "the run never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the partial record is printed");
    assert_eq!(r["status"], "interrupted");
    assert!(r["measured_seconds"].as_f64().unwrap() < 60.0);
    assert!(!target.exists(), "the test file is removed after an interrupt too");
    assert!(store.exists(), "the interrupted run is saved, in the test's own store");
}

/// The names of a process's threads (`/proc/PID/task/*/comm`).
fn threads_named(tasks: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(tasks) else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
        .map(|n| n.trim().to_string())
        .collect()
}

#[test]
fn keep_file_keeps_the_test_file_and_the_next_run_reuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("k.dat");
    let run = || {
        spindle()
            .args(["io", "--engine", "sync", "--size", "8M", "--duration", "200ms", "--keep-file", "--target"])
            .arg(&target)
            .output()
            .unwrap()
    };
    let first = run();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(target.exists(), "--keep-file keeps it");
    let modified = std::fs::metadata(&target).unwrap().modified().unwrap();
    let second = run();
    assert!(second.status.success());
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(stderr.contains("reusing"), "{stderr}");
    assert_eq!(std::fs::metadata(&target).unwrap().modified().unwrap(), modified, "a read-only run changes nothing");
}
