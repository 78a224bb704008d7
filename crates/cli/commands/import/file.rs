//! One file to import, read: spindle's own run records, kept; or another tool's results,
//! read through once to check every run before anything is saved, and read again as its runs
//! are saved (a 200 MB fio JSON of thousands of jobs is never held whole, nor its runs).

use crate::usage::UsageError;
use sha2::{Digest, Sha256};
use spindle_formats::foreign::{self, ForeignRun};
use spindle_model::RunRecord;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;

/// The most of a file of spindle's own records read (they are read whole).
const RECORDS_LIMIT: u64 = 256 << 20;

/// One file, read and checked.
pub struct Checked {
    pub shown: String,
    pub tool: &'static str,
    pub version: Option<String>,
    /// The SHA-256 of its bytes, in hex.
    pub sha: String,
    pub runs: Runs,
}

pub enum Runs {
    /// spindle's own records, read whole and kept.
    Records(Vec<RunRecord>),
    /// Another tool's runs, this many: read again as they are saved.
    Foreign(usize),
}

impl Checked {
    pub fn count(&self) -> usize {
        match &self.runs {
            Runs::Records(records) => records.len(),
            Runs::Foreign(n) => *n,
        }
    }
}

pub fn check(path: &Path) -> Result<Checked, UsageError> {
    let shown = path.display().to_string();
    let stream = crate::input_file::TextStream::open(path, "result file")?;
    if looks_like_records(stream.head()) {
        let bytes = stream.read_whole(RECORDS_LIMIT)?;
        let records = spindle_records(&String::from_utf8_lossy(&bytes)).map_err(|e| UsageError::file(path, e))?;
        return Ok(Checked {
            shown,
            tool: "spindle",
            version: None,
            sha: sha_of(&bytes),
            runs: Runs::Records(records),
        });
    }
    let (mut count, mut first) = (0, None);
    let sha = read_foreign(path, |run| {
        count += 1;
        first.get_or_insert((run.tool, run.tool_version));
        ControlFlow::Continue(())
    })?;
    let (tool, version) = first.unwrap_or_default();
    Ok(Checked { shown, tool: tool.map_or("an unknown tool", |t| t.name()), version, sha, runs: Runs::Foreign(count) })
}

/// Reads another tool's results at `path`, handing each run to `each` as it is read (until
/// `each` says `Break`); returns the SHA-256 of the file's bytes (of those read, when `each`
/// stopped it).
pub fn read_foreign(path: &Path, each: impl FnMut(ForeignRun) -> ControlFlow<()>) -> Result<String, UsageError> {
    let stream = crate::input_file::TextStream::open(path, "result file")?;
    let mut hashing = Hashing { source: stream.into_reader(), sha: Sha256::new() };
    // Read to its end, unless `each` stops it.
    foreign::read(&mut hashing, each).map_err(|e| UsageError::file(path, format_args!("{e}; nothing was imported")))?;
    Ok(hex(&hashing.sha.finalize()))
}

/// Hands on what it reads, hashing it.
struct Hashing<R> {
    source: R,
    sha: Sha256,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.source.read(buf)?;
        self.sha.update(&buf[..n]);
        Ok(n)
    }
}

fn sha_of(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().fold(String::with_capacity(64), |mut s, b| {
        use std::fmt::Write as _;
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Whether a file's first bytes are those of spindle's own records (`--json` output, a run
/// kept when its store could not take it): JSON naming the record's schema, which a record
/// writes first.
fn looks_like_records(head: &[u8]) -> bool {
    let head = String::from_utf8_lossy(head);
    let start = head.trim_start();
    (start.starts_with('{') || start.starts_with('[')) && start.contains(spindle_model::record::SCHEMA_FAMILY)
}

/// spindle's own run records, one or many.
fn spindle_records(text: &str) -> Result<Vec<RunRecord>, String> {
    match serde_json::from_str::<Vec<RunRecord>>(text) {
        Ok(many) => Ok(many),
        Err(_) => serde_json::from_str::<RunRecord>(text)
            .map(|one| vec![one])
            .map_err(|e| format!("line {}: not a spindle run record ({e}); nothing was imported", e.line())),
    }
}
