//! Judging the sectors of one read against what the run wrote there. Each sector is intact
//! and current, or one kind of fault; runs of sectors with the same fault are one finding.

use super::map::Expected;
use super::stamp::{self, SECTOR, Sector};
use spindle_model::verify::{Finding, FindingKind, VerifySummary};
use std::path::Path;

/// One sector's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// Intact and what was expected (or intact and nothing was expected).
    Good,
    /// Nothing to check it against.
    Unchecked,
    Faulty(Fault),
    /// Faulty, and reported already (read before).
    Reported,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fault {
    kind: FindingKind,
    expected: Option<u64>,
    found: Option<u64>,
    meant_for: Option<u64>,
}

fn fault(kind: FindingKind) -> Fault {
    Fault { kind, expected: None, found: None, meant_for: None }
}

fn judge(found: Sector, offset: u64, run: u64, expected: Expected) -> Verdict {
    let written = match expected {
        Expected::Unknown => return Verdict::Unchecked,
        Expected::Written(g) => u64::from(g),
        // Where the run never wrote, only its own stamps can be judged: anything else may be
        // another program's bytes, or an earlier run's (`spindle verify` checks those).
        Expected::Never => {
            return match found {
                Sector::Stamped(s) if s.run == run && s.offset != offset => Verdict::Faulty(Fault {
                    meant_for: Some(s.offset),
                    found: Some(s.generation),
                    ..fault(FindingKind::Misdirected)
                }),
                // A write of its own completed elsewhere, or never: the bytes are wrong.
                Sector::Stamped(s) if s.run == run => {
                    Verdict::Faulty(Fault { found: Some(s.generation), ..fault(FindingKind::Corrupt) })
                }
                Sector::Damaged { run: r } if r == run => Verdict::Faulty(fault(FindingKind::Corrupt)),
                _ => Verdict::Unchecked,
            };
        }
    };
    let faulty = match found {
        Sector::Damaged { .. } => fault(FindingKind::Corrupt),
        Sector::Unstamped => Fault { expected: Some(written), ..fault(FindingKind::Lost) },
        Sector::Stamped(s) if s.offset != offset => {
            Fault { meant_for: Some(s.offset), found: Some(s.generation), ..fault(FindingKind::Misdirected) }
        }
        // Another run's stamp, intact and in its place: this run's write never landed.
        Sector::Stamped(s) if s.run != run => Fault { expected: Some(written), ..fault(FindingKind::Lost) },
        Sector::Stamped(s) if expected.is(s.generation) => return Verdict::Good,
        Sector::Stamped(s) => Fault { expected: Some(written), found: Some(s.generation), ..fault(FindingKind::Stale) },
    };
    Verdict::Faulty(faulty)
}

/// The verdicts of one read's sectors, kept by the caller between reads so checking a read
/// allocates nothing; also each sector's body hash, which a writer reusing the buffer stamps
/// with (see `stamp::stamp_block_with_bodies`).
#[derive(Default)]
pub struct Verdicts {
    verdicts: Vec<(Expected, Verdict)>,
    bodies: Vec<u64>,
}

impl Verdicts {
    /// The body hash of each sector of the last read checked.
    pub fn bodies(&self) -> &[u64] {
        &self.bodies
    }
}

/// Checks the sectors of `block`, read from `offset` of `target`, against `expected` (what the
/// run's map says each offset should hold), and adds what it finds to `summary`; a faulty
/// sector counts once, the first time `first_report` hears of it.
#[allow(clippy::too_many_arguments)]
pub fn check_read(
    block: &[u8],
    offset: u64,
    run: u64,
    target: &Path,
    expected: impl Fn(u64) -> Expected,
    mut first_report: impl FnMut(u64) -> bool,
    scratch: &mut Verdicts,
    summary: &mut VerifySummary,
) {
    let Verdicts { verdicts, bodies } = scratch;
    verdicts.clear();
    bodies.clear();
    let (mut good, mut unchecked) = (0, 0);
    for (i, sector) in block.chunks_exact(SECTOR).enumerate() {
        let at = offset + (i * SECTOR) as u64;
        let e = expected(at);
        let body = stamp::body_hash(sector);
        bodies.push(body);
        let verdict = judge(stamp::read_with_body(sector, run, body), at, run, e);
        good += u64::from(verdict == Verdict::Good);
        unchecked += u64::from(verdict == Verdict::Unchecked);
        verdicts.push((e, verdict));
    }
    if good + unchecked == verdicts.len() as u64 {
        // Nothing faulty (nearly every read): nothing to regroup or report.
        summary.sectors_checked += good;
        summary.sectors_unchecked += unchecked;
        return;
    }
    // A write some of whose sectors are there and some not was torn, not lost.
    for i in 0..verdicts.len() {
        let (e, v) = verdicts[i];
        if let Verdict::Faulty(f @ Fault { kind: FindingKind::Lost | FindingKind::Stale, .. }) = v
            && verdicts.iter().any(|&(other, ov)| other == e && ov == Verdict::Good)
        {
            verdicts[i].1 = Verdict::Faulty(Fault { kind: FindingKind::Torn, ..f });
        }
    }
    for (i, (_, v)) in verdicts.iter_mut().enumerate() {
        if matches!(v, Verdict::Faulty(_)) && !first_report(offset + (i * SECTOR) as u64) {
            *v = Verdict::Reported;
        }
    }
    let mut i = 0;
    while i < verdicts.len() {
        let v = verdicts[i].1;
        let mut j = i + 1;
        while j < verdicts.len() && same_finding(verdicts[j].1, v, (j - i) as u64) {
            j += 1;
        }
        match v {
            Verdict::Good | Verdict::Reported => summary.sectors_checked += (j - i) as u64,
            Verdict::Unchecked => summary.sectors_unchecked += (j - i) as u64,
            Verdict::Faulty(Fault { kind, expected, found, meant_for }) => {
                summary.sectors_checked += (j - i) as u64;
                summary.add(Finding {
                    target: target.to_path_buf(),
                    offset: offset + (i * SECTOR) as u64,
                    bytes: ((j - i) * SECTOR) as u64,
                    kind,
                    expected_generation: expected,
                    found_generation: found,
                    meant_for_offset: meant_for,
                });
            }
        }
        i = j;
    }
}

/// Whether the sector `step` sectors after a finding's first continues it: the same fault,
/// and for a misdirected run, data meant for the next sector of the same place.
fn same_finding(next: Verdict, first: Verdict, step: u64) -> bool {
    match (next, first) {
        (Verdict::Faulty(f), Verdict::Faulty(f0)) if f0.meant_for.is_some() => {
            Fault { meant_for: f0.meant_for.map(|m| m + step * SECTOR as u64), ..f0 } == f
        }
        _ => next == first,
    }
}

#[cfg(test)]
mod tests {
    use super::super::stamp::{Stamp, stamp_block};
    use super::*;

    const RUN: u64 = 0xfeed;

    fn written(offset: u64, len: usize, generation: u64) -> Vec<u8> {
        let mut block: Vec<u8> = (0..len).map(|i| (i * 13 + 5) as u8).collect();
        stamp_block(&mut block, Stamp { run: RUN, offset, generation, write_start: offset, write_len: len as u32 });
        block
    }

    fn check(block: &[u8], offset: u64, expected: impl Fn(u64) -> Expected) -> VerifySummary {
        let mut summary = VerifySummary::default();
        check_read(block, offset, RUN, Path::new("t"), expected, |_| true, &mut Verdicts::default(), &mut summary);
        summary
    }

    fn kinds(s: &VerifySummary) -> Vec<(FindingKind, u64, u64)> {
        s.findings.iter().map(|f| (f.kind, f.offset, f.bytes)).collect()
    }

    #[test]
    fn a_sector_read_again_is_one_fault() {
        let mut reported = std::collections::HashSet::new();
        let mut summary = VerifySummary::default();
        for _ in 0..3 {
            check_read(
                &[0u8; 1024],
                0,
                RUN,
                Path::new("t"),
                |_| Expected::Written(3),
                |at| reported.insert(at),
                &mut Verdicts::default(),
                &mut summary,
            );
        }
        assert_eq!((summary.faulty_sectors(), summary.findings.len(), summary.sectors_checked), (2, 1, 6));
    }

    #[test]
    fn a_current_block_is_clean_and_an_unwritten_one_unchecked() {
        let s = check(&written(8192, 4096, 3), 8192, |_| Expected::Written(3));
        assert_eq!((s.sectors_checked, s.sectors_unchecked, s.faulty_sectors()), (8, 0, 0));
        let fill = vec![0x5au8; 4096];
        let s = check(&fill, 0, |_| Expected::Never);
        assert_eq!((s.sectors_checked, s.sectors_unchecked, s.faulty_sectors()), (0, 8, 0));
    }

    #[test]
    fn every_injected_fault_is_found_and_named() {
        // A bit flip in one sector.
        let mut b = written(0, 4096, 3);
        b[1500] ^= 0x10;
        assert_eq!(kinds(&check(&b, 0, |_| Expected::Written(3))), [(FindingKind::Corrupt, 1024, 512)]);
        // A zeroed block where a write was acknowledged.
        let s = check(&[0u8; 4096], 0, |_| Expected::Written(3));
        assert_eq!(kinds(&s), [(FindingKind::Lost, 0, 4096)]);
        // The write before the last one acknowledged.
        let s = check(&written(0, 4096, 2), 0, |_| Expected::Written(3));
        assert_eq!(kinds(&s), [(FindingKind::Stale, 0, 4096)]);
        assert_eq!((s.findings[0].expected_generation, s.findings[0].found_generation), (Some(3), Some(2)));
        // The first half of the last write landed, the second half did not.
        let mut b = written(0, 4096, 3);
        b[2048..].copy_from_slice(&written(0, 4096, 2)[2048..]);
        assert_eq!(kinds(&check(&b, 0, |_| Expected::Written(3))), [(FindingKind::Torn, 2048, 2048)]);
        // A block written for offset 1 MiB found at 0.
        let s = check(&written(1 << 20, 4096, 3), 0, |_| Expected::Written(3));
        assert_eq!(kinds(&s), [(FindingKind::Misdirected, 0, 4096)]);
        assert_eq!(s.findings[0].meant_for_offset, Some(1 << 20));
        // An earlier run's block where this run's write should be.
        let mut other = vec![0u8; 4096];
        stamp_block(&mut other, Stamp { run: 1, offset: 0, generation: 3, write_start: 0, write_len: 4096 });
        assert_eq!(kinds(&check(&other, 0, |_| Expected::Written(3))), [(FindingKind::Lost, 0, 4096)]);
        // Where the run never wrote, only its own stamps are judged.
        let s = check(&other, 0, |_| Expected::Never);
        assert_eq!((s.faulty_sectors(), s.sectors_unchecked), (0, 8), "another run's, or another program's");
        let mut b = written(0, 4096, 3);
        b[10] ^= 1;
        assert_eq!(
            check(&b, 0, |_| Expected::Never).faults.get(&FindingKind::Corrupt),
            Some(&8),
            "its own stamps where it never wrote"
        );
        assert_eq!(kinds(&check(&written(8192, 512, 3), 0, |_| Expected::Never)), [(FindingKind::Misdirected, 0, 512)]);
    }

    #[test]
    fn random_damage_is_always_found_and_clean_blocks_never_are() {
        let mut rng = spindle_model::rng::Rng::new(42);
        for round in 0..2000u64 {
            let len = 512 << rng.below(5);
            let offset = rng.below(1 << 20) * 512;
            let generation = 2 + rng.below(1000);
            let clean = written(offset, len as usize, generation);
            let s = check(&clean, offset, |_| Expected::Written(generation as u32));
            assert_eq!(s.faulty_sectors(), 0, "round {round}: false alarm");
            let mut damaged = clean.clone();
            let at = rng.below(len) as usize;
            match round % 4 {
                0 => damaged[at] ^= 1 << rng.below(8),
                1 => damaged[at / 512 * 512..][..512].fill(0),
                2 => damaged = written(offset, len as usize, generation - 1),
                _ => damaged = written(offset + len, len as usize, generation),
            }
            assert!(
                check(&damaged, offset, |_| Expected::Written(generation as u32)).faulty_sectors() > 0,
                "round {round}"
            );
        }
    }
}
