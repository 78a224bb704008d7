//! What data verification found: the figures `spindle io --verify` keeps in a run record and
//! `spindle verify` prints for a whole file. Findings are kept by kind, with their offsets,
//! so a report names exactly which blocks the storage lost, tore, misplaced or damaged.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Findings kept with their offsets in a record; beyond them only the counts by kind grow.
pub const KEPT_FINDINGS: usize = 100;
/// Findings a whole-file check (`spindle verify`) keeps: it is asked where every fault is, so
/// it names each, up to a bound on its memory (a device failing everywhere).
pub const KEPT_FINDINGS_WHOLE: usize = 100_000;

/// What went wrong with a stretch of a verified block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// The bytes are not what was written: the checksum fails (bit flips, a partly zeroed
    /// sector, garbage).
    Corrupt,
    /// Part of one write landed and part did not: some sectors carry the write, others still
    /// hold what was there before.
    Torn,
    /// An older write of this run is there instead of the last one acknowledged.
    Stale,
    /// A write acknowledged by the storage is not there at all: the block holds what was
    /// there before the run, or zeros.
    Lost,
    /// A block carries data written for another offset: a write landed in the wrong place.
    Misdirected,
}

impl FindingKind {
    pub const ALL: [FindingKind; 5] =
        [FindingKind::Corrupt, FindingKind::Torn, FindingKind::Stale, FindingKind::Lost, FindingKind::Misdirected];

    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Corrupt => "corrupt",
            FindingKind::Torn => "torn",
            FindingKind::Stale => "stale",
            FindingKind::Lost => "lost",
            FindingKind::Misdirected => "misdirected",
        }
    }
}

/// One contiguous stretch of a target with one kind of fault.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    #[serde(serialize_with = "crate::spec::path_as_text")]
    pub target: PathBuf,
    /// Byte offset of the first affected sector.
    pub offset: u64,
    /// Bytes affected (whole sectors).
    pub bytes: u64,
    pub kind: FindingKind,
    /// The write generation that should be there, when the run knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_generation: Option<u64>,
    /// The write generation found there, when the sector carries one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_generation: Option<u64>,
    /// Where the data found there was meant to go (misdirected writes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meant_for_offset: Option<u64>,
}

/// Verification figures of a run or of a whole file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifySummary {
    /// The run's verification id (hex), stamped into every sector it wrote.
    pub id: String,
    /// Sectors (512 bytes) whose contents were checked.
    pub sectors_checked: u64,
    /// Sectors read that nothing could be checked against: never written under
    /// verification, or after a write that failed.
    pub sectors_unchecked: u64,
    /// Affected sectors by kind (`corrupt`, `torn`, `stale`, `lost`, `misdirected`).
    pub faults: BTreeMap<FindingKind, u64>,
    /// The first findings, by target and offset (at most [`KEPT_FINDINGS`] in a run,
    /// [`KEPT_FINDINGS_WHOLE`] in a whole-file check).
    pub findings: Vec<Finding>,
}

impl VerifySummary {
    /// Sectors found faulty, of every kind.
    pub fn faulty_sectors(&self) -> u64 {
        self.faults.values().sum()
    }

    /// Adds another worker's or target's figures.
    pub fn merge(&mut self, other: &VerifySummary) {
        self.sectors_checked += other.sectors_checked;
        self.sectors_unchecked += other.sectors_unchecked;
        for (kind, n) in &other.faults {
            *self.faults.entry(*kind).or_insert(0) += n;
        }
        self.findings.extend(other.findings.iter().cloned());
        self.findings.sort_by(|a, b| (&a.target, a.offset).cmp(&(&b.target, b.offset)));
        self.findings.truncate(KEPT_FINDINGS);
    }

    /// Counts `finding` and keeps it while there is room.
    pub fn add(&mut self, finding: Finding) {
        self.add_keeping(finding, KEPT_FINDINGS);
    }

    /// Counts `finding` and keeps it while fewer than `keep` are kept.
    pub fn add_keeping(&mut self, finding: Finding, keep: usize) {
        *self.faults.entry(finding.kind).or_insert(0) += finding.bytes / 512;
        if self.findings.len() < keep {
            self.findings.push(finding);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(offset: u64, kind: FindingKind) -> Finding {
        Finding {
            target: "t".into(),
            offset,
            bytes: 1024,
            kind,
            expected_generation: None,
            found_generation: None,
            meant_for_offset: None,
        }
    }

    #[test]
    fn merging_counts_everything_and_keeps_the_first_findings_by_offset() {
        let mut a = VerifySummary { sectors_checked: 10, ..Default::default() };
        a.add(finding(4096, FindingKind::Lost));
        let mut b = VerifySummary { sectors_checked: 5, sectors_unchecked: 2, ..Default::default() };
        for i in 0..KEPT_FINDINGS as u64 {
            b.add(finding(8192 + i * 1024, FindingKind::Torn));
        }
        b.add(finding(0, FindingKind::Corrupt));
        a.merge(&b);
        assert_eq!((a.sectors_checked, a.sectors_unchecked), (15, 2));
        assert_eq!(a.faults[&FindingKind::Torn], 2 * KEPT_FINDINGS as u64);
        assert_eq!(a.faulty_sectors(), 2 * (KEPT_FINDINGS as u64 + 2));
        assert_eq!(a.findings.len(), KEPT_FINDINGS);
        assert_eq!(a.findings[0].offset, 4096, "sorted by offset; b's corrupt one came after its room ran out");
        let json = serde_json::to_string(&a).unwrap();
        assert!(json.contains("\"torn\":200"), "{json}");
        assert_eq!(serde_json::from_str::<VerifySummary>(&json).unwrap(), a);
    }
}
