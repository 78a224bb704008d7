//! UTF-16 text read as UTF-8: what Windows PowerShell's `>` and `Out-File` write (a counter
//! log saved from `typeperf` or `relog` there, a result file), told by its byte-order mark.
//! Decoded as it is read, so a log of any length stays in bounded memory. std's
//! `char::decode_utf16` does the decoding; the crate that streams it (encoding_rs_io) brings
//! encoding_rs's tables for every legacy encoding, about a megabyte, for this one encoding.

use std::io::Read;

/// The byte order a UTF-16 byte-order mark at the start of `bytes` gives: little-endian
/// (`FF FE`) or big-endian (`FE FF`).
pub fn byte_order(bytes: &[u8]) -> Option<Order> {
    match bytes {
        [0xFF, 0xFE, ..] => Some(Order::Little),
        [0xFE, 0xFF, ..] => Some(Order::Big),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Order {
    Little,
    Big,
}

/// How much is read from the source at a time.
const READ: usize = 64 << 10;

/// A reader of UTF-16 text (after its byte-order mark) that gives UTF-8; what is not UTF-16 (a
/// lone surrogate, an odd byte at the end) is U+FFFD, as `String::from_utf8_lossy` does.
pub struct Utf16Reader<R> {
    inner: R,
    order: Order,
    /// Bytes read and not yet decoded: an odd byte, or a high surrogate awaiting its pair.
    raw: Vec<u8>,
    out: Vec<u8>,
    at: usize,
    ended: bool,
}

impl<R: Read> Utf16Reader<R> {
    pub fn new(inner: R, order: Order) -> Utf16Reader<R> {
        Utf16Reader { inner, order, raw: Vec::new(), out: Vec::new(), at: 0, ended: false }
    }

    /// Decodes what has been read, keeping a trailing odd byte and a high surrogate whose
    /// pair may come in the next read (unless the text has ended).
    fn decode(&mut self) {
        let whole = self.raw.len() / 2 * 2;
        let unit = |pair: &[u8]| match self.order {
            Order::Little => u16::from_le_bytes([pair[0], pair[1]]),
            Order::Big => u16::from_be_bytes([pair[0], pair[1]]),
        };
        let mut units: Vec<u16> = self.raw[..whole].chunks_exact(2).map(unit).collect();
        let mut used = whole;
        if !self.ended && units.last().is_some_and(|u| (0xD800..0xDC00).contains(u)) {
            units.pop();
            used -= 2;
        }
        self.out.clear();
        self.at = 0;
        let mut utf8 = [0u8; 4];
        for c in char::decode_utf16(units) {
            self.out.extend_from_slice(c.unwrap_or(char::REPLACEMENT_CHARACTER).encode_utf8(&mut utf8).as_bytes());
        }
        self.raw.drain(..used);
        if self.ended && !self.raw.is_empty() {
            self.raw.clear();
            self.out.extend_from_slice(char::REPLACEMENT_CHARACTER.encode_utf8(&mut utf8).as_bytes());
        }
    }
}

impl<R: Read> Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.out.len() {
            if self.ended {
                return Ok(0);
            }
            let have = self.raw.len();
            self.raw.resize(have + READ, 0);
            let got = self.inner.read(&mut self.raw[have..])?;
            self.raw.truncate(have + got);
            self.ended = got == 0;
            self.decode();
        }
        let n = buf.len().min(self.out.len() - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `bytes` through the decoder `chunk` bytes at a time from the source.
    fn through(bytes: &[u8], order: Order, chunk: usize) -> String {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.1.min(self.0.len()).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut out = String::new();
        Utf16Reader::new(Trickle(bytes, chunk), order).read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn utf16_of_either_order_reads_as_its_text_however_it_is_cut() {
        let text = "\"(PDH-CSV 4.0)\",\"\\\\h\\Disk\"\r\n\"t\",\"1,5\" é 𝄞 end";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for chunk in [1, 2, 3, 5, 64 << 10] {
            assert_eq!(through(&le, Order::Little, chunk), text, "cut every {chunk} bytes");
            assert_eq!(through(&be, Order::Big, chunk), text, "cut every {chunk} bytes");
        }
        assert_eq!(byte_order(&[0xFF, 0xFE, b'a', 0]), Some(Order::Little));
        assert_eq!(byte_order(&[0xFE, 0xFF]), Some(Order::Big));
        assert_eq!(byte_order(b"ab"), None);
    }

    #[test]
    fn what_is_not_utf16_is_a_replacement_character() {
        // A lone high surrogate, then an odd byte at the end.
        assert_eq!(through(&[0x3D, 0xD8, b'a', 0, b'b'], Order::Little, 1), "\u{FFFD}a\u{FFFD}");
        assert_eq!(through(&[], Order::Little, 1), "");
    }
}
