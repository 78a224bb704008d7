//! Counter values over one interval, from two snapshots, as perfmon defines them (and iostat
//! computes them; see ../shared/reference/counter-formats.md). Perfmon counts no flush as a
//! write, so where the kernel does (`flushes`), the write counters here count the writes that
//! carried data, and the flushes are a counter of their own.

use crate::flushes::FlushCounting;
use crate::procfs::{DiskStat, VmStat};
use crate::snapshot::Snapshot;
use spindle_formats::perfmon::PHYSICAL_DISK_COUNTERS as DISK_COUNTERS;

/// diskstats counts 512-byte sectors whatever the device's block size.
const SECTOR: f64 = 512.0;

/// The machine's counters, reported after every disk's.
pub const MACHINE_COUNTERS: [&str; 10] = [
    "\\Processor(_Total)\\% Processor Time",
    "\\Processor(_Total)\\% User Time",
    "\\Processor(_Total)\\% Privileged Time",
    "\\Processor(_Total)\\% IO Wait Time",
    "\\Memory\\Pages/sec",
    "\\Memory\\Available MBytes",
    "\\Pressure(io)\\Some Stall %",
    "\\Pressure(io)\\Full Stall %",
    spindle_model::counters::OTHER_PROCESSES_READ,
    spindle_model::counters::OTHER_PROCESSES_WRITE,
];

/// Flush requests completed a second: perfmon has no such counter (it counts no flush among
/// the writes), so it follows the perfmon ones under the same object.
pub const FLUSHES_PER_SEC: &str = "Disk Flushes/sec";

/// `\PhysicalDisk(vda)\Disk Reads/sec`.
pub fn disk_path(device: &str, counter: &str) -> String {
    format!("\\PhysicalDisk({device})\\{counter}")
}

/// The path of every counter `values` returns, in the same order.
pub fn counter_paths(devices: &[String]) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for d in devices {
        paths.extend(DISK_COUNTERS.iter().chain([&FLUSHES_PER_SEC]).map(|c| disk_path(d, c)));
    }
    paths.extend(MACHINE_COUNTERS.iter().map(|c| c.to_string()));
    paths
}

/// Every counter's value over the interval from `a` to `b`: for each device the
/// `DISK_COUNTERS` in order and its flushes, then the `MACHINE_COUNTERS`. `None` where a
/// source is missing. `counting` says per device how the kernel counts its flushes
/// (`flush_counting`; a device past its end: not known, its writes taken as counted).
pub fn values(a: &Snapshot, b: &Snapshot, counting: &[FlushCounting]) -> Vec<Option<f64>> {
    let secs = b.at.duration_since(a.at).as_secs_f64();
    let mut out = Vec::new();
    for (i, (da, db)) in a.disks.iter().zip(&b.disks).enumerate() {
        match (da, db) {
            (Some(da), Some(db)) if secs > 0.0 => {
                let empty = counting.get(i).and_then(|c| c.empty_writes_between(a, b, i)).unwrap_or(0);
                out.extend(disk_values(da, db, secs, empty).map(Some));
                out.push(flushes(da, db).map(|f| f as f64 / secs));
            }
            _ => out.extend([None; DISK_COUNTERS.len() + 1]),
        }
    }
    let per_sec = |x: u64| if secs > 0.0 { Some(x as f64 / secs) } else { None };
    match (a.cpu, b.cpu) {
        (Some(ca), Some(cb)) if cb.total() > ca.total() => {
            let total = (cb.total() - ca.total()) as f64;
            let pct = |x: u64, y: u64| Some(100.0 * y.saturating_sub(x) as f64 / total);
            let sum = |xs: &[u64]| xs.iter().fold(0u64, |a, b| a.saturating_add(*b));
            // iowait can go backwards (sysstat notes it), hence saturating differences.
            let idle = cb.idle.saturating_sub(ca.idle).saturating_add(cb.iowait.saturating_sub(ca.iowait));
            out.push(Some((100.0 - 100.0 * idle as f64 / total).clamp(0.0, 100.0)));
            out.push(pct(sum(&[ca.user, ca.nice]), sum(&[cb.user, cb.nice])));
            out.push(pct(sum(&[ca.system, ca.irq, ca.softirq]), sum(&[cb.system, cb.irq, cb.softirq])));
            out.push(pct(ca.iowait, cb.iowait));
        }
        _ => out.extend([None; 4]),
    }
    out.push(match (a.vm, b.vm) {
        // Hard-fault paging, Windows' meaning: pages swapped in and out, and major faults.
        (Some(va), Some(vb)) => {
            let paged = |v: VmStat| v.pswpin.saturating_add(v.pswpout).saturating_add(v.pgmajfault);
            per_sec(paged(vb).saturating_sub(paged(va)))
        }
        _ => None,
    });
    out.push(b.mem_available_kib.map(|k| k as f64 / 1024.0));
    let stall = |x: Option<u64>, y: Option<u64>| match (x, y) {
        (Some(x), Some(y)) if secs > 0.0 => Some((100.0 * y.saturating_sub(x) as f64 / (secs * 1e6)).min(100.0)),
        _ => None,
    };
    out.push(stall(a.io_pressure.map(|p| p.some_us), b.io_pressure.map(|p| p.some_us)));
    out.push(stall(a.io_pressure.and_then(|p| p.full_us), b.io_pressure.and_then(|p| p.full_us)));
    // Other processes' storage I/O, where any could be read (none where /proc lets none be).
    let (read, write) = a.others_io_since(b);
    let any = !a.others_io.is_empty() || !b.others_io.is_empty();
    out.push(if any { per_sec(read) } else { None });
    out.push(if any { per_sec(write) } else { None });
    out
}

/// The flushes completed between `a` and `b`, where the kernel counts them (5.5 and later).
fn flushes(a: &DiskStat, b: &DiskStat) -> Option<u64> {
    Some(b.flushes?.saturating_sub(a.flushes?))
}

/// The perfmon disk counters, with the `empty` writes of no bytes a kernel counted for flushes
/// set apart, so writes, their rate, size and time are the data's. Each such write lasts as
/// long as its flush (the kernel ends it when the flush ends), so the time set apart is that
/// share of the flushes' time.
fn disk_values(a: &DiskStat, b: &DiskStat, secs: f64, empty: u64) -> [f64; DISK_COUNTERS.len()] {
    // Counters only grow (wrapping aside); a reset device reads as zero activity.
    let d = |x: u64, y: u64| y.saturating_sub(x) as f64;
    let reads = d(a.reads, b.reads);
    let empty_ms = match (flushes(a, b), a.flush_ms.zip(b.flush_ms)) {
        (Some(n), Some((x, y))) if n > 0 => y.saturating_sub(x) as f64 * empty.min(n) as f64 / n as f64,
        _ => 0.0,
    };
    let writes = b.writes.saturating_sub(a.writes).saturating_sub(empty) as f64;
    let write_ms = (d(a.write_ms, b.write_ms) - empty_ms).max(0.0);
    let per = |x: f64, n: f64| if n > 0.0 { x / n } else { 0.0 };
    let ms = secs * 1000.0;
    [
        reads / secs,
        writes / secs,
        d(a.sectors_read, b.sectors_read) * SECTOR / secs,
        d(a.sectors_written, b.sectors_written) * SECTOR / secs,
        per(d(a.sectors_read, b.sectors_read) * SECTOR, reads),
        per(d(a.sectors_written, b.sectors_written) * SECTOR, writes),
        per(d(a.read_ms, b.read_ms), reads) / 1000.0,
        per(write_ms, writes) / 1000.0,
        d(a.weighted_io_ms, b.weighted_io_ms) / ms,
        b.in_flight as f64,
        (100.0 * d(a.io_ms, b.io_ms) / ms).min(100.0),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::procfs::{CpuTicks, Pressure};
    use std::time::{Duration, Instant};

    fn snap(at: Instant, disk: DiskStat, cpu: CpuTicks, vm: VmStat, psi: u64) -> Snapshot {
        Snapshot {
            at,
            disks: vec![Some(disk), None],
            journal_commits: vec![None, None],
            cpu: Some(cpu),
            vm: Some(vm),
            mem_available_kib: Some(2048 * 1024),
            io_pressure: Some(Pressure { some_us: psi, full_us: None }),
            others_io: Vec::new(),
        }
    }

    /// A device that has done nothing yet, on a kernel that counts flushes (5.5 and later).
    const IDLE: DiskStat = DiskStat {
        reads: 0,
        sectors_read: 0,
        read_ms: 0,
        writes: 0,
        sectors_written: 0,
        write_ms: 0,
        in_flight: 0,
        io_ms: 0,
        weighted_io_ms: 0,
        flushes: Some(0),
        flush_ms: Some(0),
    };

    /// A kernel of the 6 series on a device without FUA.
    const COUNTED: FlushCounting = FlushCounting { counted_as_write: Some(true), per_commit: 2 };

    #[test]
    fn perfmon_counters_from_two_snapshots() {
        let t0 = Instant::now();
        let a = snap(t0, IDLE, CpuTicks::default(), VmStat::default(), 0);
        // 500 writes of 64 KiB in 1 s, and 100 flushes in 0.4 s that the kernel counted as
        // writes of no bytes too (their time with them).
        let disk = DiskStat {
            reads: 2000,
            sectors_read: 2000 * 16, // 8 KiB reads
            read_ms: 1000,           // 0.5 ms each
            writes: 600,
            sectors_written: 500 * 128,
            write_ms: 1400,
            in_flight: 3,
            io_ms: 1500,
            weighted_io_ms: 8000,
            flushes: Some(100),
            flush_ms: Some(400),
        };
        let cpu = CpuTicks { user: 30, system: 10, idle: 50, iowait: 10, ..CpuTicks::default() };
        let vm = VmStat { pswpin: 4, pswpout: 2, pgmajfault: 4 };
        let b = snap(t0 + Duration::from_secs(2), disk, cpu, vm, 500_000);
        let v = values(&a, &b, &[COUNTED]);
        let per_disk = DISK_COUNTERS.len() + 1;
        assert_eq!(v.len(), 2 * per_disk + MACHINE_COUNTERS.len());
        let got = |i: usize| v[i].unwrap();
        assert_eq!(got(0), 1000.0, "Disk Reads/sec");
        assert_eq!(got(1), 250.0, "Disk Writes/sec: the data's");
        assert_eq!(got(2), 1000.0 * 8192.0, "Disk Read Bytes/sec");
        assert_eq!(got(4), 8192.0, "Avg. Disk Bytes/Read");
        assert_eq!(got(5), 65536.0, "Avg. Disk Bytes/Write");
        assert_eq!(got(6), 0.0005, "Avg. Disk sec/Read");
        assert_eq!(got(7), 0.002, "Avg. Disk sec/Write: the data's");
        assert_eq!(got(8), 4.0, "Avg. Disk Queue Length = weighted ms / elapsed ms");
        assert_eq!(got(9), 3.0, "Current Disk Queue Length");
        assert_eq!(got(10), 75.0, "% Disk Time");
        assert_eq!(got(11), 50.0, "Disk Flushes/sec");
        assert!(v[per_disk..2 * per_disk].iter().all(Option::is_none), "a device missing from diskstats has no values");
        let m = 2 * per_disk;
        assert_eq!(got(m), 40.0, "% Processor Time: all but idle and iowait");
        assert_eq!((got(m + 1), got(m + 2), got(m + 3)), (30.0, 10.0, 10.0));
        assert_eq!(got(m + 4), 5.0, "Pages/sec");
        assert_eq!(got(m + 5), 2048.0, "Available MBytes");
        assert_eq!(got(m + 6), 25.0, "Some Stall %");
        assert_eq!(v[m + 7], None, "no full line");
    }

    #[test]
    fn flushes_are_writes_only_where_the_kernel_counts_them_so_and_a_commits_never() {
        let t0 = Instant::now();
        let none = (CpuTicks::default(), VmStat::default());
        let a = Snapshot { journal_commits: vec![Some(1000), None], ..snap(t0, IDLE, none.0, none.1, 0) };
        // In a second: 1,819 writes of data (17,039,360 bytes) and 1,300 flushes, 1,000 of them
        // around 500 journal commits and 300 for fdatasyncs of written blocks, each of those
        // also counted as a write of no bytes: 2,119 writes counted (an ext4 loop device's).
        let disk = DiskStat { writes: 2119, sectors_written: 33_280, flushes: Some(1300), ..IDLE };
        let later = |disk: DiskStat, commits: u64| Snapshot {
            journal_commits: vec![Some(1000 + commits), None],
            ..snap(t0 + Duration::from_secs(1), disk, none.0, none.1, 0)
        };
        let writes = |b: &Snapshot, counting: &[FlushCounting]| {
            let v = values(&a, b, counting);
            (v[1].unwrap(), v[5].unwrap().round(), v[11].unwrap())
        };
        assert_eq!(writes(&later(disk, 500), &[COUNTED]), (1819.0, 9367.0, 1300.0), "the data's");
        assert_eq!(writes(&later(disk, 0), &[COUNTED]), (819.0, 20805.0, 1300.0), "no journal: every flush one");
        let older = FlushCounting { counted_as_write: Some(false), per_commit: 2 };
        assert_eq!(writes(&later(disk, 500), &[older]), (2119.0, 8041.0, 1300.0), "an older kernel's are data");
        let b = later(disk, 500);
        assert_eq!(writes(&b, &[]), writes(&b, &[FlushCounting::default()]), "past the list's end: not known");
        assert_eq!(writes(&b, &[]).0, 2119.0, "not known: taken as counted");
        let v = values(&a, &later(DiskStat { flushes: None, ..disk }, 0), &[COUNTED]);
        assert_eq!((v[1], v[11]), (Some(2119.0), None), "a kernel before 5.5 counts no flushes: none set apart");
    }
}
