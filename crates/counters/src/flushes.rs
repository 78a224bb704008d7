//! Which of a device's writes were flushes. A flush a filesystem asks for without data
//! (`fdatasync` of a file whose blocks are all allocated) is a write request of no bytes with a
//! preflush; kernels of the 6 series count it twice in /proc/diskstats (once as a flush, once
//! as a write of no sectors), older ones only as a flush: only asking the device tells which.
//! A journal's commit flushes too, around its commit block, a write that carries data: those
//! flushes come with no write of no bytes. On ext4 (jbd2) each commit is counted, so the writes
//! of no bytes are the flushes less the commits'. Measured against the block layer's own trace
//! of every request on ext4 loop devices: exact, where taking every flush for one undercounted
//! the writes of data by 5% (largeops' data volume) to 67% (MariaDB's redo log, whose every
//! commit also committed the journal); bench/largeops-volumes.sh, bench/placement-volumes.sh.
//! Elsewhere (no jbd2 journal on the device) every flush is taken for one. Every measuring
//! command asks once per device (`flush_counting`), so the perfmon counters (`rates`) and the
//! volumes' exact counts (the runner's harness) set the same writes apart.

use crate::snapshot::{ProcRoot, Snapshot};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How a device's flushes show in its counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlushCounting {
    /// Whether the kernel counts each flush that came without data as a write of no bytes too
    /// (`None`: not known, the writes are taken as counted).
    pub counted_as_write: Option<bool>,
    /// The flushes a journal commit makes: one before its commit block, and one after where
    /// the device cannot force a write to stable media itself (no FUA).
    pub per_commit: u64,
}

impl FlushCounting {
    /// Of the writes the `i`th device of snapshots `a` and `b` counted between them, those of
    /// no bytes the kernel counted for flushes; `None` where not known.
    pub fn empty_writes_between(&self, a: &Snapshot, b: &Snapshot, i: usize) -> Option<u64> {
        let (da, db) = (a.disks.get(i)?.as_ref()?, b.disks.get(i)?.as_ref()?);
        let flushes = db.flushes.zip(da.flushes).map(|(y, x)| y.saturating_sub(x));
        let commits = |s: &Snapshot| s.journal_commits.get(i).copied().flatten().unwrap_or(0);
        self.empty_writes(flushes, commits(b).saturating_sub(commits(a)))
    }

    /// Of the writes counted over a span with `flushes` flushes and `commits` journal commits,
    /// those of no bytes the kernel counted for flushes.
    fn empty_writes(&self, flushes: Option<u64>, commits: u64) -> Option<u64> {
        match self.counted_as_write? {
            true => Some(flushes?.saturating_sub(self.per_commit * commits)),
            false => Some(0),
        }
    }
}

/// Syncs of the probe: enough that a few of the engine's own writes meanwhile do not decide.
const SYNCS: u64 = 32;

/// What each device probed in this process answered: the kernel's way of counting does not
/// change while it runs, so a device is asked once (a later run's counters never hold a probe).
static PROBED: Mutex<BTreeMap<String, FlushCounting>> = Mutex::new(BTreeMap::new());

/// For each of `devices` (kernel names), how its flushes show in its counters: whether it
/// counts each among its writes too, asked once per device in this process by syncing a file
/// on it, found among `paths` (the file itself, a file in the directory, or the device node).
/// Not known where no path is on the device, or the device did not flush (no volatile cache,
/// a filesystem without barriers): its writes are then taken as counted.
pub fn flush_counting(devices: &[String], paths: &[&Path]) -> Vec<FlushCounting> {
    let mut probed = PROBED.lock().unwrap_or_else(|e| e.into_inner());
    devices
        .iter()
        .map(|device| {
            if let Some(known) = probed.get(device) {
                return *known;
            }
            let per_commit = if has_fua(device) { 1 } else { 2 };
            let Some(file) = paths.iter().filter(|p| is_on(p, device)).find_map(|p| synced_file(p)) else {
                return FlushCounting { counted_as_write: None, per_commit };
            };
            let counted_as_write = flush_counted_as_write(&ProcRoot::default(), device, &file);
            let counting = FlushCounting { counted_as_write, per_commit };
            probed.insert(device.clone(), counting);
            counting
        })
        .collect()
}

/// Whether `device` (or, for a partition, its disk) forces writes to stable media itself.
fn has_fua(device: &str) -> bool {
    let sys = spindle_host::Sysfs::default();
    let queue = sys.parent_disk(device).unwrap_or_else(|| device.to_string());
    sys.attr(&queue, "queue/fua").is_some_and(|f| f == "1")
}

/// Whether `path` sits on `device`, directly or through a partition of it.
fn is_on(path: &Path, device: &str) -> bool {
    spindle_host::block_device_of(path).is_some_and(|d| d.name == device || d.disk == device)
}

/// A file to sync so that `path`'s device flushes: the path itself where it is a file or a
/// device node, else the first file in its directory (a WAL segment, a table's file).
fn synced_file(path: &Path) -> Option<PathBuf> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_dir() {
        return Some(path.to_path_buf());
    }
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(path).ok()?.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
    files.sort();
    files.into_iter().next()
}

/// Whether each flush of `volume` is also counted as a write: syncs `file` (on that volume)
/// once, so nothing of it is left unwritten, then again and again, and reads what the counters
/// add. `None` when the file cannot be opened or synced, or the volume did not flush (a
/// filesystem without barriers).
fn flush_counted_as_write(root: &ProcRoot, volume: &str, file: &Path) -> Option<bool> {
    let names = [volume.to_string()];
    let handle = std::fs::File::open(file).ok()?;
    // A file just written (a test file laid out) would otherwise write its data in the first
    // sync, writes that are no flush's.
    handle.sync_data().ok()?;
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
    use super::*;

    #[test]
    fn the_counts_decide_and_too_few_flushes_do_not() {
        assert_eq!(judge(32, 32), Some(true), "6.x: a write of no bytes per flush");
        assert_eq!(judge(35, 33), Some(true), "and a few of the engine's own");
        assert_eq!(judge(2, 32), Some(false), "older kernels: flushes alone");
        assert_eq!(judge(2, 2), None, "the volume did not flush: no barriers");
    }

    #[test]
    fn a_directory_is_synced_through_its_first_file_and_a_file_as_itself() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(synced_file(dir.path()), None, "an empty directory has nothing to sync");
        std::fs::create_dir(dir.path().join("a-subdirectory")).unwrap();
        for name in ["000000010000000000000002", "000000010000000000000001"] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        let first = dir.path().join("000000010000000000000001");
        assert_eq!(synced_file(dir.path()), Some(first.clone()));
        assert_eq!(synced_file(&first), Some(first));
        assert_eq!(synced_file(&dir.path().join("missing")), None);
    }

    #[test]
    fn a_device_no_path_is_on_is_not_known() {
        let dir = tempfile::tempdir().unwrap();
        let counting = flush_counting(&["no-such-device".into()], &[dir.path()]);
        assert_eq!(counting[0].counted_as_write, None);
        assert_eq!(counting[0].empty_writes(Some(10), 0), None, "its writes taken as counted");
        assert!(flush_counting(&[], &[dir.path()]).is_empty());
    }

    #[test]
    fn a_journal_commits_flushes_are_no_writes_of_no_bytes() {
        let no_fua = FlushCounting { counted_as_write: Some(true), per_commit: 2 };
        // 1,300 flushes: 300 fdatasyncs of written blocks, 500 commits of 2 flushes each.
        assert_eq!(no_fua.empty_writes(Some(1300), 500), Some(300));
        assert_eq!(no_fua.empty_writes(Some(1300), 0), Some(1300), "no journal: every flush one");
        assert_eq!(no_fua.empty_writes(Some(10), 500), Some(0), "flushes merged: never below none");
        assert_eq!(no_fua.empty_writes(None, 0), None, "a kernel before 5.5 counts no flushes");
        let fua = FlushCounting { counted_as_write: Some(true), per_commit: 1 };
        assert_eq!(fua.empty_writes(Some(1300), 500), Some(800));
        let older = FlushCounting { counted_as_write: Some(false), per_commit: 2 };
        assert_eq!(older.empty_writes(Some(1300), 500), Some(0), "flushes are no writes there");
    }
}
