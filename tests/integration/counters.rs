//! Counters sampled beside a run: the disk under the target, CPU and memory, in the record.

use crate::common::{io_json, io_usage_error, path_str};

#[test]
fn a_run_records_the_counters_of_the_disk_under_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("c.dat");
    let began = std::time::Instant::now();
    let r = io_json(&[
        "--engine",
        "sync",
        "--target",
        path_str(&target),
        "--size",
        "32M",
        "--duration",
        "1500ms",
        "--sample-interval",
        "250ms",
    ]);
    let log = &r["counters"];
    assert_eq!(log["interval_seconds"], 0.25);
    let samples = log["t"].as_array().unwrap().len();
    // At least half the measured 1.5 s in samples; at most one per interval the process lived
    // (setting up and finishing take as long as this machine makes them).
    let most = (began.elapsed().as_secs_f64() / 0.25).ceil() as usize;
    assert!((3..=most).contains(&samples), "{samples} samples of 250ms in 1.5s measured, {most} at most");
    let counter = |path: &str| log["counters"].as_array().unwrap().iter().find(|c| c["path"] == path).cloned();
    assert!(counter("\\Processor(_Total)\\% Processor Time").is_some());
    assert!(counter("\\Memory\\Available MBytes").is_some_and(|c| c["avg"].as_f64().unwrap() > 0.0));
    match r["environment"]["devices"][0]["device"].as_str() {
        Some(disk) => {
            let reads = counter(&format!("\\PhysicalDisk({disk})\\Disk Reads/sec")).expect("the target's disk");
            assert_eq!(reads["values"].as_array().unwrap().len(), samples);
            assert!(reads["avg"].as_f64().unwrap() > 0.0, "direct reads reach the disk: {reads}");
        }
        None => spindle_testenv::unavailable("a temp directory on a block device", "disk counters not checked"),
    }
}

#[test]
fn the_sample_interval_is_checked() {
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--sample-interval", "10ms"]);
    assert!(err.contains("--sample-interval 10ms") && err.contains("100ms"), "{err}");
}
