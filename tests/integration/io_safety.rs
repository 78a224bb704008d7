//! Nothing the user owns is overwritten or lost: existing files, block devices, full disks.

use crate::common::{Loop, io_usage_error, path_str, spindle};
use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn an_existing_file_is_never_written_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("precious.db");
    let content: Vec<u8> = (0..(1 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&target, &content).unwrap();
    let err = io_usage_error(&["--engine", "sync", "--target", path_str(&target), "--size", "1M", "--read", "50"]);
    assert!(err.contains("precious.db") && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read(&target).unwrap(), content, "the file is untouched");

    // Reading it destroys nothing, so it is allowed; and the file stays.
    let out = spindle()
        .args(["io", "--engine", "sync", "--size", "1M", "--duration", "200ms", "--buffered", "--target"])
        .arg(&target)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&target).unwrap(), content, "still untouched after reading");

    // With --force it is written, and still not deleted afterwards.
    let out = spindle()
        .args(["io", "--engine", "sync", "--size", "1M", "--duration", "200ms", "--buffered", "--read", "0", "--force"])
        .arg("--target")
        .arg(&target)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(target.exists(), "a forced file is the user's: it is not removed");
}

/// A scratch tmpfs of `size`, unmounted on drop; None (with a notice) where mounting is not allowed.
pub struct Tmpfs(pub PathBuf);

impl Tmpfs {
    pub fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap().keep();
        let out =
            Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(&dir).output();
        if let Some(why) = match out {
            Ok(o) if o.status.success() => None,
            Ok(o) => Some(String::from_utf8_lossy(&o.stderr).trim().to_string()),
            Err(e) => Some(e.to_string()),
        } {
            let _ = std::fs::remove_dir(&dir);
            spindle_testenv::unavailable("a tmpfs mount", format!("mount: {why}"));
            return None;
        }
        Some(Tmpfs(dir))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn not_enough_space_is_a_clear_error_and_leaves_no_file() {
    let Some(fs) = Tmpfs::mount("8M") else { return };
    let target = fs.0.join("big.dat");
    let err = io_usage_error(&["--engine", "sync", "--buffered", "--target", path_str(&target), "--size", "64M"]);
    assert!(err.contains("big.dat") && err.contains("space"), "{err}");
    assert!(!target.exists());
}

#[test]
fn block_devices_need_allow_destroy_and_direct_io_names_the_sector_size() {
    let Some(dev) = Loop::attach(4096) else { return };
    let name = Path::new(&dev.0).file_name().unwrap().to_str().unwrap().to_string();
    let err = io_usage_error(&["--engine", "sync", "--target", &dev.0, "--read", "0", "--duration", "200ms"]);
    assert!(err.contains(&dev.0) && err.contains("--allow-destroy"), "{err}");

    let err = io_usage_error(&["--engine", "sync", "--target", &dev.0, "--block", "512", "--duration", "200ms"]);
    assert!(err.contains(&name) && err.contains("4096"), "the device's limit is named: {err}");

    let out = spindle()
        .args(["io", "--engine", "sync", "--block", "4K", "--read", "0", "--duration", "200ms", "--allow-destroy"])
        .args(["--json", "--target", &dev.0])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["details"]["spec"]["targets"][0]["size"], 64 << 20, "a device's size is its own");
    assert!(Path::new(&dev.0).exists(), "a device is never removed");
}

/// Thin storage filling up during a run: a 64 MiB loop device whose backing file is sparse on
/// a 16 MiB tmpfs, so its backing space runs out after 16 MiB of new writes, whatever the
/// timing. The run stops there, its result is printed and saved, and it exits 1 naming the
/// cause.
#[test]
fn a_disk_that_fills_up_during_a_run_ends_it_with_the_result_saved() {
    let Some(fs) = Tmpfs::mount("16M") else { return };
    let backing = fs.0.join("thin.img");
    std::fs::File::create(&backing).unwrap().set_len(64 << 20).unwrap();
    let out = Command::new("losetup").args(["--find", "--show"]).arg(&backing).output().unwrap();
    if !out.status.success() {
        spindle_testenv::unavailable("a loop device", String::from_utf8_lossy(&out.stderr).trim());
        return;
    }
    let device = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let run = crate::common::spindle_with_store(&store)
        .args(["io", "--engine", "sync", "--block", "64K", "--read", "0", "--random", "0", "--allow-destroy"])
        .args(["--duration", "60s", "--json", "--target", &device])
        .output()
        .unwrap();
    let _ = Command::new("losetup").args(["-d", &device]).status();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("ran out of space") && stderr.contains("saved as run"), "{stderr}");
    let record: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let written = record["summary"]["bytes"].as_u64().unwrap();
    assert!(written > 0 && written <= 16 << 20, "{written} bytes written before the space ran out");
    assert!(record["errors"].to_string().contains("ENOSPC"), "{}", record["errors"]);
    let runs = crate::common::spindle_with_store(&store).args(["runs", "list", "--json"]).output().unwrap();
    let listed: serde_json::Value = serde_json::from_slice(&runs.stdout).unwrap();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "the run is in the store");
}

/// A path that is not UTF-8 is a path like any other: the run is measured, saved and its
/// test file removed (it once panicked after measuring, losing the run).
#[test]
fn a_target_path_that_is_not_utf8_costs_nothing() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let target = dir.path().join(std::ffi::OsStr::from_bytes(b"x\xff.dat"));
    let out = crate::common::spindle_with_store(&store)
        .args(["io", "--engine", "null", "--size", "1M", "--duration", "100ms", "--warmup", "0s", "--json", "--target"])
        .arg(&target)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(record["command_line"].as_array().unwrap().iter().any(|a| a.as_str().unwrap().contains("x\u{fffd}.dat")));
    assert!(!target.exists(), "the test file it made is removed");
    let list = crate::common::spindle_with_store(&store).args(["runs", "list", "--json"]).output().unwrap();
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&list.stdout).unwrap().as_array().unwrap().len(), 1);
}

/// The test-file mark on `path`, as the kernel has it.
fn mark(path: &Path) -> Option<String> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let mut buf = [0u8; 64];
    // SAFETY: valid NUL-terminated strings; the kernel writes at most buf.len() bytes.
    let n =
        unsafe { libc::getxattr(c.as_ptr(), c"user.spindle.testfile".as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    (n > 0).then(|| String::from_utf8_lossy(&buf[..n as usize]).into_owned())
}

/// Starts `spindle io` on `target` and SIGKILLs it once the file's mark says `when`.
fn kill_when_marked(target: &Path, size: &str, when: &str) {
    let mut child = crate::common::spindle_process()
        .args(["io", "--engine", "sync", "--size", size, "--duration", "60s", "--keep-file", "-q", "--target"])
        .arg(target)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !mark(target).is_some_and(|m| m.starts_with(when)) {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the mark never said {when}: {:?}", mark(target));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_run_killed_mid_fill_or_mid_measurement_leaves_a_file_the_next_run_handles() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("k.dat");
    let again = |size: &str| {
        spindle()
            .args(["io", "--engine", "sync", "--size", size, "--duration", "200ms", "--keep-file", "--target"])
            .arg(&target)
            .output()
            .unwrap()
    };
    // Killed while filling: the half-made file is known for spindle's and made again.
    kill_when_marked(&target, "512M", "v1 filling");
    if mark(&target).is_none() {
        spindle_testenv::unavailable("user xattrs", "the test file was not marked");
        return;
    }
    let out = again("512M");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("half-filled: it was made again"), "{stderr}");
    assert_eq!(mark(&target).as_deref(), Some("v1 size=536870912"));

    // Killed while measuring: the file is complete, so it is reused as it is.
    std::fs::remove_file(&target).unwrap();
    kill_when_marked(&target, "64M", "v1 size=");
    let out = again("64M");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("reusing test file"), "{stderr}");
}
