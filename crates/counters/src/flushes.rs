//! Whether the kernel counts a flush as a write too. A flush a filesystem asks for is a write
//! request of no bytes with a preflush; kernels of the 6 series count it twice in
//! /proc/diskstats (once as a flush, once as a write of no sectors), older ones only as a
//! flush. Writes that carried data are then the writes less the flushes, or all of them: only
//! asking the volume tells which.

use crate::snapshot::{ProcRoot, Snapshot};
use std::path::Path;

/// Syncs of the probe: enough that a few of the engine's own writes meanwhile do not decide.
const SYNCS: u64 = 32;

/// Whether each flush of `volume` is also counted as a write: syncs `file` (on that volume,
/// with nothing of it unwritten) and reads what the counters add. `None` when the file cannot
/// be opened or synced, or the volume did not flush (a filesystem without barriers).
pub fn flush_counted_as_write(root: &ProcRoot, volume: &str, file: &Path) -> Option<bool> {
    let names = [volume.to_string()];
    let handle = std::fs::File::open(file).ok()?;
    let before = Snapshot::take(root, &names).disks.into_iter().next()??;
    for _ in 0..SYNCS {
        handle.sync_data().ok()?;
    }
    let after = Snapshot::take(root, &names).disks.into_iter().next()??;
    let flushes = after.flushes?.saturating_sub(before.flushes?);
    let writes = after.writes.saturating_sub(before.writes);
    judge(writes, flushes)
}

/// A kernel that counts flushes as writes adds a write per flush (and anything the engine
/// wrote meanwhile); one that does not adds only what the engine wrote.
fn judge(writes: u64, flushes: u64) -> Option<bool> {
    (flushes >= SYNCS / 2).then_some(writes * 10 >= flushes * 9)
}

#[cfg(test)]
mod tests {
    use super::judge;

    #[test]
    fn the_counts_decide_and_too_few_flushes_do_not() {
        assert_eq!(judge(32, 32), Some(true), "6.x: a write of no bytes per flush");
        assert_eq!(judge(35, 33), Some(true), "and a few of the engine's own");
        assert_eq!(judge(2, 32), Some(false), "older kernels: flushes alone");
        assert_eq!(judge(2, 2), None, "the volume did not flush: no barriers");
    }
}
