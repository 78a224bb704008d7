//! Runs made together: why they were (the group's kind) and where each run sits among them
//! (its point). The store keeps both as text (`sweep`, `depth=8`); they are parsed once, where
//! the store is read, and typed everywhere after.

use serde::{Serialize, Serializer};
use std::fmt;

/// Why runs were made together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupKind {
    /// `--repeat N` of one configuration.
    Repeat,
    /// One configuration per point of a stepped setting: `--sweep PARAM=LIST`, the log test's
    /// transaction sizes, Hammer's session counts, the large operations.
    Sweep,
    /// `spindle suite ENGINE`: an engine's pattern matrix.
    Suite,
    /// `spindle ab A B`, `spindle placement`: two workloads alternated in rounds.
    Ab,
    /// `spindle check`: the battery of measurements its findings are drawn from.
    Check,
    /// One run measured by several agents (`--agents`): each agent's share, and the merged run.
    Agents,
}

impl GroupKind {
    pub const ALL: [GroupKind; 6] =
        [GroupKind::Repeat, GroupKind::Sweep, GroupKind::Suite, GroupKind::Ab, GroupKind::Check, GroupKind::Agents];

    /// As the store and reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            GroupKind::Repeat => "repeat",
            GroupKind::Sweep => "sweep",
            GroupKind::Suite => "suite",
            GroupKind::Ab => "ab",
            GroupKind::Check => "check",
            GroupKind::Agents => "agents",
        }
    }

    pub fn parse(name: &str) -> Option<GroupKind> {
        GroupKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for GroupKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One value of a stepped setting: `depth=8`, `batch=100`, `op=scan`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SweepPoint {
    /// The setting stepped (`depth`, `block`, `threads`, `batch`, `op`, ...).
    pub param: String,
    /// Its value at this point, as written (`8`, `64K`).
    pub value: String,
}

/// Where a run sits among the runs of its group.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Point {
    /// A sweep's point.
    Sweep(SweepPoint),
    /// A named member: a suite's pattern (`page-read`), an A/B side (`a`), a layout's load.
    Member(String),
}

impl Point {
    pub fn sweep(param: impl Into<String>, value: impl Into<String>) -> Point {
        Point::Sweep(SweepPoint { param: param.into(), value: value.into() })
    }

    /// The point from its text as stored: `param=value` is a sweep's point, anything else a
    /// member's name.
    pub fn parse(text: &str) -> Point {
        match text.split_once('=') {
            Some((param, value)) => Point::sweep(param, value),
            None => Point::Member(text.to_string()),
        }
    }

    pub fn as_sweep(&self) -> Option<&SweepPoint> {
        match self {
            Point::Sweep(p) => Some(p),
            Point::Member(_) => None,
        }
    }
}

/// As stored and shown: `depth=8`, `page-read`.
impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Point::Sweep(p) => write!(f, "{}={}", p.param, p.value),
            Point::Member(name) => f.write_str(name),
        }
    }
}

/// As its text, the form `runs list --json` has always given.
impl Serialize for Point {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_and_group_kinds_read_back_as_written() {
        for text in ["depth=8", "block=64K", "op=scan", "page-read", "a", "load one volume"] {
            assert_eq!(Point::parse(text).to_string(), text);
        }
        assert_eq!(Point::parse("depth=8").as_sweep(), Some(&SweepPoint { param: "depth".into(), value: "8".into() }));
        assert_eq!(Point::parse("page-read"), Point::Member("page-read".into()));
        assert_eq!(serde_json::to_value(Point::sweep("batch", "10")).unwrap(), "batch=10");
        for k in GroupKind::ALL {
            assert_eq!(GroupKind::parse(k.name()), Some(k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
        }
        assert_eq!(GroupKind::parse("batch"), None);
    }
}
