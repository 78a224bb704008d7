//! Output files are checked before anything runs: only a regular file, and never one of the
//! command's inputs, may be replaced.

use crate::usage::UsageError;
use std::path::Path;

/// Refuses an output path that is a symbolic link (even with `--force`: writing through it
/// would replace a file the user did not name), anything else that is not a regular file (a
/// device, a FIFO, a socket: `--force` replacing /dev/full with a report would break the
/// machine for everyone), or one of the command's input files.
pub fn check_output(path: &Path, inputs: &[&Path]) -> Result<(), UsageError> {
    use std::os::unix::fs::MetadataExt;
    let shown = path.display().to_string();
    let Some(meta) = existing_regular(path)? else { return Ok(()) };
    let same = |input: &&Path| input.metadata().is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino());
    if inputs.iter().any(same) {
        return Err(UsageError::flag("-o", shown, "is the file being read; name another"));
    }
    Ok(())
}

/// What is at `path` when it is a regular file, `None` when nothing is; anything else (a
/// symbolic link, a directory, a device, a FIFO, a socket) is refused whatever `--force` says,
/// since only a regular file may be replaced.
pub fn existing_regular(path: &Path) -> Result<Option<std::fs::Metadata>, UsageError> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = path.symlink_metadata() else { return Ok(None) };
    let kind = meta.file_type();
    let what = if kind.is_file() {
        return Ok(Some(meta));
    } else if kind.is_symlink() {
        "is a symbolic link; name the file itself"
    } else if kind.is_dir() {
        "is a directory; name a file"
    } else if kind.is_char_device() {
        "is a character device; --force replaces regular files only"
    } else if kind.is_block_device() {
        "is a block device; --force replaces regular files only"
    } else if kind.is_fifo() {
        "is a FIFO; --force replaces regular files only"
    } else if kind.is_socket() {
        "is a socket; --force replaces regular files only"
    } else {
        "is not a regular file; --force replaces regular files only"
    };
    Err(UsageError::flag("-o", path.display().to_string(), what))
}

/// Refuses a path the command would write (`flag` names it) that is the results store or one
/// of the files SQLite keeps beside it (`store`: `Location::files`), however it is reached: the
/// same name, another name of the same file (a hard link, a symbolic link, `/proc/self/fd/N`),
/// or a journal file not made yet. Writing any of them would lose every run kept.
pub fn refuse_store(path: &Path, store: &[std::path::PathBuf], flag: &'static str) -> Result<(), UsageError> {
    use std::os::unix::fs::MetadataExt;
    let same_file = |a: &Path, b: &Path| match (a.metadata(), b.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    };
    let is_store = store.iter().any(|s| same_file(path, s) || same_name(path, s));
    if is_store {
        return Err(UsageError::flag(
            flag,
            path.display().to_string(),
            "is spindle's results store (or a file SQLite keeps beside it); writing it would lose every run kept: \
             name another file",
        ));
    }
    Ok(())
}

/// Whether two paths name the same place, whether or not a file is there yet: their
/// directories resolved (links followed) and their last parts alike.
fn same_name(a: &Path, b: &Path) -> bool {
    let place = |p: &Path| {
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Some((dir.canonicalize().ok()?, p.file_name()?.to_owned()))
    };
    matches!((place(a), place(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_and_its_journal_are_refused_by_any_name() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("results.db");
        std::fs::write(&store, "runs").unwrap();
        let files: Vec<std::path::PathBuf> =
            ["", "-wal", "-shm", "-journal"].iter().map(|s| dir.path().join(format!("results.db{s}"))).collect();
        let link = dir.path().join("link.db");
        std::os::unix::fs::symlink(&store, &link).unwrap();
        let hard = dir.path().join("hard.db");
        std::fs::hard_link(&store, &hard).unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let roundabout = sub.join("../results.db");
        for path in [&store, &files[1], &files[3], &link, &hard, &roundabout] {
            let e = refuse_store(path, &files, "-o").unwrap_err().to_string();
            assert!(e.contains("-o ") && e.contains("is spindle's results store"), "{}: {e}", path.display());
        }
        assert!(refuse_store(&dir.path().join("report.csv"), &files, "-o").is_ok());
        assert!(refuse_store(&dir.path().join("results.db.bak"), &files, "-o").is_ok());
        assert!(refuse_store(Path::new("/nonexistent/dir/x"), &files, "-o").is_ok());
        assert_eq!(std::fs::read_to_string(&store).unwrap(), "runs");
    }
}
