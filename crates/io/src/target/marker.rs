//! The mark that makes a file a spindle test file: an extended attribute carrying its size.
//! Only marked files are reused or written without `--force`, and the mark is set only once
//! the file is completely filled, so a file left by a killed run is never mistaken for a
//! good one (it is refused as foreign instead, and the user decides).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

const NAME: &std::ffi::CStr = c"user.spindle.testfile";

fn c_path(path: &Path) -> std::io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}

/// Marks `path` as a complete spindle test file of `size` bytes.
pub fn set(path: &Path, size: u64) -> std::io::Result<()> {
    let value = format!("v1 size={size}");
    let c = c_path(path)?;
    // SAFETY: valid NUL-terminated strings and a buffer of the given length.
    let rc = unsafe { libc::setxattr(c.as_ptr(), NAME.as_ptr(), value.as_ptr().cast(), value.len(), 0) };
    if rc == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// The size recorded in `path`'s mark, or None when the file is not a spindle test file.
pub fn size_of(path: &Path) -> Option<u64> {
    let c = c_path(path).ok()?;
    let mut buf = [0u8; 64];
    // SAFETY: valid NUL-terminated strings; the kernel writes at most buf.len() bytes.
    let n = unsafe { libc::getxattr(c.as_ptr(), NAME.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    if n <= 0 {
        return None;
    }
    parse(std::str::from_utf8(&buf[..n as usize]).ok()?)
}

fn parse(value: &str) -> Option<u64> {
    value.strip_prefix("v1 size=")?.parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_only_its_own_format() {
        assert_eq!(super::parse("v1 size=1048576"), Some(1 << 20));
        assert_eq!(super::parse("v2 size=1"), None);
        assert_eq!(super::parse("v1 size=x"), None);
    }
}
