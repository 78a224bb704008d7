//! Helpers shared by the integration tests.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Command as ProcessCommand;

/// The spindle binary, with no colour and a results store of this test process's own under
/// cargo's scratch directory, so tests never write to the user's store.
pub fn spindle() -> Command {
    Command::from_std(spindle_process())
}

/// The same as a plain process, for a test that must signal it while it runs.
pub fn spindle_process() -> ProcessCommand {
    let mut cmd = ProcessCommand::new(assert_cmd::cargo::cargo_bin("spindle"));
    let store = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("stores/{}.db", std::process::id()));
    cmd.env("SPINDLE_STORE", store).env("NO_COLOR", "1");
    cmd
}

/// The spindle binary using the store at `store`.
pub fn spindle_with_store(store: &Path) -> Command {
    let mut cmd = spindle();
    cmd.env("SPINDLE_STORE", store);
    cmd
}

/// Runs `spindle io ... --json` and returns the parsed record; panics with stderr on failure.
pub fn io_json(args: &[&str]) -> serde_json::Value {
    let out = spindle().arg("io").args(args).arg("--json").output().expect("run spindle");
    assert!(out.status.success(), "spindle io {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON document")
}

/// Runs `spindle io ...` expecting a usage error; returns stderr.
pub fn io_usage_error(args: &[&str]) -> String {
    let out = spindle().arg("io").args(args).output().expect("run spindle");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "spindle io {args:?} should exit 2; stderr: {stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout for a usage error");
    stderr
}

/// Whether a database engine's server binaries (`postgres`, `mariadb`) are installed, for a
/// managed instance; a skip (a failure under SPINDLE_REQUIRE_SERVERS=1) when not.
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub fn installed(engine: &str) -> bool {
    let found = match engine {
        "postgres" => std::fs::read_dir("/usr/lib/postgresql").is_ok_and(|mut d| d.next().is_some()),
        _ => Path::new("/usr/sbin/mariadbd").exists(),
    };
    if !found {
        spindle_testenv::unavailable(&format!("{engine} server binaries"), "not installed");
    }
    found
}

/// The runs in `store` as `runs list --json` gives them (none while it does not exist yet).
pub fn runs_in(store: &Path) -> Vec<serde_json::Value> {
    let out = spindle().env("SPINDLE_STORE", store).args(["runs", "list", "--json"]).output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_default()
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// Whether io_uring works here (probed by running the real engine briefly).
pub fn uring_works(dir: &Path) -> bool {
    let target = dir.join("probe.dat");
    let out = spindle()
        .args(["io", "--engine", "uring", "--size", "1M", "--duration", "50ms", "--buffered", "--target"])
        .arg(&target)
        .output()
        .expect("run spindle");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let works = out.status.success() && !stderr.contains("io_uring is not available");
    if !works {
        spindle_testenv::unavailable("io_uring", stderr.trim());
    }
    works
}

/// A loop device over a sparse file, detached on drop.
pub struct Loop(pub String, pub PathBuf);

impl Loop {
    pub fn attach(sector_size: u32) -> Option<Loop> {
        let backing = tempfile::NamedTempFile::new().unwrap().into_temp_path().keep().unwrap();
        Loop::over(backing, 64 << 20, &["--sector-size", &sector_size.to_string()])
    }

    /// A loop device over a new sparse file `backing` of `size` bytes (removed on drop), with
    /// losetup's `options` (`--direct-io=on`).
    pub fn over(backing: PathBuf, size: u64, options: &[&str]) -> Option<Loop> {
        std::fs::File::create(&backing).unwrap().set_len(size).unwrap();
        let out = ProcessCommand::new("losetup").args(["--find", "--show"]).args(options).arg(&backing).output();
        match out {
            Ok(o) if o.status.success() => Some(Loop(String::from_utf8_lossy(&o.stdout).trim().to_string(), backing)),
            other => {
                let why =
                    other.map_or_else(|e| e.to_string(), |o| String::from_utf8_lossy(&o.stderr).trim().to_string());
                spindle_testenv::unavailable("a loop device", format!("losetup: {why}"));
                let _ = std::fs::remove_file(&backing);
                None
            }
        }
    }

    /// The device's sysfs attribute `rel` (`queue/rotational`) set to `value`.
    pub fn set_attr(&self, rel: &str, value: &str) {
        let name = self.0.trim_start_matches("/dev/");
        std::fs::write(format!("/sys/block/{name}/{rel}"), value).unwrap();
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = ProcessCommand::new("losetup").args(["-d", &self.0]).status();
        let _ = std::fs::remove_file(&self.1);
    }
}

/// An ext4 filesystem on a loop device, mounted on a scratch directory; unmounted on drop.
pub struct Ext4 {
    pub mount: PathBuf,
    _device: Loop,
}

impl Ext4 {
    pub fn on(device: Loop) -> Option<Ext4> {
        // Initialised at once, so no background zeroing competes with what the check measures.
        let made = ProcessCommand::new("mkfs.ext4")
            .args(["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", &device.0])
            .status()
            .is_ok_and(|s| s.success());
        let mount = tempfile::tempdir().unwrap().keep();
        if !made || !ProcessCommand::new("mount").arg(&device.0).arg(&mount).status().is_ok_and(|s| s.success()) {
            spindle_testenv::unavailable("an ext4 filesystem on a loop device", "mkfs.ext4 or mount failed");
            let _ = std::fs::remove_dir(&mount);
            return None;
        }
        Some(Ext4 { mount, _device: device })
    }
}

impl Drop for Ext4 {
    fn drop(&mut self) {
        let _ = ProcessCommand::new("umount").arg(&self.mount).status();
        let _ = std::fs::remove_dir(&self.mount);
    }
}

/// A cgroup v1 blkio group capping a device's reads and writes at so many a second each,
/// removed on drop; a process joins it by writing its pid to `cgroup.procs` in `.0`.
pub struct Throttle(pub PathBuf, String);

impl Throttle {
    pub fn device(dev: &str, iops: u32) -> Option<Throttle> {
        static GROUPS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let name = dev.trim_start_matches("/dev/");
        let numbers = std::fs::read_to_string(format!("/sys/block/{name}/dev")).unwrap_or_default();
        let n = GROUPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let group = PathBuf::from(format!("/sys/fs/cgroup/blkio/spindle-test-{}-{n}", std::process::id()));
        let throttle = Throttle(group, numbers.trim().to_string());
        if std::fs::create_dir(&throttle.0).is_err() || !throttle.set(iops) {
            spindle_testenv::unavailable("the block throttle (cgroup v1 blkio)", "cannot make a throttled group");
            return None;
        }
        Some(throttle)
    }

    /// Caps the device at `iops` reads and `iops` writes a second, at once for the processes
    /// in the group; whether the kernel took it.
    pub fn set(&self, iops: u32) -> bool {
        ["blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device"]
            .iter()
            .all(|f| std::fs::write(self.0.join(f), format!("{} {iops}", self.1)).is_ok())
    }

    /// `program` with `args`, started inside the group: a shell joins it, then becomes the
    /// program.
    pub fn command(&self, program: &Path) -> ProcessCommand {
        let mut cmd = ProcessCommand::new("sh");
        cmd.arg("-c").arg(r#"echo $$ > "$1/cgroup.procs" && shift && exec "$@""#).arg("sh").arg(&self.0).arg(program);
        cmd
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}
