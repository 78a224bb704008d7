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

/// No command writes over the results store, whatever name reaches it: `report -o`, `io -t`,
/// `characterize -o`, `record -o`, `check -o`, an `ab` side's workload file and `durability
/// write -t`, with `--force` where they take it, at the store itself, at
/// its write-ahead log (made by the run saved first), through a symbolic link's target named by
/// `/proc/self/fd`, and through a hard link. Each is refused with exit 2 naming the path, and
/// the store still reads every run.
#[test]
fn no_command_writes_over_the_results_store_by_any_name() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = dir.path().join("st.db");
    let saved = spindle_with_store(&store)
        .args(["io", "--engine", "null", "--duration", "100ms", "--size", "1M", "--quiet", "--target"])
        .arg(dir.path().join("x.dat"))
        .output()
        .unwrap();
    assert!(saved.status.success(), "{}", String::from_utf8_lossy(&saved.stderr));
    let hard = dir.path().join("hard.db");
    std::fs::hard_link(&store, &hard).unwrap();
    let log = dir.path().join("perf.csv");
    std::fs::write(&log, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\PhysicalDisk(0 C:)\\Disk Reads/sec\"\n\"t\",\"1\"\n")
        .unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    // An A/B experiment whose workload files name the store as their target.
    let (side_a, side_b) = (dir.path().join("a.toml"), dir.path().join("b.toml"));
    for (side, depth) in [(&side_a, 1), (&side_b, 2)] {
        let spec = format!("[[target]]\npath = \"{}\"\nsize = \"200K\"\ndepth = {depth}\n", store.display());
        std::fs::write(side, spec).unwrap();
    }
    let before = std::fs::read(&store).unwrap();
    let wal = dir.path().join("st.db-wal");
    let s = |p: &Path| p.display().to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (vec!["report".into(), "-o".into(), s(&store), "--format".into(), "csv".into()], s(&store)),
        (vec!["report".into(), "-o".into(), s(&wal), "--format".into(), "md".into()], s(&wal)),
        (
            vec!["io".into(), "--engine".into(), "null".into(), "--size".into(), "200K".into(), "-t".into(), s(&store)],
            s(&store),
        ),
        (
            vec!["io".into(), "--engine".into(), "null".into(), "--size".into(), "200K".into(), "-t".into(), s(&hard)],
            s(&hard),
        ),
        (vec!["characterize".into(), s(&log), "-o".into(), s(&store)], s(&store)),
        (vec!["record".into(), "--duration".into(), "1s".into(), "-o".into(), s(&hard)], s(&hard)),
        (vec!["check".into(), "--quick".into(), s(&work), "-o".into(), s(&store)], s(&store)),
        (vec!["ab".into(), s(&side_a), s(&side_b), "--engine".into(), "null".into()], s(&store)),
        (
            vec!["durability".into(), "write".into(), "-t".into(), s(&hard), "--log".into(), "127.0.0.1:1".into()],
            s(&hard),
        ),
    ];
    for (args, named) in cases {
        // `--force` where the command has it: it never reaches the store.
        let force = args[0] != "ab";
        let out = spindle_with_store(&store).args(&args).args(force.then_some("--force")).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&named) && stderr.contains("is spindle's results store"), "{args:?}: {stderr}");
    }
    assert_eq!(std::fs::read(&store).unwrap(), before, "the store is as it was");
    let listed = spindle_with_store(&store).args(["runs", "list"]).output().unwrap();
    assert!(
        listed.status.success() && String::from_utf8_lossy(&listed.stdout).contains("8KiB random read"),
        "{listed:?}"
    );
}
