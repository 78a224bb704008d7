//! What data verification found, in words: the same lines under a run verified while it ran
//! (`spindle io --verify`) and for a whole file (`spindle verify`).

use crate::figures::grouped;
use spindle_model::units::format_size;
use spindle_model::verify::{Finding, FindingKind, VerifySummary};
use std::fmt::Write;

/// The verdict line and, when there are faults, one line per finding kept.
pub fn render_verification(out: &mut String, v: &VerifySummary) {
    render_verification_judging(out, v, &[]);
}

/// [`render_verification`] for a check that could not look for every kind of fault
/// (`unjudged`): its verdict never says "no faults", only which kinds were not found and
/// which could not be looked for.
pub fn render_verification_judging(out: &mut String, v: &VerifySummary, unjudged: &[FindingKind]) {
    let unchecked = if v.sectors_unchecked > 0 {
        format!(", {} unchecked (never written under --verify)", grouped(v.sectors_unchecked))
    } else {
        String::new()
    };
    let _ = write!(out, "verification (id {}): {} sectors checked{unchecked}", v.id, grouped(v.sectors_checked));
    let not_judged = || format!("{} writes not judged", any_of(unjudged.iter().copied()));
    if v.faulty_sectors() == 0 {
        if unjudged.is_empty() {
            let _ = writeln!(out, ": no faults");
        } else {
            let judged = any_of(FindingKind::ALL.into_iter().filter(|k| !unjudged.contains(k)));
            let _ = writeln!(out, ": no {judged} sectors; {}", not_judged());
        }
        return;
    }
    let by_kind: Vec<String> = FindingKind::ALL
        .iter()
        .filter_map(|k| v.faults.get(k).map(|n| format!("{} {}", grouped(*n), k.name())))
        .collect();
    let unjudged = if unjudged.is_empty() { String::new() } else { format!(" ({})", not_judged()) };
    let _ = writeln!(out, ": FAULTY SECTORS: {}{unjudged}", by_kind.join(", "));
    for f in &v.findings {
        let _ = writeln!(out, "  {}", finding_line(f));
    }
    // Findings beyond those kept (or sectors lost where no offset is known) are counted only.
    if v.faulty_sectors() > v.findings.iter().map(|f| f.bytes / 512).sum::<u64>() {
        let _ = writeln!(out, "  (and more not listed: the counts above cover them all)");
    }
}

/// Kinds as a list read aloud: "corrupt, torn or misdirected".
fn any_of(kinds: impl Iterator<Item = FindingKind>) -> String {
    let names: Vec<&str> = kinds.map(FindingKind::name).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

fn finding_line(f: &Finding) -> String {
    let what = match f.kind {
        FindingKind::Corrupt => "checksum fails".to_string(),
        FindingKind::Torn => format!("part of write {} is missing", write_no(f.expected_generation)),
        FindingKind::Stale => {
            format!("holds write {} instead of write {}", write_no(f.found_generation), write_no(f.expected_generation))
        }
        FindingKind::Lost => format!("write {} is not there", write_no(f.expected_generation)),
        FindingKind::Misdirected => {
            format!("holds data meant for offset {}", f.meant_for_offset.map_or("?".to_string(), grouped))
        }
    };
    format!(
        "{:<11} {} offset {} ({}): {what}",
        f.kind.name(),
        f.target.display(),
        grouped(f.offset),
        format_size(f.bytes)
    )
}

fn write_no(g: Option<u64>) -> String {
    g.map_or("?".to_string(), |g| format!("#{g}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_and_faulty_verdicts_read_plainly() {
        let mut v = VerifySummary { id: "00ff".into(), sectors_checked: 12_345, ..Default::default() };
        let mut out = String::new();
        render_verification(&mut out, &v);
        assert_eq!(out, "verification (id 00ff): 12,345 sectors checked: no faults\n");
        v.add(Finding {
            target: "/d/t.dat".into(),
            offset: 1 << 20,
            bytes: 4096,
            kind: FindingKind::Stale,
            expected_generation: Some(9),
            found_generation: Some(4),
            meant_for_offset: None,
        });
        let mut out = String::new();
        render_verification(&mut out, &v);
        assert!(out.contains("FAULTY SECTORS: 8 stale"), "{out}");
        assert!(
            out.contains("stale       /d/t.dat offset 1,048,576 (4KiB): holds write #4 instead of write #9"),
            "{out}"
        );
    }

    #[test]
    fn a_check_that_could_not_judge_every_kind_never_says_no_faults() {
        let unjudged = [FindingKind::Stale, FindingKind::Lost];
        let mut v = VerifySummary { id: "00ff".into(), sectors_checked: 8, ..Default::default() };
        let mut out = String::new();
        render_verification_judging(&mut out, &v, &unjudged);
        assert_eq!(
            out,
            "verification (id 00ff): 8 sectors checked: no corrupt, torn or misdirected sectors; stale or lost writes not judged\n"
        );
        v.faults.insert(FindingKind::Corrupt, 1);
        let mut out = String::new();
        render_verification_judging(&mut out, &v, &unjudged);
        assert!(out.contains("FAULTY SECTORS: 1 corrupt (stale or lost writes not judged)"), "{out}");
    }
}
