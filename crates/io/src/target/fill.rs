//! Creating a test file: reserve its blocks with fallocate, then write incompressible data
//! over all of it, so thin-provisioned, compressing or deduplicating storage cannot answer
//! reads from nothing. Anything that goes wrong removes the partial file.

use super::TargetError;
use super::error::Bytes;
use crate::engine::BufferPool;
use crate::rng::Rng;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Bytes written per call: large enough that the fill runs at the device's sequential speed.
const CHUNK: usize = 4 << 20;

/// Creates `path` (which must not exist) as a filled file of `size` bytes; on any failure the
/// file is removed before the error is returned.
pub fn create(
    path: &Path,
    size: u64,
    direct: bool,
    progress: &mut dyn FnMut(u64, u64),
    stop: &AtomicBool,
) -> Result<(), TargetError> {
    let file = open_new(path, direct)?;
    // Ours from its first byte: a run killed mid-fill leaves a file the next run knows. A
    // file system without user xattrs cannot say so; the file is then refused as foreign.
    let _ = super::marker::set_filling(path);
    let result = reserve_and_fill(&file, path, size, progress, stop);
    if result.is_err() {
        drop(file);
        let _ = std::fs::remove_file(path);
    }
    result
}

/// O_EXCL: never open a file that appeared since the checks. Direct where the filesystem
/// allows it, so filling does not push the page cache around.
fn open_new(path: &Path, direct: bool) -> Result<File, TargetError> {
    let open = |flags: i32| {
        std::fs::OpenOptions::new().write(true).create_new(true).custom_flags(flags | libc::O_CLOEXEC).open(path)
    };
    let file = if direct { open(libc::O_DIRECT) } else { open(0) };
    match file {
        Ok(f) => Ok(f),
        // Filesystems without O_DIRECT (tmpfs) refuse at open; the run itself will say so.
        Err(e) if direct && e.raw_os_error() == Some(libc::EINVAL) => {
            let _ = std::fs::remove_file(path);
            open(0).map_err(|e| TargetError::io("cannot create", path, e))
        }
        Err(e) => Err(TargetError::io("cannot create", path, e)),
    }
}

fn reserve_and_fill(
    file: &File,
    path: &Path,
    size: u64,
    progress: &mut dyn FnMut(u64, u64),
    stop: &AtomicBool,
) -> Result<(), TargetError> {
    let out_of_space =
        |written: u64| TargetError::OutOfSpace { path: path.to_path_buf(), written: Bytes(written), size: Bytes(size) };
    // SAFETY: a valid descriptor; fallocate only reads its arguments.
    let rc = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, size as libc::off_t) };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENOSPC) => return Err(out_of_space(0)),
            // Not every filesystem can reserve; writing the data allocates anyway.
            Some(libc::EOPNOTSUPP) => {}
            _ => return Err(TargetError::io("cannot allocate", path, e)),
        }
    }

    let buffer = BufferPool::new(1, CHUNK);
    // SAFETY: the pool is ours alone and nothing is in flight.
    let chunk = unsafe { buffer.slot_mut(0) };
    let mut rng = Rng::new(size ^ 0x7e57_f11e);
    let mut written = 0u64;
    while written < size {
        if stop.load(Ordering::Relaxed) {
            return Err(TargetError::Interrupted(path.to_path_buf()));
        }
        let n = (size - written).min(CHUNK as u64) as usize;
        if n % 4096 != 0 {
            // The unaligned tail cannot go through O_DIRECT.
            clear_direct(file);
        }
        rng.fill(&mut chunk[..n]);
        file.write_all_at(&chunk[..n], written).map_err(|e| match e.raw_os_error() {
            Some(libc::ENOSPC) | Some(libc::EDQUOT) => out_of_space(written),
            _ => TargetError::io("cannot write", path, e),
        })?;
        written += n as u64;
        progress(written, size);
    }
    file.sync_data().map_err(|e| match e.raw_os_error() {
        Some(libc::ENOSPC) => out_of_space(written),
        _ => TargetError::io("cannot flush", path, e),
    })
}

fn clear_direct(file: &File) {
    let fd = file.as_raw_fd();
    // SAFETY: plain fcntl calls on a valid descriptor.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_DIRECT);
        }
    }
}
