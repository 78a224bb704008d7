//! What data verification found, in words: the same lines under a run verified while it ran
//! (`spindle io --verify`) and for a whole file (`spindle verify`).

use crate::figures::grouped;
use spindle_model::units::format_size;
use spindle_model::verify::{Finding, FindingKind, VerifySummary};
use std::fmt::Write;

/// The verdict line and, when there are faults, one line per finding kept.
pub fn render_verification(out: &mut String, v: &VerifySummary) {
    let unchecked = if v.sectors_unchecked > 0 {
        format!(", {} unchecked (never written under --verify)", grouped(v.sectors_unchecked))
    } else {
        String::new()
    };
    let _ = write!(out, "verification (id {}): {} sectors checked{unchecked}", v.id, grouped(v.sectors_checked));
    if v.faulty_sectors() == 0 {
        let _ = writeln!(out, ": no faults");
        return;
    }
    let by_kind: Vec<String> = FindingKind::ALL
        .iter()
        .filter_map(|k| v.faults.get(k).map(|n| format!("{} {}", grouped(*n), k.name())))
        .collect();
    let _ = writeln!(out, ": FAULTY SECTORS: {}", by_kind.join(", "));
    for f in &v.findings {
        let _ = writeln!(out, "  {}", finding_line(f));
    }
    // Findings beyond those kept (or sectors lost where no offset is known) are counted only.
    if v.faulty_sectors() > v.findings.iter().map(|f| f.bytes / 512).sum::<u64>() {
        let _ = writeln!(out, "  (and more not listed: the counts above cover them all)");
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
}
