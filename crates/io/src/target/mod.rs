//! Targets before a run: test files created (or reused), existing files and block devices
//! checked, so that nothing the user owns is written unless they said so. Everything here
//! happens before measurement starts; `PreparedTarget::finish` cleans up after it.

mod device;
mod error;
mod fill;
pub(crate) mod marker;
use marker::Mark;
#[cfg(test)]
mod tests;

pub use error::TargetError;

use error::Bytes;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// What the run is allowed to do to its targets.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrepareOptions {
    /// Write to an existing file spindle did not create.
    pub force: bool,
    /// Write to a block device.
    pub allow_destroy: bool,
    /// Whether the workload writes at all (reads never destroy anything).
    pub writes: bool,
    /// Whether the run uses direct I/O (the fill does too, where the filesystem allows it).
    pub direct: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// Created and filled by this run.
    CreatedTestFile,
    /// A spindle test file of the right size, kept by an earlier run.
    ReusedTestFile,
    /// A file spindle did not create: read, or written with `--force`; never removed.
    ExistingFile,
    /// A block device; never removed.
    BlockDevice,
}

/// A target ready to measure. Call `finish` when the run is over.
#[derive(Debug)]
pub struct PreparedTarget {
    pub path: PathBuf,
    /// Bytes the I/O covers.
    pub size: u64,
    pub kind: TargetKind,
    pub warnings: Vec<String>,
}

impl PreparedTarget {
    /// Removes the target if it is a spindle test file and `keep` is false; leaves everything
    /// else alone.
    pub fn finish(self, keep: bool) -> std::io::Result<()> {
        let ours = matches!(self.kind, TargetKind::CreatedTestFile | TargetKind::ReusedTestFile);
        if ours && !keep {
            return match std::fs::remove_file(&self.path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            };
        }
        Ok(())
    }
}

/// Makes the target at `path` ready for I/O over its first `size` bytes: creates and fills a
/// test file, reuses a spindle test file of the same size, or checks an existing file or
/// device against `options` (a device with `size` 0 is used whole). `progress` is told
/// (bytes done, bytes total) while a file is filled; `stop` (Ctrl-C) ends a fill early.
pub fn prepare(
    path: &Path,
    size: u64,
    options: &PrepareOptions,
    progress: &mut dyn FnMut(u64, u64),
    stop: &AtomicBool,
) -> Result<PreparedTarget, TargetError> {
    let ready = |size, kind, warnings| PreparedTarget { path: path.to_path_buf(), size, kind, warnings };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let warnings = create(path, size, options.direct, progress, stop)?;
            return Ok(ready(size, TargetKind::CreatedTestFile, warnings));
        }
        Err(e) => return Err(TargetError::io("cannot inspect", path, e)),
    };
    let kind = meta.file_type();
    if kind.is_block_device() {
        let size = device::check(path, options.writes, options.allow_destroy, size)?;
        return Ok(ready(size, TargetKind::BlockDevice, Vec::new()));
    }
    if !kind.is_file() {
        let what = if kind.is_dir() { "a directory" } else { "not a regular file" };
        return Err(TargetError::NotAFile { path: path.to_path_buf(), what });
    }
    match marker::mark_of(path) {
        Some(Mark::Complete(marked)) if marked == size && meta.len() == size => {
            drop_cache(path);
            Ok(ready(size, TargetKind::ReusedTestFile, Vec::new()))
        }
        // Ours, but another size, or left half-filled by a run that was killed: it is a
        // scratch file, so make it again.
        Some(mark) => {
            std::fs::remove_file(path).map_err(|e| TargetError::io("cannot replace", path, e))?;
            let mut warnings = create(path, size, options.direct, progress, stop)?;
            if mark == Mark::Unfinished {
                warnings.push(format!(
                    "{} was a test file a killed run left half-filled: it was made again",
                    path.display()
                ));
            }
            Ok(ready(size, TargetKind::CreatedTestFile, warnings))
        }
        None => {
            if options.writes && !options.force {
                return Err(TargetError::Foreign { path: path.to_path_buf() });
            }
            if meta.len() < size {
                return Err(TargetError::TooSmall {
                    path: path.to_path_buf(),
                    have: Bytes(meta.len()),
                    want: Bytes(size),
                });
            }
            if let Some(first) = first_hole(path, size)? {
                return Err(TargetError::Holes { path: path.to_path_buf(), first });
            }
            drop_cache(path);
            Ok(ready(size, TargetKind::ExistingFile, Vec::new()))
        }
    }
}

/// Bytes the target at `path` holds: a file's length, a device's size.
pub fn size_of(path: &Path) -> Result<u64, TargetError> {
    let meta = std::fs::metadata(path).map_err(|e| TargetError::io("cannot inspect", path, e))?;
    if meta.file_type().is_block_device() { device::size(path) } else { Ok(meta.len()) }
}

/// Where the first hole (an unwritten extent) of `path` lies within its first `size` bytes,
/// by SEEK_HOLE; `None` when there is none there (or the file system cannot say, where
/// SEEK_HOLE reports the end of the file).
fn first_hole(path: &Path, size: u64) -> Result<Option<u64>, TargetError> {
    let file = std::fs::File::open(path).map_err(|e| TargetError::io("cannot open", path, e))?;
    // SAFETY: lseek on a descriptor this function owns; no memory is passed.
    let at = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_HOLE) };
    if at < 0 {
        // EINVAL/ENXIO where SEEK_HOLE is not supported: nothing can be said, so nothing is.
        return Ok(None);
    }
    Ok(((at as u64) < size).then_some(at as u64))
}

/// Checks free space, creates and fills the file, then marks it as ours.
fn create(
    path: &Path,
    size: u64,
    direct: bool,
    progress: &mut dyn FnMut(u64, u64),
    stop: &AtomicBool,
) -> Result<Vec<String>, TargetError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(TargetError::NoDirectory { path: path.to_path_buf() });
    }
    let available = spindle_host::free_space(dir).map_err(|e| TargetError::io("cannot read free space of", dir, e))?;
    if available < size {
        return Err(TargetError::NoSpace {
            path: path.to_path_buf(),
            need: Bytes(size),
            available: error::Amount(available),
        });
    }
    fill::create(path, size, direct, progress, stop)?;
    drop_cache(path);
    let mut warnings = Vec::new();
    if let Err(e) = marker::set(path, size) {
        warnings.push(format!(
            "cannot mark {} as a spindle test file ({e}): it is removed at the end as usual, but if kept, a later run will treat it as a foreign file",
            path.display()
        ));
    }
    Ok(warnings)
}

/// Evicts the file from the page cache, as fio does before a job, so a buffered run starts
/// from the storage rather than from what the fill or an earlier run left in memory.
fn drop_cache(path: &Path) {
    if let Ok(file) = std::fs::File::open(path) {
        // SAFETY: advice only; a failure changes nothing.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    }
}
