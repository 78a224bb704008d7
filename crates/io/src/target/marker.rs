//! The marks spindle leaves on its test files, as extended attributes. The test-file mark
//! says "filling" from the moment spindle creates the file and carries its size once it is
//! completely filled: only complete files are reused or written without `--force`, and a file
//! a killed run left half-made is known for spindle's own and made again, never mistaken for
//! a good one nor for the user's.
//! The verification mark says a run under `--verify` wrote the file: its id, set before the
//! first write, and the bytes it wrote, added when it ends; `spindle verify` reads it. Its
//! version is the stamps' (`verify::stamp`): a file stamped by an earlier format is known as
//! such rather than checked against the wrong one. A run without `--verify` that writes the
//! file takes the mark off: the stamps it spoke for are overwritten.

use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

const TEST_FILE: &CStr = c"user.spindle.testfile";
const VERIFIED: &CStr = c"user.spindle.verify";

fn c_path(path: &Path) -> std::io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}

fn set_attr(path: &Path, name: &CStr, value: &str) -> std::io::Result<()> {
    let c = c_path(path)?;
    // SAFETY: valid NUL-terminated strings and a buffer of the given length.
    let rc = unsafe { libc::setxattr(c.as_ptr(), name.as_ptr(), value.as_ptr().cast(), value.len(), 0) };
    if rc == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

fn get_attr(path: &Path, name: &CStr) -> Option<String> {
    let c = c_path(path).ok()?;
    let mut buf = [0u8; 128];
    // SAFETY: valid NUL-terminated strings; the kernel writes at most buf.len() bytes.
    let n = unsafe { libc::getxattr(c.as_ptr(), name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    if n <= 0 {
        return None;
    }
    String::from_utf8(buf[..n as usize].to_vec()).ok()
}

/// Marks `path` as a complete spindle test file of `size` bytes.
pub fn set(path: &Path, size: u64) -> std::io::Result<()> {
    set_attr(path, TEST_FILE, &format!("v1 size={size}"))
}

/// Marks `path` as a spindle test file still being filled: a run killed before the fill
/// ends leaves it so, and the next run knows the file for its own half-made one.
pub fn set_filling(path: &Path) -> std::io::Result<()> {
    set_attr(path, TEST_FILE, FILLING)
}

const FILLING: &str = "v1 filling";

/// What the test-file mark on `path` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A complete test file of this many bytes.
    Complete(u64),
    /// A test file whose fill never finished.
    Unfinished,
}

/// The test-file mark on `path`, or None when the file is not a spindle test file.
pub fn mark_of(path: &Path) -> Option<Mark> {
    parse(&get_attr(path, TEST_FILE)?)
}

fn parse(value: &str) -> Option<Mark> {
    if value == FILLING {
        return Some(Mark::Unfinished);
    }
    value.strip_prefix("v1 size=")?.parse().ok().map(Mark::Complete)
}

/// What the verification mark says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyMark {
    /// The run's verification id.
    pub id: u64,
    /// Bytes the run's completed writes covered; None while it runs (or when it was killed).
    pub written: Option<u64>,
}

/// Marks `path` as written by a run under `--verify`.
pub fn set_verified(path: &Path, mark: VerifyMark) -> std::io::Result<()> {
    let value = match mark.written {
        Some(w) => format!("v2 id={:016x} written={w}", mark.id),
        None => format!("v2 id={:016x}", mark.id),
    };
    set_attr(path, VERIFIED, &value)
}

/// Takes the verification mark off `path`: a run without `--verify` wrote over the stamps it
/// speaks for. No mark there (or no xattrs) is not an error.
pub fn clear_verified(path: &Path) -> std::io::Result<()> {
    let c = c_path(path)?;
    // SAFETY: valid NUL-terminated strings.
    if unsafe { libc::removexattr(c.as_ptr(), VERIFIED.as_ptr()) } == 0 {
        return Ok(());
    }
    match std::io::Error::last_os_error() {
        e if matches!(e.raw_os_error(), Some(libc::ENODATA | libc::ENOTSUP)) => Ok(()),
        e => Err(e),
    }
}

/// What a file's verification mark says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verified {
    /// No run under `--verify` wrote it (or its mark is not one spindle reads).
    No,
    By(VerifyMark),
    /// A run of an earlier spindle wrote it, with stamps of the first format (one hash over
    /// the whole sector), which this version does not check.
    ByEarlierFormat,
}

/// The verification mark on `path`, read once.
pub fn verified(path: &Path) -> Verified {
    match get_attr(path, VERIFIED) {
        Some(v) if v.starts_with("v1 ") => Verified::ByEarlierFormat,
        Some(v) => parse_verified(&v).map_or(Verified::No, Verified::By),
        None => Verified::No,
    }
}

fn parse_verified(value: &str) -> Option<VerifyMark> {
    let mut words = value.strip_prefix("v2 ")?.split(' ');
    let id = u64::from_str_radix(words.next()?.strip_prefix("id=")?, 16).ok()?;
    let written = match words.next() {
        Some(w) => Some(w.strip_prefix("written=")?.parse().ok()?),
        None => None,
    };
    Some(VerifyMark { id, written })
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_only_its_own_format() {
        use super::Mark;
        assert_eq!(super::parse("v1 size=1048576"), Some(Mark::Complete(1 << 20)));
        assert_eq!(super::parse("v1 filling"), Some(Mark::Unfinished));
        assert_eq!(super::parse("v2 size=1"), None);
        assert_eq!(super::parse("v1 size=x"), None);
    }

    #[test]
    fn the_verification_mark_round_trips() {
        use super::{VerifyMark, parse_verified};
        assert_eq!(parse_verified("v2 id=00000000000000ff"), Some(VerifyMark { id: 255, written: None }));
        assert_eq!(parse_verified("v2 id=ff written=4096"), Some(VerifyMark { id: 255, written: Some(4096) }));
        assert_eq!(parse_verified("v2 id=zz"), None);
        assert_eq!(parse_verified("v2 id=ff read=1"), None);
        assert_eq!(parse_verified("v1 id=ff written=4096"), None, "stamps of the first format");
    }
}
