//! The check's answer on the terminal: the verdict per area, then what to do (problems and
//! warnings, each with its advice and source), then notes while room remains; at most
//! `MAX_LINES` lines, the rest in the report.

use super::battery::Budget;
use super::since::Since;
use spindle_analysis::findings::since::CHANGE_PCT;
use spindle_analysis::findings::{Area, DirEvidence, Evidence, Finding, Level};
use spindle_model::units::{format_bytes_approx, format_elapsed};
use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

/// A summary a terminal shows whole.
const MAX_LINES: usize = 25;

pub fn area_title(area: Area) -> &'static str {
    match area {
        Area::Environment => "environment",
        Area::PageReads => "page reads",
        Area::Commits => "commits",
        Area::LargeWrites => "large writes",
        Area::LargeReads => "large reads",
        Area::Log => "log",
        Area::Verify => "verify",
    }
}

pub fn level_word(level: Level) -> &'static str {
    match level {
        Level::Ok => "ok",
        Level::Note => "note",
        Level::Warning => "WARNING",
        Level::Problem => "PROBLEM",
    }
}

/// How many moved figures one "since" line names.
const CHANGES_SHOWN: usize = 3;

#[allow(clippy::too_many_arguments)] // the summary says everything the check found
pub fn render(
    evidence: &Evidence,
    findings: &[Finding],
    verdicts: &[(Area, Level)],
    since: &[(String, Option<Since>)],
    budget: Budget,
    elapsed: Duration,
    report: Option<&Path>,
    interrupted: bool,
) -> String {
    let mut lines: Vec<String> = Vec::new();
    // Each finding is said once: as its area's lead, under what to do, or among the rest.
    let mut said = vec![false; findings.len()];
    let several = evidence.dirs.len() > 1;
    for dir in &evidence.dirs {
        lines.push(format!(
            "\ncheck of {}: {} ({} battery, {}{})",
            dir.dir,
            where_it_is(dir),
            budget.name(),
            format_elapsed(elapsed),
            if interrupted { ", stopped early" } else { "" }
        ));
        // Per area, the worst finding of this directory leads (findings come worst first).
        for (area, _) in verdicts {
            let Some(i) = findings.iter().position(|f| f.dir == dir.dir && f.area == *area) else { continue };
            let lead = &findings[i];
            lines.push(format!("  {:<13} {:<8} {}", area_title(*area), level_word(lead.level), lead.text));
            said[i] = lead.level < Level::Warning;
        }
        if several && !findings.iter().any(|f| f.dir == dir.dir) {
            lines.push("  nothing measured here".into());
        }
        if let Some((_, Some(last))) = since.iter().find(|(d, _)| *d == dir.dir) {
            lines.push(since_line(last));
        }
    }
    if findings.iter().any(|f| f.level >= Level::Warning) {
        lines.push("\nwhat to do:".into());
        for (i, f) in findings.iter().enumerate().filter(|(_, f)| f.level >= Level::Warning) {
            let at = if several { format!(" [{}]", f.dir) } else { String::new() };
            lines.push(format!("  {:<8} {}{at}", level_word(f.level), f.text));
            if let Some(advice) = &f.advice {
                let source = f.source.map(|s| format!(" (after \"{}\")", s.title)).unwrap_or_default();
                lines.push(format!("           {advice}{source}"));
            }
            said[i] = true;
        }
    }
    let rest: Vec<&Finding> = findings.iter().zip(&said).filter(|(_, said)| !**said).map(|(f, _)| f).collect();
    // Room for the rest, keeping the report's line and the "more" line.
    let room = MAX_LINES.saturating_sub(lines.len() + 4);
    let shown = rest.len().min(room);
    if shown > 0 {
        lines.push("\nalso:".into());
        for f in &rest[..shown] {
            lines.push(format!("  {}", f.text));
        }
    }
    if shown < rest.len() {
        lines.push(format!("  ({} more in the report)", rest.len() - shown));
    }
    lines.push(match report {
        Some(p) => format!("\nreport: {}", p.display()),
        None => "\nno report: nothing was measured".to_string(),
    });
    let mut out = String::new();
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    out
}

/// "since 2026-11-20T10:34:07Z (group 12): commit latency 2.4 ms -> 3.9 ms (+62%, worse)".
fn since_line(last: &Since) -> String {
    let head = format!("  since the check of {} (group {})", last.created_at, last.group);
    if last.changes.is_empty() {
        return format!("{head}: no figure moved by more than {CHANGE_PCT:.0}%");
    }
    let named: Vec<&str> = last.changes.iter().take(CHANGES_SHOWN).map(|c| c.text.as_str()).collect();
    let more = last.changes.len().saturating_sub(CHANGES_SHOWN);
    let more = if more > 0 { format!("; {more} more in --json") } else { String::new() };
    format!("{head}: {}{more}", named.join("; "))
}

/// The counts by level, in one line (`--quiet`).
pub fn verdict_line(findings: &[Finding]) -> String {
    let count = |level| findings.iter().filter(|f| f.level == level).count();
    format!(
        "check: {} problem(s), {} warning(s), {} note(s)\n",
        count(Level::Problem),
        count(Level::Warning),
        count(Level::Note)
    )
}

/// "ext4 on vda, SSD" — what the directory sits on, in a few words.
fn where_it_is(dir: &DirEvidence) -> String {
    let d = &dir.device;
    let mut parts = Vec::new();
    let fs = d.filesystem.clone().unwrap_or_else(|| "unknown filesystem".into());
    parts.push(match (&d.partition, &d.device) {
        (Some(p), Some(disk)) if p != disk => format!("{fs} on {p} ({disk})"),
        (_, Some(disk)) => format!("{fs} on {disk}"),
        _ => fs,
    });
    match d.rotational {
        Some(true) => parts.push("rotational".into()),
        Some(false) => parts.push("non-rotational".into()),
        None => {}
    }
    if let Some(free) = dir.free_bytes {
        parts.push(format!("{} free", format_bytes_approx(free)));
    }
    parts.join(", ")
}
