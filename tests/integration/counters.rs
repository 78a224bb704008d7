//! Counters sampled beside a run: the disk under the target, CPU and memory, in the record.

use crate::common::{Ext4, Loop, io_json, io_usage_error, path_str};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// A run of random direct reads of a 32 MiB file at `target` for 1.5 s, its counters sampled
/// every 250 ms.
fn sampled_run(target: &Path) -> serde_json::Value {
    let args = ["--engine", "sync", "--target", path_str(target), "--size", "32M", "--duration", "1500ms"];
    io_json(&[&args[..], &["--sample-interval", "250ms"]].concat())
}

#[test]
fn a_run_records_the_counters_of_the_disk_under_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("c.dat");
    let began = std::time::Instant::now();
    let r = sampled_run(&target);
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

/// A file on an ext4 loop device: the run samples and records the loop, a disk of its own
/// (its size, its counters), and names and samples the disk its backing file is on beneath it.
#[test]
fn a_run_on_a_loop_device_samples_and_records_the_loop_and_names_the_disk_under_it() {
    let scratch = tempfile::tempdir().unwrap();
    let backing = scratch.path().join("io.img");
    let Some(device) = Loop::over(backing.clone(), 256 << 20, &[]) else { return };
    let name = device.0.trim_start_matches("/dev/").to_string();
    // The disk the backing file is on, as the kernel names its device number.
    let dev = std::fs::metadata(&backing).unwrap().dev();
    let link = std::fs::read_link(format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev)));
    let under = link.ok().map(|l| l.file_name().unwrap().to_string_lossy().into_owned());
    let Some(fs) = Ext4::on(device) else { return };
    let r = sampled_run(&fs.mount.join("t.dat"));
    let d = &r["environment"]["devices"][0];
    assert_eq!((d["device"].as_str(), d["partition"].as_str()), (Some(name.as_str()), None), "{d}");
    assert_eq!(d["size_bytes"], 256 << 20, "the loop's own size: {d}");
    assert_eq!(r["targets"][0]["device"], name.as_str());
    match &under {
        Some(disk) => assert_eq!(d["disks"], serde_json::json!([disk]), "the disk under it named: {d}"),
        None => {
            spindle_testenv::unavailable("a scratch directory on a block device", "the disk under the loop not checked")
        }
    }
    let paths: Vec<&str> =
        r["counters"]["counters"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    let reads = r["counters"]["counters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == format!("\\PhysicalDisk({name})\\Disk Reads/sec"))
        .unwrap_or_else(|| panic!("the loop's counters: {paths:?}"));
    assert!(reads["avg"].as_f64().unwrap() > 0.0, "direct reads reach the loop: {reads}");
    // The loop, and the disk under its backing file beside it, to see what reached the disk.
    let disks: Vec<&&str> = paths.iter().filter(|p| p.starts_with("\\PhysicalDisk(")).collect();
    let watched = |p: &str| {
        p.starts_with(&format!("\\PhysicalDisk({name})"))
            || under.as_ref().is_some_and(|u| p.starts_with(&format!("\\PhysicalDisk({u})")))
    };
    assert!(disks.iter().all(|p| watched(p)), "the loop and the disk under it: {disks:?}");
    // The disk under it is sampled, to see what of the loop's I/O reached it: what the backing
    // file's page cache kept from it is said when the disk moved far less than spindle did (a
    // unit test of the report's holds that; here other tests share the disk, so it may not).
    if let Some(u) = &under {
        assert!(paths.contains(&format!("\\PhysicalDisk({u})\\Disk Read Bytes/sec").as_str()), "{paths:?}");
    }
}

/// Writes of 8 KiB each followed by an fdatasync, on an ext4 loop device: the loop's write
/// counters count the writes that carried data, 8 KiB each, and its flushes apart, about one a
/// write (a kernel of the 6 series counts each of those flushes as a write of no bytes too).
#[test]
fn a_runs_disk_writes_are_those_that_carried_data_and_its_flushes_apart() {
    let scratch = tempfile::tempdir().unwrap();
    let Some(device) = Loop::over(scratch.path().join("io.img"), 256 << 20, &[]) else { return };
    let name = device.0.trim_start_matches("/dev/").to_string();
    let Some(fs) = Ext4::on(device) else { return };
    let target = fs.mount.join("t.dat");
    let args = ["--engine", "sync", "--target", path_str(&target), "--size", "32M", "--duration", "2s"];
    let r = io_json(&[&args[..], &["--read", "0", "--block", "8K", "--fsync-every", "1"]].concat());
    let log = &r["counters"]["counters"];
    let avg = |counter: &str| {
        let path = format!("\\PhysicalDisk({name})\\{counter}");
        log.as_array().unwrap().iter().find(|c| c["path"] == path.as_str()).map(|c| c["avg"].as_f64().unwrap())
    };
    let Some(flushes) = avg("Disk Flushes/sec") else {
        spindle_testenv::unavailable("a kernel that counts flushes (5.5 and later)", "no flush counter");
        return;
    };
    // ext4 may commit its journal once or twice meanwhile: a few writes of other sizes among
    // some thousands.
    let size = avg("Avg. Disk Bytes/Write").unwrap();
    assert!((size - 8192.0).abs() <= 82.0, "{size} bytes a write, not half of 8 KiB");
    let writes = avg("Disk Writes/sec").unwrap();
    assert!((flushes - writes).abs() <= 0.05 * writes, "{flushes} flushes a second apart from {writes} writes");
}
