//! The `--json` document: every directory's evidence, the findings, the verdict per area, and
//! what changed since the last check of each directory.

use crate::answer::Answer;

/// The `--json` document's and each check group's summary schema (docs/check.md).
pub const SCHEMA: &str = "spindle-check/1";

pub fn json(a: &Answer) -> serde_json::Value {
    serde_json::json!({
        "schema": SCHEMA,
        "budget": a.budget.name(),
        "guidance": a.evidence.guidance,
        "complete": a.stopped.is_none(),
        "stopped": a.stopped,
        "groups": a.groups,
        "report": a.report.as_ref().map(|p| p.display().to_string()),
        "verdicts": a.verdicts.iter().map(|(area, level)| serde_json::json!({"area": area, "level": level})).collect::<Vec<_>>(),
        "findings": a.findings,
        "dirs": a.evidence.dirs,
        "shared_devices": a.shared,
        "layouts": a.layouts,
        "since": a.since.iter().map(|(dir, s)| serde_json::json!({"dir": dir, "last": s})).collect::<Vec<_>>(),
    })
}
