//! A user's mistake in what a run of agents was asked to do: each names the flag or the file
//! to change, in the words the command line's own usage errors use (it turns each into one,
//! exit code 2).

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq)]
pub enum Mistake {
    /// A flag's value that cannot be used: the flag, its value as written, and why.
    Flag { flag: &'static str, text: String, why: String },
    /// A file that cannot be used (a line of it, or the whole).
    File { path: PathBuf, why: String },
    /// What was asked does not hold together; the message says what to change.
    Request(String),
}

impl Mistake {
    pub fn flag(flag: &'static str, text: impl Into<String>, why: impl fmt::Display) -> Mistake {
        Mistake::Flag { flag, text: text.into(), why: why.to_string() }
    }

    pub fn file(path: impl Into<PathBuf>, why: impl fmt::Display) -> Mistake {
        Mistake::File { path: path.into(), why: why.to_string() }
    }

    pub fn request(why: impl Into<String>) -> Mistake {
        Mistake::Request(why.into())
    }
}

impl fmt::Display for Mistake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mistake::Flag { flag, text, why } => write!(f, "{flag} {text}: {why}"),
            Mistake::File { path, why } => write!(f, "{}: {why}", path.display()),
            Mistake::Request(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Mistake {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_names_where() {
        assert_eq!(Mistake::flag("--agents", "0", "a number").to_string(), "--agents 0: a number");
        assert_eq!(Mistake::file("hosts", "names no host").to_string(), "hosts: names no host");
        assert_eq!(Mistake::request("--emit goes with --agents N").to_string(), "--emit goes with --agents N");
    }
}
