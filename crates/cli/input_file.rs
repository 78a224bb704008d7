//! Files the user names as input (spec files, counter logs, other tools' results, durability
//! logs), read whole but never without bound: a device or pipe that never ends (`/dev/zero`)
//! or a file far larger than any of its kind is refused, naming the limit, before it fills
//! memory; and every one of them is text, so a file whose first bytes are not (a sparse file,
//! an image, a database) is refused from those bytes, before the rest is read.

use crate::usage::UsageError;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// The most read from a device or pipe.
const STREAM_LIMIT: u64 = 256 << 20;
/// How much of the start is looked at to tell text from binary data.
const SNIFF: usize = 64 << 10;

/// Reads `path`, at most `limit` bytes; `what` names the kind of file in the error.
pub fn read_limited(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, UsageError> {
    let cannot = |e: std::io::Error| UsageError::file(path, format_args!("cannot read the {what}: {e}"));
    let too_large = || {
        UsageError::file(
            path,
            format_args!("larger than {} MiB, more than any {what} holds: is it the right file?", limit >> 20),
        )
    };
    let file = std::fs::File::open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    let not_text = |at: usize| {
        UsageError::file(
            path,
            format_args!("holds binary data (a NUL byte at offset {at}), not a {what}: is it the right file?"),
        )
    };
    if meta.is_file() {
        if meta.len() > limit {
            return Err(too_large());
        }
        let mut head = vec![0u8; SNIFF.min(meta.len() as usize)];
        let got = file.read_at(&mut head, 0).map_err(cannot)?;
        if let Some(at) = nul_in(&head[..got]) {
            return Err(not_text(at));
        }
        return read_regular(&file, meta.len()).map_err(cannot);
    }
    // A device or a pipe has no length to check: read one byte past the limit to tell, with
    // a limit of its own (a stream that large belongs in a file first).
    let limit = limit.min(STREAM_LIMIT);
    let mut bytes = Vec::new();
    (&file).take(limit + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() as u64 > limit {
        return Err(UsageError::file(
            path,
            format_args!("not a file, and more than {} MiB came from it: save the {what} to a file first", limit >> 20),
        ));
    }
    if let Some(at) = nul_in(&bytes[..bytes.len().min(SNIFF)]) {
        return Err(not_text(at));
    }
    Ok(bytes)
}

/// Where the first NUL byte is: no text these files hold has one (UTF-8 never encodes a
/// character with a zero byte but NUL itself).
fn nul_in(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == 0)
}

/// A regular file's bytes, read by two threads at once when it is large: a week of
/// one-second samples is 300 MB, and copying it out of the page cache is a third of the work.
/// A file still being written is read as far as it was long when opened.
fn read_regular(file: &std::fs::File, len: u64) -> std::io::Result<Vec<u8>> {
    if len < 16 << 20 {
        let mut bytes = Vec::with_capacity(len as usize);
        file.take(len).read_to_end(&mut bytes)?;
        return Ok(bytes);
    }
    let mut bytes = vec![0u8; len as usize];
    let (first, second) = bytes.split_at_mut(len as usize / 2);
    let half = first.len() as u64;
    std::thread::scope(|scope| {
        let other = scope.spawn(|| file.read_exact_at(second, half));
        file.read_exact_at(first, 0)?;
        other.join().unwrap_or_else(|_| Err(std::io::Error::other("a reading thread failed")))
    })?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_and_oversized_inputs_are_refused() {
        let e = read_limited(Path::new("/dev/zero"), 1 << 20, "spec file").unwrap_err();
        assert!(e.to_string().contains("more than 1 MiB"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.csv");
        std::fs::File::create(&big).unwrap().set_len(3 << 20).unwrap();
        assert!(read_limited(&big, 2 << 20, "counter log").unwrap_err().to_string().contains("counter log"));
        // Within the limit, a sparse file is refused from its first bytes, not read whole.
        let e = read_limited(&big, 4 << 20, "counter log").unwrap_err().to_string();
        assert!(e.contains("binary data (a NUL byte at offset 0), not a counter log"), "{e}");
        let late_nul = dir.path().join("late.csv");
        std::fs::write(&late_nul, [b"a,b\n".as_slice(), &[0u8]].concat()).unwrap();
        assert!(read_limited(&late_nul, 1 << 20, "counter log").unwrap_err().to_string().contains("offset 4"));
        let large = dir.path().join("large");
        std::fs::write(&large, vec![7u8; (17 << 20) + 3]).unwrap();
        let read = read_limited(&large, 32 << 20, "counter log").unwrap();
        assert!(read.len() == (17 << 20) + 3 && read.iter().all(|b| *b == 7), "both halves read");
    }
}
