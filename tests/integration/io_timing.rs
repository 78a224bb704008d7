//! What spindle says about time: I/Os owed when a rate was not kept (or in flight at the
//! window's end, so not in it), commit latency of flushed and write-through log writes, and
//! what the page cache absorbed, said once.

use crate::common::{io_json, path_str, spindle};

/// A scratch directory on the build's own filesystem (the system temp dir may be tmpfs, which
/// has no O_DIRECT).
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

#[test]
fn every_intended_start_is_issued_or_reported_behind_schedule() {
    // 20 IOPS over 2 threads for 250 ms: thread 0 at 0, 100, 200 ms, thread 1 (staggered by
    // half an interval) at 50, 150 ms.
    let r =
        io_json(&["--engine", "null", "--target", "t.dat", "--threads", "2", "--rate", "20", "--duration", "250ms"]);
    let ios = r["summary"]["ios"].as_u64().unwrap() + r["in_flight_at_end"].as_u64().unwrap();
    assert_eq!(ios + r["behind_schedule_ios"].as_u64().unwrap(), 5);
}

#[test]
fn a_rate_out_of_reach_says_how_far_behind_it_fell() {
    let args = ["io", "--engine", "null", "--target", "t.dat", "--rate", "1000000000", "--duration", "200ms"];
    let r = io_json(&args[1..]);
    let behind = r["behind_schedule_ios"].as_u64().unwrap();
    assert!(behind > 0);
    let issued = r["summary"]["ios"].as_u64().unwrap() + r["in_flight_at_end"].as_u64().unwrap();
    assert_eq!(issued + behind, 200_000_000, "1e9 IOPS for 0.2 s");
    let text = String::from_utf8(spindle().args(args).output().unwrap().stdout).unwrap();
    assert!(text.contains("\nbehind schedule by "), "{text}");
}

#[test]
fn flushed_log_writes_lead_with_their_commit_latency() {
    let dir = scratch();
    let target = dir.path().join("wal.dat");
    let args =
        ["--target", path_str(&target), "--size", "8M", "--duration", "500ms", "--profile", "postgres.wal-write"];
    let r = io_json(&args);
    let s = &r["summary"];
    let commits = s["commit"]["count"].as_u64().unwrap();
    assert!(commits > 0);
    assert_eq!(commits, s["flush"]["count"].as_u64().unwrap(), "fdatasync after every write: one commit each");
    let mean = |what: &str| s[what]["latency_ns"]["mean"].as_f64().unwrap();
    assert!(mean("commit") >= mean("flush") + mean("write") - 1.0, "a commit is a write and its flush");
    let out = spindle().arg("io").args(args).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let headline = text.find("commits (write + fdatasync").expect("the commit figure leads");
    assert!(headline < text.find("writes 100.0%").unwrap() && headline < text.find("flushes (fdatasync)").unwrap());
}

#[test]
fn each_write_through_write_is_a_commit() {
    let dir = scratch();
    let target = dir.path().join("log.dat");
    let r = io_json(&[
        "--target",
        path_str(&target),
        "--size",
        "8M",
        "--duration",
        "300ms",
        "--profile",
        "sqlserver.log-write",
    ]);
    let s = &r["summary"];
    assert!(s["write"]["ios"].as_u64().unwrap() > 0);
    assert_eq!(s["commit"]["count"], s["write"]["ios"]);
    assert_eq!(s["commit"]["histogram"], s["write"]["histogram"]);
}

#[test]
fn what_the_page_cache_absorbed_is_said_once() {
    let dir = scratch();
    let target = dir.path().join("buffered.dat");
    let args = [
        "io",
        "--target",
        path_str(&target),
        "--size",
        "16M",
        "--block",
        "64K",
        "--read",
        "2",
        "--buffered",
        "--duration",
        "1s",
        "--keep-file",
    ];
    let finding = "the page cache absorbed";
    // Whether the disk kept up during the second is the machine's business; where the finding
    // appears is spindle's: on stderr, and not again in the text report on stdout.
    let out = spindle().args(args).output().unwrap();
    let (stdout, stderr) = (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
    assert!(stderr.matches(finding).count() <= 1, "{stderr}");
    assert_eq!(stdout.matches(finding).count(), 0, "{stdout}");
    // Without a text report, the record carries it exactly when stderr says it.
    let out = spindle().args(args).arg("--json").output().unwrap();
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let in_record =
        record["warnings"].as_array().unwrap().iter().filter(|w| w.as_str().unwrap().contains(finding)).count();
    assert_eq!(in_record, String::from_utf8(out.stderr).unwrap().matches(finding).count());
    assert!(in_record <= 1);
    // Direct I/O has no page cache in its way.
    let direct = io_json(&["--target", path_str(&target), "--size", "16M", "--read", "2", "--duration", "300ms"]);
    assert!(!direct["warnings"].to_string().contains(finding));
}
