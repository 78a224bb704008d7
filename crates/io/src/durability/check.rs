//! `spindle durability verify`: after the crash, every slot the log says was acknowledged
//! must hold that write or a newer one, whole, in every sector. Anything else is a write the
//! storage acknowledged and did not keep. Writes still in flight at the crash may have landed
//! or not (nothing was promised); they are counted, never judged.

use super::log::Acknowledged;
use crate::engine::BufferPool;
use crate::verify::stamp::{self, SECTOR, Sector};
use spindle_model::verify::{Finding, FindingKind, VerifySummary};
use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

/// What the check found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckReport {
    /// Sector verdicts over every acknowledged slot (faults are acknowledged data not kept).
    pub summary: VerifySummary,
    /// Slots holding an acknowledged write.
    pub acked_slots: u64,
    /// Of those, slots whole and at their acknowledged generation or newer.
    pub kept_slots: u64,
    /// Writes issued after the last acknowledgement (in flight when the writer stopped).
    pub in_flight: u64,
    /// Of those, writes found whole on the target.
    pub in_flight_landed: u64,
    /// Sectors left damaged by a write in flight over acknowledged data: that write was
    /// allowed to change them, and nothing promised what a half-done overwrite leaves.
    pub torn_in_flight: u64,
    /// Sectors of the checked slots that hold another run's stamp, by run: a log of another
    /// run (or target) shows here.
    pub other_runs: HashMap<u64, u64>,
    /// Sectors of the checked slots that hold the log's run's stamp.
    pub run_sectors: u64,
}

/// Reads every slot the log names from `target` and judges it against the log.
pub fn check(target: &Path, log: &Acknowledged) -> std::io::Result<CheckReport> {
    let open = |flags| File::options().read(true).custom_flags(flags).open(target);
    let file = match open(libc::O_DIRECT) {
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => open(0)?,
        other => other?,
    };
    let block = log.header.block as usize;
    let pool = BufferPool::new(1, block);
    // SAFETY: the one slot is this function's alone.
    let buf = unsafe { &mut pool.slot_mut(0)[..block] };
    let mut slots: Vec<_> = log.slots.iter().map(|(s, state)| (*s, *state)).collect();
    // In order of offset: a disk reads them in one sweep.
    slots.sort_unstable_by_key(|(s, _)| *s);
    let mut report = CheckReport {
        summary: VerifySummary { id: format!("{:016x}", log.header.run), ..VerifySummary::default() },
        in_flight: log.last_issued - log.last_acked,
        ..CheckReport::default()
    };
    for (slot, state) in slots {
        let offset = slot * log.header.block;
        file.read_exact_at(buf, offset)?;
        let sectors: Vec<Sector> = buf.chunks_exact(SECTOR).map(|s| stamp::read(s, log.header.run)).collect();
        for sector in &sectors {
            match sector {
                Sector::Stamped(s) if s.run == log.header.run => report.run_sectors += 1,
                Sector::Stamped(s) => *report.other_runs.entry(s.run).or_insert(0) += 1,
                _ => {}
            }
        }
        if state.issued > log.last_acked {
            let landed = sectors.iter().enumerate().all(|(i, s)| {
                matches!(s, Sector::Stamped(st) if st.run == log.header.run
                    && st.generation == state.issued && st.offset == offset + (i * SECTOR) as u64)
            });
            report.in_flight_landed += u64::from(landed);
        }
        if state.acked == 0 {
            continue;
        }
        report.acked_slots += 1;
        let mut verdicts = judge(&sectors, offset, log.header.run, state.acked);
        if state.issued > state.acked {
            for v in verdicts.iter_mut().filter(|v| matches!(v, Some((FindingKind::Corrupt, ..)))) {
                *v = None;
                report.torn_in_flight += 1;
            }
        }
        report.summary.sectors_checked += sectors.len() as u64;
        if verdicts.iter().all(Option::is_none) {
            report.kept_slots += 1;
            continue;
        }
        add_findings(&mut report.summary, target, offset, state.acked, &verdicts);
    }
    Ok(report)
}

/// A sector's fault: its kind, the generation found, and for misdirected data how far its
/// place is from where it lies.
type Verdict = Option<(FindingKind, Option<u64>, Option<u64>)>;

/// What is wrong with each sector of a slot whose acknowledged generation is `acked`: None
/// for a sector holding that write or a newer one.
fn judge(sectors: &[Sector], offset: u64, run: u64, acked: u64) -> Vec<Verdict> {
    let mut verdicts: Vec<_> = sectors
        .iter()
        .enumerate()
        .map(|(i, sector)| {
            let at = offset + (i * SECTOR) as u64;
            match *sector {
                // How far from its place: one figure for every sector of a block that landed
                // whole in the wrong place, so they make one finding.
                Sector::Stamped(s) if s.run == run && s.offset != at => {
                    Some((FindingKind::Misdirected, Some(s.generation), Some(s.offset.wrapping_sub(at))))
                }
                Sector::Stamped(s) if s.run == run && s.generation >= acked => None,
                Sector::Stamped(s) if s.run == run => Some((FindingKind::Stale, Some(s.generation), None)),
                Sector::Damaged { .. } => Some((FindingKind::Corrupt, None, None)),
                Sector::Stamped(_) | Sector::Unstamped => Some((FindingKind::Lost, None, None)),
            }
        })
        .collect();
    // Part of the slot kept and part not: the acknowledged write (or the one over it) tore.
    if verdicts.iter().any(Option::is_none) {
        for v in verdicts.iter_mut().flatten() {
            if matches!(v.0, FindingKind::Stale | FindingKind::Lost) {
                v.0 = FindingKind::Torn;
            }
        }
    }
    verdicts
}

/// One finding per run of sectors with the same verdict.
fn add_findings(summary: &mut VerifySummary, target: &Path, offset: u64, acked: u64, verdicts: &[Verdict]) {
    let mut i = 0;
    while i < verdicts.len() {
        let Some(v) = verdicts[i] else {
            i += 1;
            continue;
        };
        let run = verdicts[i..].iter().take_while(|w| **w == Some(v)).count();
        let at = offset + (i * SECTOR) as u64;
        summary.add(Finding {
            target: target.to_path_buf(),
            offset: at,
            bytes: (run * SECTOR) as u64,
            kind: v.0,
            expected_generation: Some(acked),
            found_generation: v.1,
            meant_for_offset: v.2.map(|displacement| at.wrapping_add(displacement)),
        });
        i += run;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::durability::log::{self, Event, Header};
    use crate::verify::stamp::Stamp;

    const BLOCK: u64 = 4096;

    fn write(data: &mut [u8], slot: u64, generation: u64, run: u64) {
        let at = (slot * BLOCK) as usize;
        let block = &mut data[at..at + BLOCK as usize];
        stamp::stamp_block(block, Stamp { run, offset: 0, generation, write_start: slot * BLOCK, write_len: 4096 });
    }

    /// Generations 1..=4 to slots 0,1,2,1, acknowledged through 3; 4 in flight.
    fn scene() -> (tempfile::TempDir, std::path::PathBuf, Acknowledged, Vec<u8>) {
        let header = Header { run: 5, block: BLOCK, size: BLOCK * 4, target: "t".into() };
        let mut text = header.line();
        for (g, s) in [(1, 0), (2, 1), (3, 2), (4, 1)] {
            text.push_str(&Event::Issued { generation: g, slot: s }.to_string());
            if g == 3 {
                text.push_str(&Event::Acknowledged { generation: 3 }.to_string());
            }
        }
        let log = log::parse(text.as_bytes()).unwrap();
        let mut data = vec![0u8; (BLOCK * 4) as usize];
        for (g, s) in [(1, 0), (2, 1), (3, 2)] {
            write(&mut data, s, g, 5);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        (dir, path, log, data)
    }

    fn checked(path: &Path, log: &Acknowledged, data: &[u8]) -> CheckReport {
        std::fs::write(path, data).unwrap();
        check(path, log).unwrap()
    }

    #[test]
    fn everything_acknowledged_kept_is_clean_whether_the_write_in_flight_landed_or_not() {
        let (_dir, path, log, mut data) = scene();
        let r = checked(&path, &log, &data);
        assert_eq!((r.acked_slots, r.kept_slots, r.in_flight, r.in_flight_landed), (3, 3, 1, 0));
        assert_eq!(r.summary.faulty_sectors(), 0);
        write(&mut data, 1, 4, 5);
        let r = checked(&path, &log, &data);
        assert_eq!((r.kept_slots, r.in_flight_landed, r.summary.faulty_sectors()), (3, 1, 0));
    }

    #[test]
    fn each_way_of_losing_an_acknowledged_write_is_named() {
        let (_dir, path, log, data) = scene();
        let kind_of = |data: &[u8]| {
            let r = checked(&path, &log, data);
            assert_eq!(r.kept_slots, 2);
            r.summary.findings.iter().map(|f| (f.kind, f.offset, f.bytes)).collect::<Vec<_>>()
        };
        // Slot 2 never reached the media: zeros.
        let mut lost = data.clone();
        lost[2 * 4096..3 * 4096].fill(0);
        assert_eq!(kind_of(&lost), [(FindingKind::Lost, 8192, 4096)]);
        // Slot 2 holds an older write of the run (generation 1's data for slot 2).
        let mut stale = data.clone();
        write(&mut stale, 2, 1, 5);
        assert_eq!(kind_of(&stale), [(FindingKind::Stale, 8192, 4096)]);
        // Half of slot 2 old.
        let mut torn = data.clone();
        torn[2 * 4096 + 2048..3 * 4096].fill(0);
        assert_eq!(kind_of(&torn), [(FindingKind::Torn, 8192 + 2048, 2048)]);
        // A bit flipped.
        let mut corrupt = data.clone();
        corrupt[2 * 4096 + 700] ^= 4;
        assert_eq!(kind_of(&corrupt), [(FindingKind::Corrupt, 8192 + 512, 512)]);
        // Slot 0's data at slot 2.
        let mut misplaced = data.clone();
        misplaced.copy_within(0..4096, 2 * 4096);
        assert_eq!(kind_of(&misplaced), [(FindingKind::Misdirected, 8192, 4096)]);
    }

    #[test]
    fn a_sector_damaged_by_the_overwrite_in_flight_is_no_loss_but_an_older_write_is() {
        let (_dir, path, log, mut data) = scene();
        // Slot 1 (generation 2 acknowledged, 4 in flight) half overwritten mid-sector.
        data[4096 + 100] ^= 0xff;
        let r = checked(&path, &log, &data);
        assert_eq!((r.summary.faulty_sectors(), r.torn_in_flight, r.kept_slots), (0, 1, 3));
        // Older than acknowledged is a loss even under a write in flight.
        write(&mut data, 1, 1, 5);
        let r = checked(&path, &log, &data);
        assert_eq!(r.summary.faults.get(&FindingKind::Stale), Some(&8));
    }

    #[test]
    fn another_runs_stamps_are_counted_so_a_wrong_log_shows() {
        let (_dir, path, log, _) = scene();
        let mut other = vec![0u8; (BLOCK * 4) as usize];
        for s in 0..4 {
            write(&mut other, s, 1, 99);
        }
        let r = checked(&path, &log, &other);
        assert_eq!((r.run_sectors, r.other_runs.get(&99).copied()), (0, Some(24)));
    }
}
