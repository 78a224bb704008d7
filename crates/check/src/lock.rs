//! A check owns the directories it checks: two checks of one directory would share its test
//! files (the second remade the first's mid-measurement and took its verify file). Each
//! directory's lock is a file there, locked with flock(2), so the kernel releases it when the
//! check ends however it ends (a kill -9 leaves no stale lock), and the file names the holder's
//! process id for the refusal. The file is removed when the check lets go.

use spindle_plan::usage::UsageError;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// The lock file in a checked directory.
pub const LOCK_FILE: &str = ".spindle-check.lock";

/// A directory held by this check until dropped.
#[derive(Debug)]
pub struct DirLock {
    path: PathBuf,
    /// Open while the check runs: closing it releases the lock.
    _held: File,
}

/// Takes `dir` for this check, or refuses (exit 2) naming the check that holds it.
pub fn take(dir: &Path) -> Result<DirLock, UsageError> {
    let path = dir.join(LOCK_FILE);
    let cannot = |e: std::io::Error| UsageError::file(dir, format_args!("cannot make the check's lock file ({e})"));
    let mut file =
        OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(cannot)?;
    // SAFETY: flock on a descriptor this function owns; no memory is shared.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let mut holder = String::new();
        let _ = file.read_to_string(&mut holder);
        let holder = holder.trim();
        let who = if holder.is_empty() { "another check".to_string() } else { format!("a check (process {holder})") };
        return Err(UsageError::file(
            dir,
            format_args!("{who} is running here; two checks of one directory would share its test files: wait for it"),
        ));
    }
    let wrote = file.set_len(0).and_then(|()| file.rewind()).and_then(|()| write!(file, "{}", std::process::id()));
    wrote.map_err(cannot)?;
    Ok(DirLock { path, _held: file })
}

impl Drop for DirLock {
    /// The file goes first, while still held, so no other check can take a lock on a file
    /// about to vanish; the file is closed after this, which releases the lock.
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_check_of_a_directory_is_refused_naming_the_first_until_it_ends() {
        let dir = tempfile::tempdir().unwrap();
        let first = take(dir.path()).unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap(), std::process::id().to_string());
        let e = take(dir.path()).unwrap_err().to_string();
        assert!(e.contains(&format!("a check (process {}) is running here", std::process::id())), "{e}");
        drop(first);
        assert!(!dir.path().join(LOCK_FILE).exists(), "no file left behind");
        let again = take(dir.path()).unwrap();
        drop(again);
    }
}
