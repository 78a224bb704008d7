//! A file's bytes as UTF-8 text while they are read, each byte that is not UTF-8 read as
//! U+FFFD exactly as `String::from_utf8_lossy` reads it (one for each maximal invalid
//! sequence), so a file streamed reads as the same file read whole. Hand-written: std decodes
//! lossily only a whole slice, and a character may be split across two reads.

use std::io::{self, Read};

const REPLACEMENT: &[u8] = "\u{fffd}".as_bytes();
/// How much is read from the source at a time.
const CHUNK: usize = 64 << 10;

pub struct Lossy<R> {
    source: R,
    /// Bytes read from the source: `raw[..kept]` not yet decoded, the start of a character
    /// that a read split (at most 3 bytes).
    raw: Vec<u8>,
    kept: usize,
    /// Decoded text not yet handed on, from `at`.
    text: Vec<u8>,
    at: usize,
}

impl<R: Read> Lossy<R> {
    pub fn new(source: R) -> Lossy<R> {
        Lossy { source, raw: vec![0; CHUNK + 4], kept: 0, text: Vec::with_capacity(CHUNK + 8), at: 0 }
    }

    /// Reads and decodes the next chunk into `text`; leaves it empty at the end of the source.
    fn decode_more(&mut self) -> io::Result<()> {
        self.text.clear();
        self.at = 0;
        while self.text.is_empty() {
            let got = loop {
                match self.source.read(&mut self.raw[self.kept..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other?,
                }
            };
            let end = got == 0;
            let mut rest: &[u8] = &self.raw[..self.kept + got];
            while !rest.is_empty() {
                match std::str::from_utf8(rest) {
                    Ok(valid) => {
                        self.text.extend_from_slice(valid.as_bytes());
                        rest = &[];
                    }
                    Err(e) => {
                        let (valid, after) = rest.split_at(e.valid_up_to());
                        self.text.extend_from_slice(valid);
                        rest = after;
                        match e.error_len() {
                            Some(bad) => {
                                self.text.extend_from_slice(REPLACEMENT);
                                rest = &rest[bad..];
                            }
                            // A character cut short by the end of the file is one U+FFFD.
                            None if end => {
                                self.text.extend_from_slice(REPLACEMENT);
                                rest = &[];
                            }
                            // Cut by this read: decoded with the bytes that follow.
                            None => break,
                        }
                    }
                }
            }
            let (from, kept) = (self.kept + got - rest.len(), rest.len());
            self.raw.copy_within(from..from + kept, 0);
            self.kept = kept;
            if end {
                break;
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Lossy<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.text.len() {
            self.decode_more()?;
        }
        let n = buf.len().min(self.text.len() - self.at);
        buf[..n].copy_from_slice(&self.text[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands on its bytes a few at a time, so characters are split between reads.
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.1 = self.1 % 5 + 1;
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_read_as_from_utf8_lossy_reads_them() {
        let samples: [&[u8]; 6] = [
            "plain ascii and ünïcödé, 日本, 🦀".as_bytes(),
            b"a\xffb\xc3(\xe2\x82c\xf0\x9f\x98",
            b"\xe2\x82",
            b"\xed\xa0\x80 surrogate, \xf4\x90\x80\x80 past U+10FFFF, \xc0\xaf overlong",
            b"",
            b"\xf0\x9f\x98\x80\xf0",
        ];
        for bytes in samples {
            let whole = String::from_utf8_lossy(bytes).into_owned();
            let mut streamed = String::new();
            Lossy::new(Trickle(bytes, 0)).read_to_string(&mut streamed).unwrap();
            assert_eq!(streamed, whole, "{bytes:?}");
            let mut at_once = String::new();
            Lossy::new(bytes).read_to_string(&mut at_once).unwrap();
            assert_eq!(at_once, whole, "{bytes:?}");
        }
    }
}
