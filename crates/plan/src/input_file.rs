//! Files the user names as input (spec files, counter logs, other tools' results, durability
//! logs), read whole but never without bound: a device or pipe that never ends (`/dev/zero`)
//! or a file far larger than any of its kind is refused, naming the limit, before it fills
//! memory; and every one of them is text, so a file whose first bytes are not (a sparse file,
//! an image, a database) is refused from those bytes, before the rest is read. UTF-16 text,
//! told by its byte-order mark (what Windows PowerShell's `>` writes), is read as UTF-8.
//!
//! A counter log has no size of its kind (a month of one-second samples is gigabytes), so it is
//! read as a stream instead (`TextStream`): a run of lines at a time, in bounded memory, from a file
//! or a pipe of any length. A line has a bound of its own (`MAX_LINE`), so a stream of bytes
//! without newlines is refused rather than gathered; a device is read to `STREAM_LIMIT`.

use crate::usage::UsageError;
use crate::utf16::{self, Utf16Reader};
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
    // A file of length 0 may still hold text: the kernel's files under /proc and /sys say 0
    // and are read as a stream is.
    if meta.is_file() && meta.len() > 0 {
        if meta.len() > limit {
            return Err(too_large());
        }
        let mut head = vec![0u8; SNIFF.min(meta.len() as usize)];
        let got = file.read_at(&mut head, 0).map_err(cannot)?;
        if let Some(order) = utf16::byte_order(&head[..got]) {
            return from_utf16(&read_regular(&file, meta.len()).map_err(cannot)?, order).map_err(cannot);
        }
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
    if let Some(order) = utf16::byte_order(&bytes) {
        return from_utf16(&bytes, order).map_err(cannot);
    }
    if let Some(at) = nul_in(&bytes[..bytes.len().min(SNIFF)]) {
        return Err(not_text(at));
    }
    Ok(bytes)
}

/// UTF-16 text (its byte-order mark first) as UTF-8.
fn from_utf16(bytes: &[u8], order: utf16::Order) -> std::io::Result<Vec<u8>> {
    let mut text = Vec::with_capacity(bytes.len());
    Utf16Reader::new(bytes.get(2..).unwrap_or_default(), order).read_to_end(&mut text)?;
    Ok(text)
}

/// The longest line a streamed file may have: a perfmon header of ten thousand counters is a
/// megabyte.
pub const MAX_LINE: usize = 16 << 20;
/// How much is read at a time from a streamed file, and handed on as a run of lines: large
/// enough that handing runs to other threads costs little, small enough that a few in flight
/// keep memory bounded.
const CHUNK: usize = 4 << 20;

/// A text file opened to be read a line at a time: its first bytes are read and looked at
/// (no NUL) when it is opened.
pub struct TextStream {
    path: std::path::PathBuf,
    what: String,
    source: Box<dyn Read>,
    /// The first bytes (up to `SNIFF`), not yet handed on.
    head: Vec<u8>,
    /// A device is read to `STREAM_LIMIT`: more is refused.
    device: bool,
}

impl TextStream {
    /// Opens `path`; `what` names the kind of file in errors. A regular file is read as far
    /// as it was long when opened (a log still being written ends there); a pipe to its end;
    /// a device to `STREAM_LIMIT`.
    pub fn open(path: &Path, what: &str) -> Result<TextStream, UsageError> {
        let cannot = |e: std::io::Error| UsageError::file(path, format_args!("cannot read the {what}: {e}"));
        let file = std::fs::File::open(path).map_err(cannot)?;
        let meta = file.metadata().map_err(cannot)?;
        use std::os::unix::fs::FileTypeExt;
        let device = !meta.is_file() && !meta.file_type().is_fifo();
        // A file of length 0 may still hold text (/proc, /sys): read as a stream is.
        let sized = meta.is_file() && meta.len() > 0;
        let mut source: Box<dyn Read> =
            if sized { Box::new(file.take(meta.len())) } else { Box::new(file.take(STREAM_LIMIT + 1)) };
        // UTF-16 text (as Windows PowerShell writes a log it saves) is read as UTF-8.
        let mut mark = Vec::with_capacity(2);
        (&mut source).take(2).read_to_end(&mut mark).map_err(cannot)?;
        let mut source: Box<dyn Read> = match utf16::byte_order(&mark) {
            Some(order) => Box::new(Utf16Reader::new(source, order)),
            None => Box::new(std::io::Cursor::new(mark).chain(source)),
        };
        let mut head = Vec::with_capacity(SNIFF);
        (&mut source).take(SNIFF as u64).read_to_end(&mut head).map_err(cannot)?;
        if let Some(at) = nul_in(&head) {
            return Err(UsageError::file(
                path,
                format_args!("holds binary data (a NUL byte at offset {at}), not a {what}: is it the right file?"),
            ));
        }
        Ok(TextStream { path: path.to_path_buf(), what: what.to_string(), source, head, device })
    }

    /// The first bytes (up to 64 KiB), to tell the file's format by.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The whole file, at most `limit` bytes (for a format that is read whole).
    pub fn read_whole(mut self, limit: u64) -> Result<Vec<u8>, UsageError> {
        let mut bytes = std::mem::take(&mut self.head);
        let room = (limit + 1).saturating_sub(bytes.len() as u64);
        (&mut self.source).take(room).read_to_end(&mut bytes).map_err(|e| self.cannot(e))?;
        if bytes.len() as u64 > limit {
            return Err(UsageError::file(
                &self.path,
                format_args!(
                    "larger than {} MiB, more than any {} holds: is it the right file?",
                    limit >> 20,
                    self.what
                ),
            ));
        }
        Ok(bytes)
    }

    /// The whole text, from its first bytes on, to be read as a stream by a reader of its
    /// own (fio's JSON, a job at a time).
    pub fn into_reader(self) -> impl Read {
        std::io::Cursor::new(self.head).chain(self.source)
    }

    fn cannot(&self, e: std::io::Error) -> UsageError {
        UsageError::file(&self.path, format_args!("cannot read the {}: {e}", self.what))
    }

    /// The text in runs of whole lines of about `CHUNK` bytes (the last run may end without
    /// a `\n`), each handed on whole so its lines can be read by another thread, until `each`
    /// returns `Ok(None)` or the text ends. `each` gives back a buffer to read the next run
    /// into: a run handed back once read reuses its memory (a fresh buffer's pages are
    /// cleared by the kernel as they are first touched). Bytes that are not UTF-8 are the
    /// reader's to replace: a run ends at a `\n`, never inside a character.
    pub fn chunks(mut self, mut each: impl FnMut(Vec<u8>) -> anyhow::Result<Option<Vec<u8>>>) -> anyhow::Result<()> {
        let mut buf = std::mem::take(&mut self.head);
        let mut total = buf.len() as u64;
        loop {
            let got = (&mut self.source).take(CHUNK as u64).read_to_end(&mut buf).map_err(|e| self.cannot(e))?;
            total += got as u64;
            if self.device && total > STREAM_LIMIT {
                return Err(UsageError::file(
                    &self.path,
                    format_args!(
                        "not a file or a pipe, and more than {} MiB came from it: save the {} to a file first",
                        STREAM_LIMIT >> 20,
                        self.what
                    ),
                )
                .into());
            }
            if got == 0 {
                if !buf.is_empty() {
                    each(buf)?;
                }
                return Ok(());
            }
            if buf.len() < CHUNK {
                continue;
            }
            match buf.iter().rposition(|&b| b == b'\n') {
                Some(end) => {
                    let rest = buf.split_off(end + 1);
                    let Some(mut next) = each(std::mem::take(&mut buf))? else { return Ok(()) };
                    next.clear();
                    // Room for the next run, so reading it does not grow the buffer step by step.
                    next.reserve(2 * CHUNK);
                    next.extend_from_slice(&rest);
                    buf = next;
                }
                None if buf.len() > MAX_LINE => {
                    return Err(UsageError::file(
                        &self.path,
                        format_args!(
                            "a line longer than {} MiB, more than any {} has: is it the right file?",
                            MAX_LINE >> 20,
                            self.what
                        ),
                    )
                    .into());
                }
                None => {}
            }
        }
    }
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

    fn chunks_of(path: &Path) -> anyhow::Result<Vec<Vec<u8>>> {
        let mut chunks = Vec::new();
        TextStream::open(path, "counter log")?.chunks(|c| {
            chunks.push(c);
            Ok(Some(Vec::new()))
        })?;
        Ok(chunks)
    }

    /// The kernel's files say they are empty and are not: read as streams, not taken at
    /// their word.
    #[test]
    fn a_proc_file_of_length_zero_is_read_for_what_it_holds() {
        let status = read_limited(Path::new("/proc/self/status"), 1 << 20, "result file").unwrap();
        assert!(String::from_utf8_lossy(&status).contains("Pid:"));
        let stream = TextStream::open(Path::new("/proc/self/status"), "counter log").unwrap();
        assert!(String::from_utf8_lossy(stream.head()).contains("Pid:"));
    }

    #[test]
    fn a_stream_is_read_in_runs_of_whole_lines_in_bounded_memory() {
        let dir = tempfile::tempdir().unwrap();
        // Lines across the first bytes and the chunks after, and a last line without a newline.
        let text: String = (0..2_000_000).map(|i| format!("line {i}\r\n")).collect::<String>() + "last";
        let file = dir.path().join("log.csv");
        std::fs::write(&file, &text).unwrap();
        let chunks = chunks_of(&file).unwrap();
        assert_eq!(chunks.concat(), text.as_bytes());
        assert!(chunks.len() > 3 && chunks.iter().all(|c| c.len() <= 2 * CHUNK + SNIFF), "{}", chunks.len());
        assert!(chunks[..chunks.len() - 1].iter().all(|c| c.ends_with(b"\r\n")), "whole lines");
        // Stopping early.
        let mut n = 0;
        TextStream::open(&file, "counter log")
            .unwrap()
            .chunks(|c| {
                n += 1;
                Ok((n < 3).then_some(c))
            })
            .unwrap();
        assert_eq!(n, 3);
        // Binary data from its first bytes, an endless device from its length, a line without end.
        let e = TextStream::open(Path::new("/dev/zero"), "counter log").err().unwrap().to_string();
        assert!(e.contains("NUL byte at offset 0"), "{e}");
        let long = dir.path().join("long.csv");
        std::fs::write(&long, vec![b'x'; MAX_LINE + CHUNK + 5]).unwrap();
        let e = chunks_of(&long).unwrap_err().to_string();
        assert!(e.contains("a line longer than 16 MiB"), "{e}");
        // A file that is not a stream is read whole within its bound.
        let head = TextStream::open(&file, "IOMeter file").unwrap();
        assert!(head.head().starts_with(b"line 0"));
        assert!(head.read_whole(1 << 20).unwrap_err().to_string().contains("larger than 1 MiB"));
        assert_eq!(TextStream::open(&file, "x").unwrap().read_whole(64 << 20).unwrap(), text.as_bytes());
    }
}
