//! The placement experiment on two loop devices with file systems of their own (so each
//! volume has its own queue and counters): both layouts run in alternating rounds on managed
//! instances, are compared, and the log's figures come from the volume that holds it.

use crate::common::spindle;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A loop device over a sparse file, with an ext4 file system mounted in a temp directory;
/// unmounted, detached and deleted on drop.
struct Volume {
    device: String,
    mount: tempfile::TempDir,
    backing: PathBuf,
}

impl Volume {
    fn make(dir: &Path, name: &str) -> Option<Volume> {
        let backing = dir.join(format!("{name}.img"));
        std::fs::File::create(&backing).and_then(|f| f.set_len(512 << 20)).ok()?;
        let run = |cmd: &mut Command| cmd.output().ok().filter(|o| o.status.success());
        let Some(out) = run(Command::new("losetup").args(["--find", "--show"]).arg(&backing)) else {
            spindle_testenv::unavailable("a loop device", "losetup failed");
            return None;
        };
        let device = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let mount = tempfile::tempdir().ok()?;
        let volume = Volume { device, mount, backing };
        if run(Command::new("mkfs.ext4").args(["-q", &volume.device])).is_none()
            || run(Command::new("mount").arg(&volume.device).arg(volume.mount.path())).is_none()
        {
            spindle_testenv::unavailable("a file system on a loop device", "mkfs.ext4 or mount failed");
            return None;
        }
        Some(volume)
    }

    fn name(&self) -> &str {
        self.device.trim_start_matches("/dev/")
    }
}

impl Drop for Volume {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.mount.path()).status();
        let _ = Command::new("losetup").args(["-d", &self.device]).status();
        let _ = std::fs::remove_file(&self.backing);
    }
}

#[test]
fn placement_compares_layouts_on_their_own_volumes() {
    if std::fs::read_dir("/usr/lib/postgresql").is_err() {
        spindle_testenv::unavailable("PostgreSQL server binaries", "not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (Some(a), Some(b)) = (Volume::make(dir.path(), "a"), Volume::make(dir.path(), "b")) else { return };
    let store = dir.path().join("results.db");
    let split = format!("{},{}", a.mount.path().display(), b.mount.path().display());
    let out = spindle()
        .env("XDG_DATA_HOME", dir.path().join("xdg"))
        .env("SPINDLE_STORE", &store)
        .args(["placement", "--engine", "postgres", "--same"])
        .arg(a.mount.path())
        .args(["--split", &split, "--workload", "logtest", "--rows", "300", "--batch", "1", "--rounds", "2", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let comparison: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(comparison["basis"], "paired");
    assert_eq!(comparison["counts"], "rows");
    assert_eq!(
        (comparison["a_runs"].as_array().unwrap().len(), comparison["b_runs"].as_array().unwrap().len()),
        (2, 2)
    );

    // Each layout's log test read the volume its log is on.
    let list = spindle().env("SPINDLE_STORE", &store).args(["runs", "list", "--json"]).output().unwrap();
    let runs: Vec<serde_json::Value> = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(runs.len(), 4, "{runs:?}");
    for run in &runs {
        let id = run["id"].to_string();
        let shown = spindle().env("SPINDLE_STORE", &store).args(["runs", "show", &id, "--json"]).output().unwrap();
        let record: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
        let layout = record["labels"]["layout"].as_str().unwrap().to_string();
        let device = record["details"]["figures"]["device"]["device"].as_str().unwrap_or("-").to_string();
        let expected = if layout == "same" { a.name() } else { b.name() };
        assert_eq!(device, expected, "layout={layout}");
        let written = record["details"]["figures"]["device"]["bytes_written"].as_u64().unwrap();
        assert!(written >= 300 * 4000, "the log's volume took the rows: {written}");
    }
    // The instances and their directories are gone.
    assert!(std::fs::read_dir(a.mount.path()).unwrap().flatten().all(|e| e.file_name() == "lost+found"));
    assert!(std::fs::read_dir(b.mount.path()).unwrap().flatten().all(|e| e.file_name() == "lost+found"));
}

#[test]
fn placement_bad_input_is_refused_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    for (args, needle) in [
        (vec!["--engine", "postgres", "--same", &d, "--split", &d], "--split"),
        (vec!["--engine", "postgres", "--same", "/no/such/dir", "--split", &format!("{d},{d}")], "not a directory"),
        (vec!["--engine", "db2", "--same", &d, "--split", &format!("{d},{d}")], "--engine"),
        (vec!["--engine", "postgres", "--same", &d, "--split", &format!("{d},{d}"), "--rounds", "1"], "--rounds"),
        (
            vec!["--engine", "postgres", "--same", &d, "--split", &format!("{d},{d}"), "--workload", "tpcc"],
            "--workload",
        ),
    ] {
        let out = spindle().env("XDG_DATA_HOME", dir.path().join("xdg")).arg("placement").args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing made");
}

#[test]
fn placement_of_hammer_says_per_session_count_what_was_waited_on_and_what_to_do() {
    if std::fs::read_dir("/usr/lib/postgresql").is_err() {
        spindle_testenv::unavailable("PostgreSQL server binaries", "not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (same, data, log) = (dir.path().join("same"), dir.path().join("data"), dir.path().join("log"));
    for d in [&same, &data, &log] {
        std::fs::create_dir(d).unwrap();
    }
    let out = spindle()
        .env("XDG_DATA_HOME", dir.path().join("xdg"))
        .env("SPINDLE_STORE", dir.path().join("results.db"))
        .args(["placement", "--engine", "postgres", "--same"])
        .arg(&same)
        .args(["--split", &format!("{},{}", data.display(), log.display())])
        .args(["--rows", "2000", "--sessions", "2,4", "--duration", "1s", "--warmup", "0s", "--rounds", "2"])
        .output()
        .unwrap();
    let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{err}");
    // Three directories of one file system: said before the first round.
    let warned = err.find("are on one physical device").expect("the shared device is said");
    assert!(warned < err.find("loading").expect("the table loaded"), "{err}");
    // Per session count: the machine and what the engine's sessions waited on.
    for point in ["load:", "sessions=2:", "sessions=4:"] {
        assert_eq!(text.matches(&format!("\n    {point}\n")).count(), 2, "{point} once per layout: {text}");
    }
    assert!(text.contains("machine: CPU % "), "{text}");
    assert!(text.contains("Sessions waiting on locks "), "{text}");
    // A closing sentence per session count, saying how sure it is.
    let closing = &text[text.find("\nrecommendation:\n").expect("a recommendation")..];
    for count in ["at sessions=2: ", "at sessions=4: "] {
        assert!(closing.contains(count), "{closing}");
    }
    assert!(closing.contains("2 paired rounds") || closing.contains("Cannot tell from 2 rounds"), "{closing}");
    assert!(closing.contains("one device"), "the shared device is in the answer: {closing}");
}
