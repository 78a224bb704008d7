//! fio's JSON read as a stream: the documents in a file (fio's own messages before and between
//! them skipped), and in each its jobs one at a time, each handed on as soon as it is read. A
//! file of thousands of jobs runs to hundreds of MB; only one job is ever held, never the file
//! (serde's visitors read the `jobs` array an element at a time).

use crate::ParseError;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::io::{self, Read};
use std::ops::ControlFlow;

/// What a document says of all its jobs, as far as it has been read. fio writes it before
/// its jobs; a job read before the version is kept until the document ends.
#[derive(Default)]
pub struct Header {
    pub version: Option<String>,
    pub timestamp: Option<u64>,
    pub globals: Vec<Map<String, Value>>,
}

/// Why the reading of a file stopped before its end.
pub enum Stop {
    /// A job or a document that is not fio's results: said with the document's first byte.
    NotFio(String),
    /// What the jobs were handed to refused one, in words of its own.
    Refused(ParseError),
}

/// What takes each job: `Break` when it wants no more.
pub type EachJob<'a> = dyn FnMut(&Header, Value) -> Result<ControlFlow<()>, Stop> + 'a;

/// Every job of every document in `text` (UTF-8), handed to `each` in the file's order.
pub fn jobs(text: impl Read, each: &mut EachJob<'_>) -> Result<(), ParseError> {
    let mut scan = Scan::new(text);
    while scan.next_document().map_err(cannot_read)? {
        let (start, lines_before) = (scan.offset, scan.count_lines());
        let mut doc =
            Document { header: Header::default(), jobs: false, waiting: Vec::new(), each: &mut *each, stop: None };
        let read = de::Deserializer::deserialize_map(&mut serde_json::Deserializer::from_reader(&mut scan), &mut doc);
        let ended = match (read, doc.stop.take()) {
            (_, Some(stopped)) => stopped,
            (Err(e), None) if e.is_io() => return Err(cannot_read(e)),
            (Err(e), None) => return Err(ParseError(format!("line {}: {e}", lines_before + e.line().max(1)))),
            (Ok(()), None) => doc.end(),
        };
        match ended {
            Ok(ControlFlow::Continue(())) => {}
            Ok(ControlFlow::Break(())) => return Ok(()),
            Err(Stop::NotFio(why)) => return Err(ParseError(format!("byte {start}: {why}"))),
            Err(Stop::Refused(e)) => return Err(e),
        }
    }
    Ok(())
}

fn cannot_read(e: impl fmt::Display) -> ParseError {
    ParseError(format!("cannot read the file: {e}"))
}

/// One document being read.
struct Document<'a, 'b> {
    header: Header,
    /// Whether its jobs were read (`jobs` or, from a client/server run, `client_stats`:
    /// the first of them that is an array).
    jobs: bool,
    /// Jobs read before the version.
    waiting: Vec<Value>,
    each: &'a mut EachJob<'b>,
    /// Set when a job stopped the reading: the error serde is given says nothing.
    stop: Option<Result<ControlFlow<()>, Stop>>,
}

impl Document<'_, '_> {
    /// A job read: handed on, or kept until the version is read.
    fn job(&mut self, job: Value) -> ControlFlow<()> {
        if self.header.version.is_none() {
            self.waiting.push(job);
            return ControlFlow::Continue(());
        }
        match (self.each)(&self.header, job) {
            Ok(ControlFlow::Continue(())) => ControlFlow::Continue(()),
            stopped => {
                self.stop = Some(stopped);
                ControlFlow::Break(())
            }
        }
    }

    /// The document read to its end: what it lacks said, its waiting jobs handed on.
    fn end(mut self) -> Result<ControlFlow<()>, Stop> {
        if self.header.version.is_none() {
            return Err(Stop::NotFio("no \"fio version\": not fio's JSON output".into()));
        }
        if !self.jobs {
            return Err(Stop::NotFio("no \"jobs\" or \"client_stats\"".into()));
        }
        for job in std::mem::take(&mut self.waiting) {
            if self.job(job).is_break() {
                return self.stop.take().unwrap_or(Ok(ControlFlow::Break(())));
            }
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// The error handed to serde when a job stops the reading (what stopped it is in `stop`).
fn stopped<E: de::Error>() -> E {
    E::custom("stopped by a job")
}

impl<'de> Visitor<'de> for &mut Document<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("fio's JSON output")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "fio version" => self.header.version = map.next_value::<Value>()?.as_str().map(str::to_string),
                "timestamp" => self.header.timestamp = map.next_value::<Value>()?.as_u64(),
                "global options" => {
                    self.header.globals = match map.next_value::<Value>()? {
                        Value::Object(one) => vec![one],
                        Value::Array(many) => many
                            .into_iter()
                            .filter_map(|v| match v {
                                Value::Object(m) => Some(m),
                                _ => None,
                            })
                            .collect(),
                        _ => Vec::new(),
                    }
                }
                "jobs" | "client_stats" if !self.jobs => map.next_value_seed(Jobs(&mut *self))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// A document's `jobs`: an array read a job at a time; anything else is not its jobs.
struct Jobs<'d, 'a, 'b>(&'d mut Document<'a, 'b>);

impl<'de> DeserializeSeed<'de> for Jobs<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Jobs<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("fio's jobs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.jobs = true;
        while let Some(job) = seq.next_element::<Value>()? {
            if self.0.job(job).is_break() {
                return Err(stopped());
            }
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// Bytes read from a source through a buffer of our own, counting the bytes and lines
/// handed on (to say where a document starts), and looking ahead a character at a time for
/// where the next document starts.
struct Scan<R> {
    source: R,
    buf: Vec<u8>,
    /// The bytes not yet handed on: `buf[at..end]`.
    at: usize,
    end: usize,
    done: bool,
    /// Bytes handed on before `buf[at]`.
    offset: u64,
    /// `\n`s handed on before `buf[counted]`: the lines of what was handed on are counted
    /// when asked (serde reads a byte at a time).
    lines: usize,
    counted: usize,
}

const BUFFER: usize = 64 << 10;

impl<R: Read> Scan<R> {
    fn new(source: R) -> Scan<R> {
        Scan { source, buf: vec![0; BUFFER], at: 0, end: 0, done: false, offset: 0, lines: 0, counted: 0 }
    }

    /// The bytes not yet handed on: at least `need` of them, unless the source ends first.
    fn ahead(&mut self, need: usize) -> io::Result<&[u8]> {
        if self.end - self.at < need && !self.done {
            self.count_lines();
            self.buf.copy_within(self.at..self.end, 0);
            self.end -= self.at;
            self.at = 0;
            self.counted = 0;
            while self.end < need && !self.done {
                match self.source.read(&mut self.buf[self.end..]) {
                    Ok(0) => self.done = true,
                    Ok(n) => self.end += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(&self.buf[self.at..self.end])
    }

    fn consume(&mut self, n: usize) {
        self.offset += n as u64;
        self.at += n;
    }

    /// The `\n`s handed on so far.
    fn count_lines(&mut self) -> usize {
        self.lines += self.buf[self.counted..self.at].iter().filter(|&&b| b == b'\n').count();
        self.counted = self.at;
        self.lines
    }

    /// Moves to the next `{` that starts a line, after any white space: where a JSON
    /// document begins after fio's own messages. `false` at the end of the text.
    fn next_document(&mut self) -> io::Result<bool> {
        let mut line_start = true;
        loop {
            let ahead = self.ahead(4)?;
            let Some(&first) = ahead.first() else { return Ok(false) };
            if line_start {
                let width = match first {
                    0..0x80 => 1,
                    0xc0..0xe0 => 2,
                    0xe0..0xf0 => 3,
                    _ => 4,
                };
                match std::str::from_utf8(&ahead[..width.min(ahead.len())]).ok().and_then(|c| c.chars().next()) {
                    Some('{') => return Ok(true),
                    Some(c) if c.is_whitespace() => {
                        self.consume(width);
                        continue;
                    }
                    _ => line_start = false,
                }
            }
            let (line_end, len) = (ahead.iter().position(|&b| b == b'\n'), ahead.len());
            match line_end {
                Some(at) => {
                    self.consume(at + 1);
                    line_start = true;
                }
                None => self.consume(len),
            }
        }
    }
}

impl<R: Read> Read for Scan<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let ahead = self.ahead(1)?;
        let n = ahead.len().min(out.len());
        out[..n].copy_from_slice(&ahead[..n]);
        self.consume(n);
        Ok(n)
    }
}
