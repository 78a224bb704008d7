//! What a check hands on: the HTML report (every step's runs with their charts, and the
//! findings, drawn from the store as `spindle report` draws them) and the `--json` document.

use super::answer::Answer;
use crate::output;
use crate::usage::UsageError;
use spindle_report::Format;
use spindle_runner::experiment::Runner;
use std::path::{Path, PathBuf};

/// The `--json` document's and each check group's summary schema (docs/check.md).
pub const SCHEMA: &str = "spindle-check/1";

/// Where the report goes: `-o`, checked now (before any I/O); else a new file in the first
/// directory named for the time, never over an existing one.
pub fn path(given: Option<&Path>, dir: &Path, force: bool) -> Result<PathBuf, UsageError> {
    if let Some(path) = given {
        output::check_output(path, &[])?;
        if path.exists() && !force {
            return Err(UsageError::flag(
                "-o",
                path.display().to_string(),
                "the file exists; pass --force to replace it",
            ));
        }
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !parent.is_dir() {
            return Err(UsageError::flag("-o", path.display().to_string(), "its directory does not exist"));
        }
        return Ok(path.to_path_buf());
    }
    let stamp = spindle_model::time::rfc3339_utc(std::time::SystemTime::now());
    // 2026-11-26T10:52:07Z -> 2026-11-26-1052
    let name = format!("spindle-check-{}-{}", &stamp[..10], stamp.get(11..16).unwrap_or("").replace(':', ""));
    let mut path = dir.join(format!("{name}.html"));
    let mut n = 2;
    while path.symlink_metadata().is_ok() {
        path = dir.join(format!("{name}-{n}.html"));
        n += 1;
    }
    Ok(path)
}

/// Writes the HTML report of the check's groups; `None` when nothing was saved to report.
pub fn write(path: &Path, runner: &Runner<'_>, group_ids: &[i64], force: bool) -> anyhow::Result<Option<PathBuf>> {
    let Some(store) = runner.saver.store() else { return Ok(None) };
    let records: Vec<_> = runner.runs.iter().map(|f| f.record.clone()).collect();
    let mut doc = runner.saver.document(&records);
    for id in group_ids {
        doc.groups.push(crate::commands::report::report_group(store.group(*id)?));
    }
    doc.title = "spindle check".into();
    doc.generated_at = spindle_model::time::rfc3339_utc(std::time::SystemTime::now());
    let bytes = Format::Html.exporter().export(&doc)?;
    output::write_whole(path, &bytes, force)?;
    Ok(Some(path.to_path_buf()))
}

/// The `--json` document: every directory's evidence, the findings, the verdict per area, and
/// what changed since the last check of each directory.
pub fn json(a: &Answer) -> serde_json::Value {
    serde_json::json!({
        "schema": SCHEMA,
        "budget": a.budget.name(),
        "guidance": a.evidence.guidance,
        "complete": !a.interrupted,
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
