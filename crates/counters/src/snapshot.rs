//! One reading of every source at one moment. Two snapshots make one sample of rates.

use crate::procfs::{self, CpuTicks, DiskStat, Pressure, VmStat};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where /proc is; tests point it at a fake tree.
#[derive(Clone, Debug)]
pub struct ProcRoot(pub PathBuf);

impl Default for ProcRoot {
    fn default() -> Self {
        ProcRoot(PathBuf::from("/proc"))
    }
}

impl ProcRoot {
    fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.0.join(rel)).ok()
    }

    /// The names in directory `rel`; none where it cannot be read.
    fn list(&self, rel: &str) -> Vec<String> {
        std::fs::read_dir(self.0.join(rel))
            .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default()
    }
}

#[derive(Clone, Debug)]
pub struct Snapshot {
    pub at: Instant,
    /// The watched devices, in the order asked for; `None` for one not in diskstats.
    pub disks: Vec<Option<DiskStat>>,
    /// Per watched device, the transactions its jbd2 journals (ext4's, on it or a partition of
    /// it) have committed; `None` where it holds none. Each commit flushes around a write that
    /// carries data, so its flushes come with no write of no bytes (`FlushCounting`).
    pub journal_commits: Vec<Option<u64>>,
    pub cpu: Option<CpuTicks>,
    pub vm: Option<VmStat>,
    pub mem_available_kib: Option<u64>,
    pub io_pressure: Option<Pressure>,
    /// Every other process's bytes read and written from storage so far, by pid (sorted), as
    /// far as this user may read them.
    pub others_io: Vec<(u32, u64, u64)>,
}

impl Snapshot {
    pub fn take(root: &ProcRoot, devices: &[String]) -> Snapshot {
        let stats = root.read("diskstats").map(|t| procfs::parse_diskstats(&t)).unwrap_or_default();
        let disks = devices.iter().map(|d| stats.iter().find(|(n, _)| n == d).map(|(_, s)| *s)).collect();
        Snapshot {
            at: Instant::now(),
            disks,
            journal_commits: journal_commits(root, devices),
            cpu: root.read("stat").as_deref().and_then(procfs::parse_cpu),
            vm: root.read("vmstat").as_deref().and_then(procfs::parse_vmstat),
            mem_available_kib: root.read("meminfo").as_deref().and_then(procfs::parse_mem_available_kib),
            io_pressure: root.read("pressure/io").as_deref().and_then(procfs::parse_pressure),
            others_io: others_io(root, std::process::id()),
        }
    }

    /// What the other processes read and wrote between `self` and `later`: each process's
    /// growth, and all of one born between them. A process that ended between them takes what
    /// it did since `self` with it.
    pub fn others_io_since(&self, later: &Snapshot) -> (u64, u64) {
        later.others_io.iter().fold((0, 0), |(r, w), &(pid, read, write)| {
            let before = self.others_io.binary_search_by_key(&pid, |p| p.0).map_or((0, 0), |i| {
                let (_, r0, w0) = self.others_io[i];
                (r0, w0)
            });
            (r.saturating_add(read.saturating_sub(before.0)), w.saturating_add(write.saturating_sub(before.1)))
        })
    }
}

/// Every user process's storage I/O but `own`'s, by pid. Reading another user's needs root;
/// those are left out, as are processes that end while being read, and kernel threads (a loop
/// device's worker does the I/O of whoever uses the loop, spindle included).
fn others_io(root: &ProcRoot, own: u32) -> Vec<(u32, u64, u64)> {
    let mut out: Vec<(u32, u64, u64)> = root
        .list("")
        .into_iter()
        .filter_map(|entry| entry.parse::<u32>().ok())
        .filter(|pid| *pid != own)
        .filter(|pid| root.read(&format!("{pid}/stat")).is_some_and(|stat| !procfs::is_kernel_thread(&stat)))
        .filter_map(|pid| {
            let (read, write) = procfs::parse_process_io(&root.read(&format!("{pid}/io"))?)?;
            Some((pid, read, write))
        })
        .collect();
    out.sort_unstable_by_key(|p| p.0);
    out
}

/// For each of `devices`, the transactions committed by the jbd2 journals on it or on a
/// partition of it.
fn journal_commits(root: &ProcRoot, devices: &[String]) -> Vec<Option<u64>> {
    let sys = spindle_host::Sysfs::default();
    let journals: Vec<(String, u64)> = root
        .list("fs/jbd2")
        .into_iter()
        .filter_map(|entry| {
            let device = procfs::jbd2_device(&entry)?.to_string();
            let commits = procfs::parse_jbd2_transactions(&root.read(&format!("fs/jbd2/{entry}/info"))?)?;
            Some((device, commits))
        })
        .collect();
    devices
        .iter()
        .map(|d| {
            let on = |j: &str| j == d || sys.parent_disk(j).is_some_and(|p| &p == d);
            journals.iter().filter(|(j, _)| on(j)).map(|(_, n)| *n).reduce(|a, b| a + b)
        })
        .collect()
}

/// The devices the counters watch for these target paths: each target's disk (a partition's
/// disk; a loop device itself, a disk of its own as a mounted VHD is to perfmon, and the disks
/// under its backing file after it), each once.
pub fn devices_under(paths: &[&Path]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in paths {
        let Some(d) = spindle_host::block_device_of(p) else { continue };
        // A loop device is a disk of its own; the disks under its backing file are watched too,
        // to see what of the loop's I/O reached them (its backing file's page cache may keep it).
        let under = if d.disk.starts_with("loop") { spindle_host::device_info(p).disks } else { Vec::new() };
        for disk in std::iter::once(d.disk).chain(under) {
            if !out.contains(&disk) {
                out.push(disk);
            }
        }
    }
    out
}

/// The volumes these paths sit on directly (`loop0`, `vda1`, `dm-2`), each once: where a
/// database's log or data lands as its own queue, before partitions and loops map onto a disk.
pub fn volumes_under(paths: &[&Path]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in paths {
        if let Some(d) = spindle_host::block_device_of(p) {
            if !out.contains(&d.name) {
                out.push(d.name);
            }
        }
    }
    out
}

/// Every whole disk this machine has (`/sys/block`), without loop, RAM and optical devices:
/// what `spindle record` watches when no `--device` is given.
pub fn whole_disks(sys_block: &Path) -> Vec<String> {
    const SKIP: [&str; 5] = ["loop", "ram", "zram", "sr", "fd"];
    let mut out: Vec<String> = std::fs::read_dir(sys_block)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    out.retain(|n| !SKIP.iter().any(|s| n.starts_with(s)));
    out.sort();
    out
}
