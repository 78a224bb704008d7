//! Where a setting came from, so a mistake is named where the user made it: a flag
//! (`--read`), a spec file line (`FILE line N (read)`), a named profile, or a suite member.
//! A leaf: planning, spec files and usage errors all build on it.

use std::fmt;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// A command-line flag or argument (`--read`, `--a`, `run`).
    Flag(&'static str),
    File {
        path: PathBuf,
        line: usize,
        key: String,
    },
    /// A value a named profile supplies (`--profile`, or `profile =` in a spec file).
    Profile {
        name: &'static str,
        key: &'static str,
    },
    /// A value `spindle check` sets for one step of its battery (`check, page reads (depth)`).
    Check {
        step: &'static str,
        key: &'static str,
    },
    /// A value a suite sets for one of its members (`suite sqlserver, seq-8k-read (random)`).
    Suite {
        suite: &'static str,
        member: &'static str,
        key: &'static str,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag(flag) => write!(f, "{flag}"),
            Origin::File { path, line, key } => write!(f, "{} line {line} ({key})", path.display()),
            Origin::Profile { name, key } => write!(f, "profile {name} ({key})"),
            Origin::Suite { suite, member, key } => write!(f, "suite {suite}, {member} ({key})"),
            Origin::Check { step, key } => write!(f, "check, {step} ({key})"),
        }
    }
}

/// A setting as written, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub text: String,
    pub origin: Origin,
}

impl Setting {
    /// A flag's value, when the flag was given.
    pub fn flag(name: &'static str, value: &Option<String>) -> Option<Setting> {
        value.clone().map(|text| Setting { text, origin: Origin::Flag(name) })
    }

    /// A switch (`--buffered`), as `true` when it was given.
    pub fn switch(name: &'static str, on: bool) -> Option<Setting> {
        on.then(|| Setting { text: "true".into(), origin: Origin::Flag(name) })
    }
}
