//! The check's HTML report: where it goes (planned before any I/O, never over a file the user
//! did not give up) and what it holds (every step's runs with their charts, and the findings).

use spindle_analysis::check_summary::StoppedEarly;
use spindle_plan::output_file::check_output;
use spindle_plan::usage::UsageError;
use spindle_report::Format;
use spindle_runner::experiment::Runner;
use spindle_runner::saver::report_group;
use std::path::{Path, PathBuf};

/// Where the report goes: `-o`, checked now (before any I/O); else a new file in the first
/// directory named for the time, never over an existing one.
pub fn path(given: Option<&Path>, dir: &Path, force: bool) -> Result<PathBuf, UsageError> {
    if let Some(path) = given {
        check_output(path, &[])?;
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

/// The HTML report of the check's groups, drawn from the store as `spindle report` draws them
/// (each check group saying whether its battery stopped early); `None` when nothing was saved
/// to report. A check that stopped early says so in the report's title.
pub fn html(runner: &Runner<'_>, group_ids: &[i64], stopped: Option<StoppedEarly>) -> anyhow::Result<Option<Vec<u8>>> {
    let Some(store) = runner.saver.store() else { return Ok(None) };
    let records: Vec<_> = runner.runs.iter().map(|f| f.record.clone()).collect();
    let mut doc = runner.saver.document(&records);
    for id in group_ids {
        doc.groups.push(report_group(store.group(*id)?));
    }
    doc.title = match stopped {
        Some(stopped) => format!("spindle check, {stopped}"),
        None => "spindle check".into(),
    };
    doc.generated_at = spindle_model::time::rfc3339_utc(std::time::SystemTime::now());
    Ok(Some(Format::Html.exporter().export(&doc)?))
}
