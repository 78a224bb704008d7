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
