//! Level shifts and swings on real devices: a loop device whose block throttle (cgroup v1
//! blkio) drops from 6,000 to 1,500 reads a second partway through a run is a level shift in
//! its record and its text; one held at 1,500 the whole run is none; a run too short to test
//! says so. The step is four times, far beyond the 1.5 times a shift needs, so the verdict is
//! certain whatever this host's speed, and no test asserts when it happened.

use crate::common::{Loop, Throttle, spindle_with_store};
use std::path::Path;
use std::time::Duration;

/// 4 KiB random reads of the device at depth 8, `seconds` long, no warm-up, inside `throttle`.
fn reads(throttle: &Throttle, device: &str, store: &Path, seconds: u32) -> std::process::Command {
    let mut cmd = throttle.command(&assert_cmd::cargo::cargo_bin("spindle"));
    cmd.args(["io", "--target", device, "--read", "100", "--random", "100", "--block", "4K", "--depth", "8"])
        .args(["--duration", &format!("{seconds}s"), "--warmup", "0s", "--json", "--quiet"])
        .env("SPINDLE_STORE", store)
        .env("NO_COLOR", "1");
    cmd
}

/// Reads the device has completed (its /sys/block stat's first field).
fn completed_reads(device: &str) -> u64 {
    let name = device.trim_start_matches("/dev/");
    let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    stat.split_whitespace().next().unwrap().parse().unwrap()
}

fn record(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_throttle_that_drops_for_good_is_a_level_shift_and_one_that_holds_is_none() {
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let Some(device) = Loop::over(scratch.path().join("disk.img"), 256 << 20, &["--direct-io=on"]) else { return };
    let Some(throttle) = Throttle::device(&device.0, 1500) else { return };
    let store = scratch.path().join("results.db");

    let held = record(&reads(&throttle, &device.0, &store, 15).output().unwrap());
    assert!(held.get("level_shift").is_none(), "a rate held by the throttle: {}", held["timeseries"]);
    assert!(held["swing"]["p95"].as_f64().unwrap() <= 1500.0 * 1.15, "{}", held["swing"]);

    // 6,000 a second until the run has read for a while, then 1,500 to its end.
    assert!(throttle.set(6000));
    let before = completed_reads(&device.0);
    let run = reads(&throttle, &device.0, &store, 20).stdout(std::process::Stdio::piped()).spawn().unwrap();
    while completed_reads(&device.0) < before + 1000 {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_secs(8));
    assert!(throttle.set(1500));
    let dropped = record(&run.wait_with_output().unwrap());
    let shift = &dropped["level_shift"];
    let (at, before, after) =
        (shift["at_seconds"].as_f64(), shift["before"].as_f64().unwrap_or(0.0), shift["after"].as_f64().unwrap_or(0.0));
    assert!(at.is_some(), "a fall from 6,000 to 1,500 is a shift: {}", dropped["timeseries"]);
    assert!(after <= 1500.0 * 1.15 && before >= 2.0 * after, "{shift}");

    // The text says it, as the record keeps it (run 2 of this store).
    let text = spindle_with_store(&store).args(["runs", "show", "2"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    let said = text.lines().find(|l| l.starts_with("over time: ")).unwrap_or_else(|| panic!("{text}"));
    assert!(said.starts_with("over time: the rate fell from "), "{said}");
    assert!(said.ends_with("and stayed there: a burst allowance running out, or other load"), "{said}");
}

#[test]
fn a_run_too_short_to_test_says_so_and_keeps_no_shift_or_swing() {
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let out = spindle_with_store(&scratch.path().join("results.db"))
        .current_dir(scratch.path())
        .args(["io", "--engine", "null", "--duration", "3s", "--warmup", "0s", "--size", "1M", "--target", "x.dat"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("over time: too short to test for a lasting change of level: 3 whole seconds, 10 needed"),
        "{text}"
    );
    let json = spindle_with_store(&scratch.path().join("results.db")).args(["runs", "show", "1", "--json"]).output();
    let run: serde_json::Value = serde_json::from_slice(&json.unwrap().stdout).unwrap();
    assert!(run.get("level_shift").is_none() && run.get("swing").is_none(), "{run}");
}
