//! Mistakes in what the user asked for. Every one names where the mistake is (a flag, a spec
//! file line, a path, a selection of stored runs) so the message says what to change; all of
//! them exit 2, before anything is measured.

use crate::origin::Origin;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq)]
pub enum UsageError {
    /// A value that cannot be used: where it was given, as written, and why.
    Value { origin: Origin, text: String, why: String },
    /// Something wrong at a place that is not one value: a table with no path, a key in the
    /// wrong table, a block size the device under a target cannot do.
    At { origin: Origin, why: String },
    /// A file that cannot be read, parsed, created or written.
    File { path: PathBuf, why: String },
    /// What was asked does not hold together as a whole (something missing, settings that
    /// conflict, more than this machine or server allows); the message says what to change.
    Request(String),
    /// A selection of stored runs that matches none.
    NoRuns { selection: String },
}

impl UsageError {
    pub fn value(origin: Origin, text: impl Into<String>, why: impl fmt::Display) -> UsageError {
        UsageError::Value { origin, text: text.into(), why: why.to_string() }
    }

    /// A flag's value that cannot be used.
    pub fn flag(flag: &'static str, text: impl Into<String>, why: impl fmt::Display) -> UsageError {
        UsageError::value(Origin::Flag(flag), text, why)
    }

    pub fn at(origin: Origin, why: impl fmt::Display) -> UsageError {
        UsageError::At { origin, why: why.to_string() }
    }

    pub fn file(path: impl Into<PathBuf>, why: impl fmt::Display) -> UsageError {
        UsageError::File { path: path.into(), why: why.to_string() }
    }

    pub fn request(why: impl Into<String>) -> UsageError {
        UsageError::Request(why.into())
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsageError::Value { origin, text, why } => write!(f, "{origin} {text}: {why}"),
            UsageError::At { origin, why } => write!(f, "{origin}: {why}"),
            UsageError::File { path, why } => write!(f, "{}: {why}", path.display()),
            UsageError::Request(why) => f.write_str(why),
            UsageError::NoRuns { selection } => write!(f, "{selection}: no stored run matches"),
        }
    }
}

impl std::error::Error for UsageError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_names_where() {
        assert_eq!(UsageError::flag("--read", "101", "a percentage").to_string(), "--read 101: a percentage");
        let line = Origin::File { path: "w.toml".into(), line: 3, key: "depth".into() };
        assert_eq!(UsageError::at(line, "no path").to_string(), "w.toml line 3 (depth): no path");
        assert_eq!(UsageError::file("a.toml", "cannot read it").to_string(), "a.toml: cannot read it");
        assert_eq!(
            UsageError::NoRuns { selection: "--a raid=5".into() }.to_string(),
            "--a raid=5: no stored run matches"
        );
    }
}
