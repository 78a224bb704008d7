//! The check's answer on the terminal: the verdict per area, then what to do (problems and
//! warnings, each with its advice and source), then notes while room remains; at most
//! `MAX_LINES` lines, the rest in the report.

use crate::answer::Answer;
use crate::since::Since;
use spindle_analysis::findings::since::{Moved, SWING_CHECKS};
use spindle_analysis::findings::{Area, DirEvidence, Finding, Level};
use spindle_model::units::{format_bytes_approx, format_elapsed};
use std::fmt::Write;

/// A summary a terminal shows whole.
const MAX_LINES: usize = 25;

fn area_title(area: Area) -> &'static str {
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

fn level_word(level: Level) -> &'static str {
    match level {
        Level::Ok => "ok",
        Level::Note => "note",
        Level::Warning => "WARNING",
        Level::Problem => "PROBLEM",
    }
}

/// How many moved figures one "since" line names.
const CHANGES_SHOWN: usize = 3;

/// The summary a terminal shows after a check.
pub fn render(a: &Answer) -> String {
    let mut summary = Summary::new(a);
    for dir in &a.evidence.dirs {
        summary.dir(dir);
    }
    if let Some(l) = &a.layouts {
        summary.lines.push(format!("{}data and log: {}", summary.gap, l.recommendation.text));
    }
    if let Some(stopped) = &a.stopped {
        summary.lines.push(format!("{}{stopped}; the findings cover those alone", summary.gap));
    }
    summary.what_to_do();
    summary.finish()
}

/// The summary as it is written: its lines so far, and which findings they have said.
struct Summary<'a> {
    a: &'a Answer,
    lines: Vec<String>,
    /// Each finding is said once: as its area's lead, under what to do, or among the rest.
    said: Vec<bool>,
    several: bool,
    /// Blank lines between the parts, where one directory leaves room for them.
    gap: &'static str,
}

impl<'a> Summary<'a> {
    fn new(a: &'a Answer) -> Summary<'a> {
        let several = a.evidence.dirs.len() > 1;
        Summary {
            a,
            lines: Vec::new(),
            said: vec![false; a.findings.len()],
            several,
            gap: if several { "" } else { "\n" },
        }
    }

    /// A directory's heading, its verdict per area, and what moved since its last check.
    fn dir(&mut self, dir: &DirEvidence) {
        let (a, findings, gap) = (self.a, &self.a.findings, self.gap);
        self.lines.push(format!(
            "{gap}check of {}: {} ({} battery, {}{})",
            dir.dir,
            where_it_is(dir),
            a.budget.name(),
            format_elapsed(a.elapsed),
            if a.stopped.is_some() { ", stopped early" } else { "" }
        ));
        // Per area, the worst finding of this directory leads (findings come worst first).
        for (area, _) in &a.verdicts {
            let Some(i) = findings.iter().position(|f| f.dir == dir.dir && f.area == *area) else { continue };
            let lead = &findings[i];
            self.lines.push(format!("  {:<13} {:<8} {}", area_title(*area), level_word(lead.level), words(lead)));
            self.said[i] = lead.level < Level::Warning;
        }
        if self.several && !findings.iter().any(|f| f.dir == dir.dir) {
            self.lines.push("  nothing measured here".into());
        }
        if let Some((_, Some(last))) = a.since.iter().find(|(d, _)| *d == dir.dir) {
            self.lines.push(since_line(last));
        }
    }

    /// Problems and warnings, each with its advice and source; the same rule with the same
    /// advice in several directories is said once, naming them.
    fn what_to_do(&mut self) {
        let findings = &self.a.findings;
        if !findings.iter().any(|f| f.level >= Level::Warning) {
            return;
        }
        self.lines.push(format!("{}what to do:", self.gap));
        for (i, f) in findings.iter().enumerate().filter(|(_, f)| f.level >= Level::Warning) {
            if self.said[i] && self.several {
                continue;
            }
            let alike: Vec<usize> = (i..findings.len())
                .filter(|&j| {
                    findings[j].rule == f.rule && findings[j].level == f.level && findings[j].advice == f.advice
                })
                .collect();
            let at = if self.several {
                let names: Vec<&str> = alike.iter().map(|&j| findings[j].dir.as_str()).collect();
                format!(" [{}]", names.join(", "))
            } else {
                String::new()
            };
            self.lines.push(format!("  {:<8} {}{at}", level_word(f.level), words(f)));
            if let Some(advice) = &f.advice {
                let source = f.basis.document().map(|s| format!(" (after \"{}\")", s.title)).unwrap_or_default();
                self.lines.push(format!("           {advice}{source}"));
            }
            for j in alike {
                self.said[j] = true;
            }
            self.said[i] = true;
        }
    }

    /// The findings not yet said, as many as the screen has room for, then shared devices and
    /// the report's path; the summary as text.
    fn finish(mut self) -> String {
        let (a, gap) = (self.a, self.gap);
        let rest: Vec<&Finding> =
            a.findings.iter().zip(&self.said).filter(|(_, said)| !**said).map(|(f, _)| f).collect();
        let mut tail: Vec<String> = Vec::new();
        if !a.shared.is_empty() {
            tail.push(gap.trim_end().to_string());
            tail.extend(a.shared.iter().cloned());
        }
        tail.push(match &a.report {
            Some(p) => format!("{gap}report: {}", p.display()),
            None => format!("{gap}no report: nothing was measured"),
        });
        // Terminal lines so far (an entry starting with a newline takes two; the very first
        // newline is the gap above the summary, not a line of it), and the room left for the
        // rest beside the "also:" heading and the "more" line.
        let count = |ls: &[String]| ls.iter().map(|l| l.split('\n').count()).sum::<usize>();
        let used = (count(&self.lines) + count(&tail)).saturating_sub(gap.len());
        let room = MAX_LINES.saturating_sub(used + 3);
        let shown = rest.len().min(room);
        if shown > 0 {
            self.lines.push(format!("{gap}also:"));
            for f in &rest[..shown] {
                self.lines.push(format!("  {}", words(f)));
            }
        }
        if shown < rest.len() {
            self.lines.push(format!("  ({} more in the report)", rest.len() - shown));
        }
        self.lines.extend(tail);
        let mut out = String::new();
        for l in self.lines {
            let _ = writeln!(out, "{l}");
        }
        out
    }
}

/// A finding's words, with "spindle's rule" beside a judgement whose threshold is spindle's
/// own, so no reader takes it for a published one.
fn words(f: &Finding) -> String {
    if f.basis.is_own() { format!("{} (spindle's rule)", f.text) } else { f.text.clone() }
}

/// What moved since the earlier checks of the place: with too few of them to know its swing,
/// the largest moves, none called a change; else the changes beyond the swing, or that every
/// figure stayed within it.
fn since_line(last: &Since) -> String {
    let head = format!("  since the check of {} (group {})", last.created_at, last.group);
    let n = last.checks;
    let earlier = if n == 1 { "1 earlier check".to_string() } else { format!("{n} earlier checks") };
    if last.changes.is_empty() {
        return format!("{head}: no figure measured both times");
    }
    if n < SWING_CHECKS {
        let named: Vec<&str> = last.changes.iter().take(CHANGES_SHOWN).map(|c| c.text.as_str()).collect();
        return format!(
            "{head}: {}; {earlier} here, too few to know this disk's swing ({SWING_CHECKS} are needed), so no move \
             is called a change",
            named.join("; ")
        );
    }
    let beyond: Vec<&str> = last
        .changes
        .iter()
        .filter(|c| matches!(c.verdict, Moved::Worse | Moved::Better))
        .map(|c| c.text.as_str())
        .collect();
    if beyond.is_empty() {
        let widest = last.changes.iter().filter_map(|c| c.swing_pct).fold(0.0, f64::max);
        return format!("{head}: every figure within this disk's swing over {earlier} here (up to ±{widest:.0}%)");
    }
    let shown = &beyond[..beyond.len().min(CHANGES_SHOWN)];
    let more = beyond.len() - shown.len();
    let more = if more > 0 { format!("; {more} more in --json") } else { String::new() };
    format!("{head}: {}{more}; the rest within their swing", shown.join("; "))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battery::Budget;
    use spindle_analysis::findings::{Evidence, Guidance};

    fn finding(dir: &str, area: Area, level: Level, rule: &'static str) -> Finding {
        Finding {
            dir: dir.into(),
            area,
            level,
            rule,
            text: format!("{rule} in {dir}"),
            figure: "1".into(),
            threshold: None,
            basis: spindle_analysis::findings::Basis::Published {
                source: spindle_analysis::findings::Source { title: "T", publisher: "P", url: "https://example.org" },
                says: "a test's",
            },
            advice: (level >= Level::Warning).then(|| format!("fix {rule}")),
        }
    }

    fn answer(dirs: &[&str], findings: Vec<Finding>) -> Answer {
        let evidence = Evidence {
            guidance: Guidance::Generic,
            dirs: dirs.iter().map(|d| DirEvidence { dir: d.to_string(), ..DirEvidence::default() }).collect(),
        };
        let mut findings = findings;
        findings.sort_by_key(|f| std::cmp::Reverse(f.level));
        Answer {
            verdicts: spindle_analysis::findings::verdicts(&findings),
            evidence,
            findings,
            since: Vec::new(),
            shared: vec!["/a and /b are on one physical device (vda)".into()],
            budget: Budget::Quick,
            elapsed: std::time::Duration::from_secs(31),
            groups: vec![1, 2],
            report: Some("/a/r.html".into()),
            stopped: None,
            layouts: None,
        }
    }

    #[test]
    fn two_directories_with_many_findings_fit_one_screen_and_alike_advice_is_said_once() {
        let areas = [Area::Environment, Area::PageReads, Area::Commits, Area::LargeWrites, Area::LargeReads, Area::Log];
        let mut all = Vec::new();
        for dir in ["/a", "/b"] {
            all.push(finding(dir, Area::Environment, Level::Warning, "volatile-write-cache"));
            all.push(finding(dir, Area::Commits, Level::Problem, "commit-latency"));
            for (i, area) in areas.iter().enumerate() {
                all.push(finding(dir, *area, Level::Note, ["n0", "n1", "n2", "n3", "n4", "n5"][i]));
            }
            all.push(finding(dir, Area::Verify, Level::Ok, "verify"));
        }
        let text = render(&answer(&["/a", "/b"], all));
        let lines: Vec<&str> = text.trim_start().lines().collect();
        assert!(lines.len() <= MAX_LINES, "{} lines:\n{text}", lines.len());
        assert_eq!(text.matches("fix volatile-write-cache").count(), 1, "{text}");
        assert!(text.contains("volatile-write-cache in /a [/a, /b]"), "{text}");
        assert!(text.contains("more in the report") && text.contains("report: /a/r.html"), "{text}");
        assert!(text.contains("one physical device"), "{text}");
    }

    #[test]
    fn a_check_that_stopped_early_says_how_far_it_got_and_why() {
        use spindle_analysis::check_summary::{StopReason, StoppedEarly};
        let mut a = answer(&["/a"], vec![finding("/a", Area::PageReads, Level::Ok, "page-reads")]);
        assert!(!render(&a).contains("stopped early"));
        a.stopped = Some(StoppedEarly { why: StopReason::DiskFull, steps: 9, of: 14 });
        let text = render(&a);
        assert!(text.contains("31 s, stopped early)"), "{text}");
        assert!(
            text.contains(
                "\nstopped early (the disk filled up): 9 of 14 steps measured; the findings cover those alone\n"
            ),
            "{text}"
        );
    }

    fn moved(
        what: &'static str,
        verdict: Moved,
        checks: usize,
        swing: Option<f64>,
    ) -> spindle_analysis::findings::since::Change {
        spindle_analysis::findings::since::Change {
            what,
            before: 1.0,
            now: 2.0,
            pct: 100.0,
            checks,
            swing_pct: swing,
            p: swing.map(|_| 0.01),
            verdict,
            text: format!("{what} moved"),
        }
    }

    #[test]
    fn since_names_changes_only_beyond_a_swing_it_could_measure() {
        let since =
            |checks: usize, changes| Since { group: 12, created_at: "2026-11-20T10:34:07Z".into(), checks, changes };
        let few = since_line(&since(1, vec![moved("commit latency", Moved::Unjudged, 1, None)]));
        assert_eq!(
            few,
            "  since the check of 2026-11-20T10:34:07Z (group 12): commit latency moved; 1 earlier check here, too \
             few to know this disk's swing (3 are needed), so no move is called a change"
        );
        let within = since_line(&since(
            4,
            vec![
                moved("commit latency", Moved::WithinSwing, 4, Some(12.0)),
                moved("large writes", Moved::WithinSwing, 4, Some(27.4)),
            ],
        ));
        assert!(
            within.ends_with(": every figure within this disk's swing over 4 earlier checks here (up to ±27%)"),
            "{within}"
        );
        let beyond = since_line(&since(
            4,
            vec![
                moved("commit latency", Moved::Worse, 4, Some(12.0)),
                moved("large writes", Moved::WithinSwing, 4, Some(27.4)),
            ],
        ));
        assert!(beyond.ends_with(": commit latency moved; the rest within their swing"), "{beyond}");
    }
}
