//! What `-o` may replace: `--force` overwrites regular files only. A device, a FIFO or a
//! socket named by mistake (or by someone hoping spindle runs as root) is refused with exit 2,
//! and is still there, untouched, afterwards.

use crate::common::{spindle, spindle_with_store};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// Special files in `dir`, each with the word the refusal names it by. The device nodes need
/// root (mknod); without it they are skipped with a notice. The character device is /dev/full's
/// number, so a write that got through would fail and never reach anything real; the block
/// device is never opened, even without the fix (the report is moved over it).
fn special_files(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut out = Vec::new();
    let fifo = dir.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid C string; no memory is shared.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", fifo.display());
    out.push((fifo, "FIFO"));
    let socket = dir.join("socket");
    // The listener's file stays after it is dropped: a socket file on disk.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    out.push((socket, "socket"));
    for (name, kind, (major, minor), word) in
        [("chardev", libc::S_IFCHR, (1, 7), "character device"), ("blockdev", libc::S_IFBLK, (7, 0), "block device")]
    {
        let node = dir.join(name);
        let c = std::ffi::CString::new(node.to_str().unwrap()).unwrap();
        // SAFETY: mknod with a valid C string; no memory is shared.
        let made = unsafe { libc::mknod(c.as_ptr(), kind | 0o600, libc::makedev(major, minor)) };
        if made == 0 {
            out.push((node, word));
        } else {
            spindle_testenv::unavailable("mknod (root)", std::io::Error::last_os_error());
        }
    }
    out
}

fn still_special(path: &Path) -> bool {
    let kind = path.symlink_metadata().unwrap().file_type();
    kind.is_fifo() || kind.is_socket() || kind.is_char_device() || kind.is_block_device()
}

fn refused(out: &std::process::Output, path: &Path, word: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}: {err}", path.display());
    assert!(err.contains(path.to_str().unwrap()) && err.contains(word), "{}: {err}", path.display());
    assert!(still_special(path), "{} was replaced", path.display());
}

/// A store in `dir` with one run in it, for reports to be made of.
fn one_run(store: &Path, dir: &Path) {
    let ok = spindle_with_store(store)
        .current_dir(dir)
        .args(["io", "--engine", "null", "--target", "a.dat", "--size", "1M", "--duration", "100ms", "-q"])
        .output()
        .unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
}

#[test]
fn force_never_replaces_a_device_fifo_or_socket() {
    let dir = tempfile::tempdir().unwrap();
    let specials = special_files(dir.path());
    let store = dir.path().join("s.db");
    one_run(&store, dir.path());
    let log = dir.path().join("log.csv");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/formats/testdata/Narmadha6790_DataCollector01.csv"),
        &log,
    )
    .unwrap();
    for (path, word) in &specials {
        let report =
            spindle_with_store(&store).args(["report", "--format", "csv", "--force", "-o"]).arg(path).output().unwrap();
        refused(&report, path, word);
        let characterize = spindle().arg("characterize").arg(&log).arg("-o").arg(path).arg("--force").output().unwrap();
        refused(&characterize, path, word);
    }
    // `record` opens its file rather than moving one over it: only the character device is
    // tried, as a FIFO nobody reads would hold it forever without the fix.
    if let Some((chardev, word)) = specials.iter().find(|(_, w)| *w == "character device") {
        let record = spindle().args(["record", "--duration", "300ms", "--force", "-o"]).arg(chardev).output().unwrap();
        refused(&record, chardev, word);
    }
}

#[test]
fn a_second_output_that_cannot_be_written_says_the_first_was() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    one_run(&store, dir.path());
    let first = dir.path().join("first.csv");
    // /proc takes no new files, even from root: the second write fails after the first is done.
    let out = spindle_with_store(&store)
        .args(["report", "-o"])
        .arg(&first)
        .args(["-o", "/proc/second.csv"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(first.is_file(), "{err}");
    assert!(
        err.contains("/proc/second.csv") && err.contains(&format!("{} written before it", first.display())),
        "{err}"
    );
    assert!(!err.contains("nothing was written"), "{err}");
}
