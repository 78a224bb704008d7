//! Block devices as targets: never while anything uses them, and writes only with
//! `--allow-destroy`. Their size is their own.

use super::TargetError;
use super::error::Bytes;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Checks that `path` may be used and returns the bytes I/O will cover.
pub fn check(path: &Path, writes: bool, allow_destroy: bool, asked: u64) -> Result<u64, TargetError> {
    match spindle_host::block_device_use(path) {
        Ok(Some(why)) => return Err(TargetError::DeviceInUse { path: path.to_path_buf(), why }),
        Ok(None) => {}
        Err(e) => return Err(TargetError::io("cannot inspect", path, e)),
    }
    if writes && !allow_destroy {
        return Err(TargetError::DeviceNeedsAllowDestroy { path: path.to_path_buf() });
    }
    let have = size(path)?;
    if asked > have {
        return Err(TargetError::TooSmall { path: path.to_path_buf(), have: Bytes(have), want: Bytes(asked) });
    }
    Ok(if asked == 0 { have } else { asked })
}

/// The device's size in bytes (BLKGETSIZE64).
pub(super) fn size(path: &Path) -> Result<u64, TargetError> {
    let file = std::fs::File::open(path).map_err(|e| TargetError::io("cannot open", path, e))?;
    let mut bytes: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64, &mut bytes) };
    if rc != 0 {
        return Err(TargetError::io("cannot read the size of", path, std::io::Error::last_os_error()));
    }
    Ok(bytes)
}

/// `_IOR(0x12, 114, size_t)` from linux/fs.h.
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
