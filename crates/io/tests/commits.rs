//! Commits (writes and the flush that makes them durable) on the sync engine with a real file:
//! what is recorded, and how it relates to the write and flush figures beside it.

use spindle_io::collect::{RunContext, build_record};
use spindle_io::run::run_job;
use spindle_model::record::IoStats;
use spindle_model::spec::{EngineKind, JobSpec, MixEntry, TargetSpec, Workload};
use std::sync::atomic::AtomicBool;

/// Sequential 4 KiB buffered writes (tmpfs has no O_DIRECT) to a fresh 1 MiB file in memory
/// (/dev/shm), measured from the start (no warm-up). A window counts the flushes that complete
/// in it: on tmpfs a flush returns at once, where a disk another test keeps busy can hold one
/// past a 200 ms window.
fn log_writes(write_through: bool, fsync_every: u32) -> IoStats {
    let shm = std::path::Path::new("/dev/shm");
    let dir = if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() }.unwrap();
    let path = dir.path().join("log.dat");
    std::fs::File::create(&path).unwrap().set_len(1 << 20).unwrap();
    let spec = JobSpec {
        engine: EngineKind::Sync,
        duration_ns: 200_000_000,
        warmup_ns: 0,
        targets: vec![TargetSpec {
            path,
            size: 1 << 20,
            workload: Workload {
                mix: vec![MixEntry { block: 4096, weight: 1, read_pct: 0, random_pct: 0 }],
                threads: 1,
                depth: 1,
                rate_iops: None,
                buffered: true,
                write_through,
                fsync_every,
            },
        }],
        keep_file: false,
        force: false,
        allow_destroy: false,
        verify: false,
    };
    let outcome = run_job(&spec, &AtomicBool::new(false), &mut |_| {}).unwrap();
    let context = RunContext {
        labels: Default::default(),
        command_line: vec![],
        environment: Default::default(),
        counters: None,
        warnings: vec![],
    };
    build_record(&spec, &outcome, context).summary
}

fn sum(stats: &spindle_model::record::OpStats) -> u128 {
    stats.histogram.sum.parse().unwrap()
}

#[test]
fn a_commit_is_the_writes_and_the_flush_after_them() {
    let s = log_writes(false, 1);
    assert!(s.flush.count > 0);
    assert_eq!(s.commit.count, s.flush.count, "one commit per flush");
    // Each commit runs from its write's start to its flush's end, and the flush starts after
    // the write completed: a commit is never shorter than the two together. The run may stop
    // between the last write and its flush; that write is in no commit, and the writes that are
    // took at least the total less the longest write.
    let unflushed = s.write.ios - s.commit.count;
    assert!(unflushed <= 1, "{unflushed} writes outside any commit");
    let write_sum: u128 = s.write.histogram.sum.parse().unwrap();
    let committed_writes = write_sum - u128::from(unflushed) * u128::from(s.write.latency_ns.max);
    assert!(sum(&s.commit) >= sum(&s.flush) + committed_writes, "{:?} vs {:?} + {committed_writes}", s.commit, s.flush);
}

#[test]
fn several_writes_share_one_commit() {
    let s = log_writes(false, 4);
    assert_eq!(s.commit.count, s.flush.count);
    // The last group may end with the run, before its flush.
    assert!(s.write.ios >= 4 * s.commit.count && s.write.ios <= 4 * (s.commit.count + 1), "{} writes", s.write.ios);
}

#[test]
fn each_write_through_write_is_a_commit() {
    let s = log_writes(true, 0);
    assert!(s.write.ios > 0);
    assert_eq!(s.flush.count, 0);
    assert_eq!(s.commit.count, s.write.ios);
    assert_eq!(s.commit.histogram, s.write.histogram);
}

#[test]
fn unflushed_writes_have_no_commits() {
    let s = log_writes(false, 0);
    assert!(s.write.ios > 0);
    assert_eq!(s.commit.count, 0);
}
