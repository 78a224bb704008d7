use super::*;
use spindle_model::spec::{MixEntry, TargetSpec, Workload};
use std::sync::atomic::Ordering;

/// A scratch directory on the project's own filesystem: /tmp may be a tmpfs without user
/// extended attributes or O_DIRECT.
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap()
}

fn spec(path: &Path, size: u64) -> TargetSpec {
    TargetSpec {
        path: path.to_path_buf(),
        size,
        workload: Workload {
            mix: vec![MixEntry { block: 4096, weight: 1, read_pct: 100, random_pct: 100 }],
            threads: 1,
            depth: 1,
            rate_iops: None,
            buffered: false,
            write_through: false,
            fsync_every: 0,
        },
    }
}

fn options(writes: bool) -> PrepareOptions {
    PrepareOptions { force: false, allow_destroy: false, writes, direct: true }
}

fn prepare_quietly(target: &TargetSpec, o: &PrepareOptions) -> Result<PreparedTarget, TargetError> {
    prepare(&target.path, target.size, o, &mut |_, _| {}, &AtomicBool::new(false))
}

#[test]
fn creates_a_filled_incompressible_file_and_reports_progress() {
    let dir = scratch();
    let path = dir.path().join("t.dat");
    let size = (9 << 20) + 512;
    let mut seen = Vec::new();
    let p = prepare(&path, size, &options(true), &mut |done, total| seen.push((done, total)), &AtomicBool::new(false))
        .unwrap();
    assert_eq!((p.kind, p.size), (TargetKind::CreatedTestFile, size));
    assert_eq!(seen.last(), Some(&(size, size)));
    let data = std::fs::read(&path).unwrap();
    assert_eq!(data.len() as u64, size);
    assert_ne!(data[..4096], data[4096..8192], "blocks differ: nothing to deduplicate");
    let zeros = data.iter().filter(|b| **b == 0).count() as f64 / data.len() as f64;
    assert!(zeros < 0.01, "random bytes, not zeroes ({zeros})");
    p.finish(false).unwrap();
    assert!(!path.exists(), "a created file is removed at the end");
}

#[test]
fn a_kept_test_file_of_the_same_size_is_reused_untouched() {
    let dir = scratch();
    let path = dir.path().join("k.dat");
    let first = prepare_quietly(&spec(&path, 1 << 20), &options(true)).unwrap();
    if !first.warnings.is_empty() {
        spindle_testenv::unavailable("user xattrs", first.warnings.join("; "));
        return;
    }
    first.finish(true).unwrap();
    let before = std::fs::read(&path).unwrap();
    let mut filled = false;
    let again = prepare(&path, 1 << 20, &options(true), &mut |_, _| filled = true, &AtomicBool::new(false)).unwrap();
    assert_eq!(again.kind, TargetKind::ReusedTestFile);
    assert!(!filled, "no refill");
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // Ours but another size: made again at the new size.
    let resized = prepare_quietly(&spec(&path, 2 << 20), &options(true)).unwrap();
    assert_eq!(resized.kind, TargetKind::CreatedTestFile);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 2 << 20);
    resized.finish(false).unwrap();
}

#[test]
fn a_foreign_file_is_never_written_without_force_and_never_removed() {
    let dir = scratch();
    let path = dir.path().join("precious.db");
    std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
    let err = prepare_quietly(&spec(&path, 1 << 20), &options(true)).unwrap_err();
    assert!(matches!(err, TargetError::Foreign { .. }));
    assert!(err.to_string().contains("precious.db") && err.to_string().contains("--force"), "{err}");

    let read = prepare_quietly(&spec(&path, 1 << 20), &options(false)).unwrap();
    assert_eq!(read.kind, TargetKind::ExistingFile);
    read.finish(false).unwrap();
    let forced = prepare_quietly(&spec(&path, 1 << 20), &PrepareOptions { force: true, ..options(true) }).unwrap();
    forced.finish(false).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 1 << 20], "untouched and still there");

    let err = prepare_quietly(&spec(&path, 2 << 20), &options(false)).unwrap_err();
    assert!(err.to_string().contains("smaller than the 2MiB"), "{err}");
}

#[test]
fn an_interrupted_fill_leaves_no_file() {
    let dir = scratch();
    let path = dir.path().join("i.dat");
    let stop = AtomicBool::new(false);
    let result = prepare(&path, 64 << 20, &options(true), &mut |_, _| stop.store(true, Ordering::Relaxed), &stop);
    assert!(matches!(result, Err(TargetError::Interrupted(ref p)) if p == &path));
    assert!(!path.exists());
}

#[test]
fn a_directory_or_missing_parent_is_named() {
    let dir = scratch();
    let err = prepare_quietly(&spec(dir.path(), 1 << 20), &options(false)).unwrap_err();
    assert!(err.to_string().contains("a directory"), "{err}");
    let err = prepare_quietly(&spec(&dir.path().join("no/such/t.dat"), 1 << 20), &options(false)).unwrap_err();
    assert!(err.to_string().contains("does not exist"), "{err}");
}

#[test]
fn asking_for_more_than_the_free_space_is_refused_before_writing() {
    let dir = scratch();
    let path = dir.path().join("huge.dat");
    let err = prepare_quietly(&spec(&path, u64::MAX / 2), &options(true)).unwrap_err();
    assert!(err.to_string().contains("not enough space") && err.to_string().contains("huge.dat"), "{err}");
    assert!(!path.exists());
}

#[test]
fn a_file_with_holes_is_never_read_as_data() {
    let dir = scratch();
    // As a fill killed half-way leaves it: the right size, the second half never written.
    let path = dir.path().join("half.dat");
    let f = std::fs::File::create(&path).unwrap();
    std::io::Write::write_all(&mut &f, &vec![7u8; 1 << 20]).unwrap();
    f.set_len(4 << 20).unwrap();
    drop(f);
    let err = prepare_quietly(&spec(&path, 4 << 20), &options(false)).unwrap_err();
    match &err {
        TargetError::Holes { first, .. } => assert!(*first >= 1 << 20 && *first < 4 << 20, "{err}"),
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains("half.dat") && err.to_string().contains("holes"), "{err}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 4 << 20, "the user's file is left as it is");
    // The written part alone has no hole: a run over it may read it.
    let head = prepare_quietly(&spec(&path, 1 << 20), &options(false)).unwrap();
    head.finish(false).unwrap();
}
