//! Direct I/O alignment as the kernel states it for one file (`statx` `STATX_DIOALIGN`, Linux
//! 6.1+). More exact than the device's logical block size: a filesystem may demand more (e.g.
//! its block size for some modes) or refuse O_DIRECT on a file altogether.

use std::path::Path;

/// Alignment O_DIRECT needs for one open file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DioAlign {
    /// Alignment of the user buffer's address (and length), in bytes.
    pub mem: u32,
    /// Alignment of file offsets and I/O sizes, in bytes.
    pub offset: u32,
}

/// The direct I/O alignment of an existing file or block device node. None when the kernel or C
/// library does not report it, or the file does not support direct I/O; callers then fall back
/// to `block_sizes`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn direct_io_alignment(path: &Path) -> Option<DioAlign> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statx is plain old data; all-zero is a valid value.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is NUL-terminated, `st` is valid and writable; AT_FDCWD resolves relative paths.
    let rc = unsafe { libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, libc::STATX_DIOALIGN, &mut st) };
    // Kernels before 6.1 ignore the request and leave the bit clear; 0 means "no direct I/O".
    if rc != 0 || st.stx_mask & libc::STATX_DIOALIGN == 0 {
        return None;
    }
    (st.stx_dio_mem_align > 0 && st.stx_dio_offset_align > 0)
        .then_some(DioAlign { mem: st.stx_dio_mem_align, offset: st.stx_dio_offset_align })
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn direct_io_alignment(_path: &Path) -> Option<DioAlign> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_of_a_real_file_is_a_power_of_two_when_reported() {
        let f = tempfile::NamedTempFile::new().unwrap();
        match direct_io_alignment(f.path()) {
            Some(a) => {
                eprintln!("direct I/O alignment of a temp file: {a:?}");
                assert!(a.mem.is_power_of_two() && a.offset.is_power_of_two(), "{a:?}");
            }
            None => spindle_testenv::unavailable(
                "direct I/O alignment (statx STATX_DIOALIGN)",
                "the kernel (before 6.1) or the temp directory's filesystem does not report it",
            ),
        }
        assert_eq!(direct_io_alignment(Path::new("/no/such/file")), None);
        assert_eq!(direct_io_alignment(Path::new("bad\0path")), None);
    }
}
