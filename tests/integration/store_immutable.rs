//! A results store made immutable (`chattr +i`) is an error naming the file, never a crash:
//! before a run, the command refuses to measure (exit 2); during one, the run is kept in a
//! file beside the store (exit 1), where SQLite's index mapped in memory once made it a SIGBUS.

use crate::common::{spindle_process, spindle_with_store};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A file with the immutable attribute, which goes again on drop (else the scratch directory
/// could not be removed).
struct Immutable(PathBuf);

impl Immutable {
    fn set(path: &Path) -> Result<Immutable, String> {
        let out = Command::new("chattr").arg("+i").arg(path).output().map_err(|e| format!("chattr: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(Immutable(path.to_path_buf()))
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

/// Whether files in `dir` can be made immutable here (root, and a file system that keeps the
/// attribute); a notice when not.
fn chattr_works(dir: &Path) -> bool {
    let probe = dir.join("probe");
    std::fs::write(&probe, b"").unwrap();
    let works = Immutable::set(&probe).map_err(|why| spindle_testenv::unavailable("chattr +i", why)).is_ok();
    let _ = std::fs::remove_file(&probe);
    works
}

/// A store with one run, closed (its `-wal` and `-shm` are gone until the next command opens it).
fn store_with_a_run(dir: &Path) -> PathBuf {
    let store = dir.join("results.db");
    let out = spindle_with_store(&store)
        .args(["io", "--engine", "null", "--duration", "100ms", "--quiet", "--target"])
        .arg(dir.join("x.dat"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    store
}

fn unsaved_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("spindle-unsaved-"))
        .count()
}

#[test]
fn an_immutable_store_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    if !chattr_works(dir.path()) {
        return;
    }
    let store = store_with_a_run(dir.path());
    let _immutable = Immutable::set(&store).unwrap();
    let out = spindle_with_store(&store)
        .args(["io", "--engine", "null", "--duration", "100ms", "--quiet", "--target"])
        .arg(dir.path().join("x.dat"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "nothing was run: {err}");
    assert!(err.contains(&format!("{} is immutable", store.display())), "{err}");
    assert_eq!(unsaved_files(dir.path()), 0, "nothing was measured: {err}");
}

/// The store's index (`-shm`) made immutable while a run measures: SQLite maps it and writes
/// to it through the map, which the kernel answers with SIGBUS; the save says so instead.
#[test]
fn a_store_made_immutable_during_a_run_keeps_the_run_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    if !chattr_works(dir.path()) {
        return;
    }
    let store = store_with_a_run(dir.path());
    let shm = dir.path().join("results.db-shm");
    let child = spindle_process()
        .env("SPINDLE_STORE", &store)
        .args(["io", "--engine", "null", "--duration", "120s", "--quiet", "--target"])
        .arg(dir.path().join("x.dat"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The run opens the store before it measures, and the index with it.
    let started = Instant::now();
    while !shm.exists() {
        assert!(started.elapsed() < Duration::from_secs(60), "the run never opened the store");
        std::thread::sleep(Duration::from_millis(20));
    }
    let _immutable = Immutable::set(&shm).unwrap();
    // SAFETY: signals our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "the run was measured and not saved ({:?}): {err}", out.status);
    assert!(err.contains(&format!("{} is immutable", shm.display())), "{err}");
    assert_eq!(unsaved_files(dir.path()), 1, "the run is kept beside the store: {err}");
}
