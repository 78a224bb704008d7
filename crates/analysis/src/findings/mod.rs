//! What a check's figures mean, in plain words: each rule holds one figure against a published
//! threshold and says what to do. The rules live in one table (`rules.rs`), each with its source.

pub mod durability;
pub mod evidence;

pub use evidence::*;
use serde::Serialize;

/// How much a finding matters. Ordered: a problem outranks a warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Measured and within the guidance.
    Ok,
    /// Worth knowing; nothing to fix.
    Note,
    /// Likely to hurt a database; worth fixing.
    Warning,
    /// Will hurt a database or lose its data; fix before trusting this storage.
    Problem,
}

/// The part of the check a finding belongs to; the summary gives each area one verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Area {
    Environment,
    PageReads,
    Commits,
    LargeWrites,
    LargeReads,
    Log,
    Verify,
}

/// A published document a threshold comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    pub title: &'static str,
    pub publisher: &'static str,
    pub url: &'static str,
}

/// One conclusion about one directory.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// The directory it is about (`DirEvidence::dir`).
    pub dir: String,
    pub area: Area,
    pub level: Level,
    /// The rule's stable name (`commit-latency`), for `--json` readers and tests.
    pub rule: &'static str,
    /// The finding in plain words, with its figure: "Commits take 3.9 ms (p99 12 ms); a busy
    /// OLTP log wants 1-5 ms".
    pub text: String,
    /// The figure judged, as shown (`3.9 ms`).
    pub figure: String,
    /// What it was held against (`at most 5 ms`), when a threshold applies.
    pub threshold: Option<String>,
    pub source: Option<Source>,
    /// What to do about it.
    pub advice: Option<String>,
}
