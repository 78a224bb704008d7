//! Why a target cannot be used, in words a DBA can act on. Every message names the path.

use spindle_model::units::format_size;
use std::path::PathBuf;
use thiserror::Error;

/// A byte count as it would be typed back (`1GiB`, `1536B`), for sizes a message suggests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(pub u64);

impl std::fmt::Display for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&format_size(self.0))
    }
}

/// A byte count as people read it (`72.9 GiB`), for amounts nobody types (free space).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Amount(pub u64);

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&spindle_model::units::format_bytes_approx(self.0))
    }
}

#[derive(Debug, Error)]
pub enum TargetError {
    #[error("cannot create {path}: directory {} does not exist", path.parent().map(|p| p.display().to_string()).unwrap_or_default())]
    NoDirectory { path: PathBuf },
    #[error(
        "not enough space for {path}: the test file needs {need} and the filesystem has {available} free; use a smaller --size or another directory"
    )]
    NoSpace { path: PathBuf, need: Bytes, available: Amount },
    #[error("ran out of space while filling {path} ({written} of {size} written); the partial file was removed")]
    OutOfSpace { path: PathBuf, written: Bytes, size: Bytes },
    #[error(
        "{path} exists and was not created by spindle: writing would destroy its contents; pass --force to write to it anyway, or name a new file"
    )]
    Foreign { path: PathBuf },
    #[error("{path} is {have}, smaller than the {want} asked for; pass --size {have} or less")]
    TooSmall { path: PathBuf, have: Bytes, want: Bytes },
    #[error(
        "{path} has unwritten regions (holes; the first at byte {first}): reading them makes no device I/O, so the figures would be the file system's, not the storage's. Name a new path and spindle creates and fills a test file, or fill this one first; a run killed while spindle filled a file leaves one like it: remove it and run again"
    )]
    Holes { path: PathBuf, first: u64 },
    #[error("{path} is a block device and writing destroys everything on it; pass --allow-destroy if that is intended")]
    DeviceNeedsAllowDestroy { path: PathBuf },
    #[error("refusing to use block device {path}: {why}")]
    DeviceInUse { path: PathBuf, why: String },
    #[error("{path} is {what}; name a regular file (or a block device with --allow-destroy)")]
    NotAFile { path: PathBuf, what: &'static str },
    #[error("{op} {path}: {source}")]
    Io { op: &'static str, path: PathBuf, source: std::io::Error },
    /// Ctrl-C while the test file was being created; the partial file is gone.
    #[error("interrupted while creating {0}; the partial file was removed")]
    Interrupted(PathBuf),
}

impl TargetError {
    pub(super) fn io(op: &'static str, path: &std::path::Path, source: std::io::Error) -> TargetError {
        TargetError::Io { op, path: path.to_path_buf(), source }
    }
}
