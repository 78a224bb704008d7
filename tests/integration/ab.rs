//! `spindle ab`: two workload files alternated in rounds and compared round by round. The
//! tests use the null engine under a rate, so the figures compared are certain by design.

use crate::common::{Ext4, Loop, path_str, spindle_with_store};
use std::path::{Path, PathBuf};

/// A workload file: the null engine, capped at `rate` IOPS, on `target`. A window counts the
/// I/Os that complete inside it, so the schedule's last start (at 400 ms for 10 a second, 450
/// for 20) leaves 40 ms or more before the window's 490 ms end: a host that stalls the worker
/// for less cannot take an I/O out of it.
fn workload(dir: &Path, name: &str, rate: u32) -> PathBuf {
    let path = dir.join(name);
    let text = format!(
        "engine = \"null\"\nduration = \"490ms\"\n\n[[target]]\npath = \"{}\"\nrate = {rate}\n",
        path_str(&dir.join("t.dat"))
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_doubled_rate_is_better_and_every_run_is_kept_with_its_side_and_round() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let (a, b) = (workload(dir.path(), "a.toml", 10), workload(dir.path(), "b.toml", 20));
    let out = spindle_with_store(&store).arg("ab").args([&a, &b]).args(["--rounds", "3", "--json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["basis"], "paired");
    assert_eq!(c["sequence"], "rounds");
    assert_eq!(c["metrics"][0]["metric"], "iops");
    assert_eq!(c["metrics"][0]["verdict"], "better", "{c}");
    assert_eq!(c["a_runs"].as_array().unwrap().len(), 3);
    // The difference is said before the first run, and the order with the side chosen first.
    let listed = stderr.find("targets[0].workload.rate_iops: A 10; B 20").expect("the difference is listed");
    assert!(listed < stderr.find("run 1 of 6").unwrap(), "{stderr}");
    assert!(stderr.contains("(chosen at random)"), "{stderr}");

    let list = spindle_with_store(&store).args(["runs", "list", "--label", "ab=b", "--json"]).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 3);
    let rounds: Vec<&str> = runs.iter().map(|r| r["labels"]["round"].as_str().unwrap()).collect();
    assert_eq!(rounds.iter().collect::<std::collections::BTreeSet<_>>().len(), 3, "{rounds:?}");
    assert!(runs.iter().all(|r| r["group"] == runs[0]["group"]));
}

#[test]
fn identical_files_come_out_equivalent() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let (a, b) = (workload(dir.path(), "a.toml", 10), workload(dir.path(), "b.toml", 10));
    let out = spindle_with_store(&store).arg("ab").args([&a, &b]).args(["--rounds", "2"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let iops = stdout.lines().find(|l| l.starts_with("IOPS")).expect("a table row for IOPS");
    assert!(iops.ends_with("equivalent"), "{stdout}");
    assert!(stdout.contains("paired t-test"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("A and B are the same workload"));
}

#[test]
fn bad_input_names_the_file_or_flag() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let a = workload(dir.path(), "a.toml", 400);
    let missing = dir.path().join("missing.toml");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = spindle_with_store(&store).arg("ab").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let err = run(&[a.as_os_str(), missing.as_os_str()]);
    assert!(err.contains(path_str(&missing)) && err.contains("cannot read"), "{err}");

    let broken = dir.path().join("broken.toml");
    std::fs::write(&broken, "engine = \"null\"\n[[target]]\npath = \"/tmp/x.dat\"\ndepth = \"deep\"\n").unwrap();
    let err = run(&[a.as_os_str(), broken.as_os_str()]);
    assert!(err.contains("broken.toml line 4 (depth)"), "{err}");

    let err = run(&[a.as_os_str(), a.as_os_str(), "--rounds".as_ref(), "1".as_ref()]);
    assert!(err.contains("--rounds 1") && err.contains("at least 2"), "{err}");
    assert!(!store.exists(), "nothing was measured, so no store was created");
}

/// Whether loop device `dev` (`/dev/loop3`) reads its backing file with direct I/O.
fn loop_dio(dev: &str) -> Option<bool> {
    let name = dev.trim_start_matches("/dev/");
    std::fs::read_to_string(format!("/sys/block/{name}/loop/dio")).ok().map(|d| d.trim() == "1")
}

#[test]
fn a_loop_devices_direct_io_on_against_off_is_listed_among_the_differences() {
    // Both images in this test's scratch directory; each loop detached (and its filesystem
    // unmounted) when its guard drops, before the directory goes.
    let dir = tempfile::tempdir().unwrap();
    let attach = |name: &str, dio: &str| {
        Loop::over(dir.path().join(name), 64 << 20, &[&format!("--direct-io={dio}")]).and_then(Ext4::on)
    };
    let (Some(on), Some(off)) = (attach("on.img", "on"), attach("off.img", "off")) else { return };
    let on_dev = String::from_utf8(
        std::process::Command::new("findmnt").args(["-n", "-o", "SOURCE"]).arg(&on.mount).output().unwrap().stdout,
    )
    .unwrap();
    if loop_dio(on_dev.trim()) != Some(true) {
        spindle_testenv::unavailable(
            "a loop device with direct I/O",
            format!("{} did not take --direct-io=on (its backing file's filesystem refuses O_DIRECT?)", on_dev.trim()),
        );
        return;
    }
    let workload = |name: &str, mount: &Path| {
        let path = dir.path().join(name);
        let text = format!(
            "engine = \"sync\"\nduration = \"300ms\"\nwarmup = \"0s\"\n\n[[target]]\npath = \"{}\"\n\
             size = \"8M\"\nblock = \"4K\"\nread = 100\nrandom = 100\n",
            path_str(&mount.join("t.dat"))
        );
        std::fs::write(&path, text).unwrap();
        path
    };
    let (a, b) = (workload("a.toml", &on.mount), workload("b.toml", &off.mount));
    let store = dir.path().join("results.db");
    let out = spindle_with_store(&store).arg("ab").args([&a, &b]).args(["--rounds", "2"]).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");

    // Said before the first run, beside the paths, with what it means.
    let listed = stderr
        .find(
            "environment devices[0].loop_direct_io: A on (the loop reads and writes its backing file directly); B off",
        )
        .unwrap_or_else(|| panic!("the loops' direct I/O is listed before the runs:\n{stderr}"));
    assert!(listed < stderr.find("run 1 of 4").unwrap(), "{stderr}");
    assert!(stderr.contains("environment devices[0].loop_backing_file: A "), "{stderr}");
    assert!(stderr.contains(path_str(&dir.path().join("off.img"))), "{stderr}");
    assert!(stderr.contains("so that side's rates may be memory's"), "{stderr}");
    // And in the comparison, among what the experiment compares.
    let differ = stdout.find("A and B differ in (what this experiment compares):").expect(&stdout);
    let dio = stdout.find("environment devices[0].loop_direct_io: A on").expect(&stdout);
    assert!(differ < dio, "{stdout}");

    // Each run records its loop: the backing file and the mode.
    let runs = crate::common::runs_in(&store);
    assert_eq!(runs.len(), 4, "{runs:?}");
    let show =
        spindle_with_store(&store).args(["runs", "show", "--json"]).arg(runs[0]["id"].to_string()).output().unwrap();
    let record: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap_or_default();
    let device = &record["environment"]["devices"][0];
    let side_on = device["loop_direct_io"] == true;
    let image = if side_on { "on.img" } else { "off.img" };
    assert_eq!(device["loop_backing_file"], path_str(&dir.path().join(image)), "{record}");
    drop((on, off));
}
