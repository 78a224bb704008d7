//! Counter values over one interval, from two snapshots, as perfmon defines them (and iostat
//! computes them; see ../shared/reference/counter-formats.md).

use crate::procfs::{DiskStat, VmStat};
use crate::snapshot::Snapshot;
use spindle_formats::perfmon::PHYSICAL_DISK_COUNTERS as DISK_COUNTERS;

/// diskstats counts 512-byte sectors whatever the device's block size.
const SECTOR: f64 = 512.0;

/// The machine's counters, reported after every disk's.
pub const MACHINE_COUNTERS: [&str; 8] = [
    "\\Processor(_Total)\\% Processor Time",
    "\\Processor(_Total)\\% User Time",
    "\\Processor(_Total)\\% Privileged Time",
    "\\Processor(_Total)\\% IO Wait Time",
    "\\Memory\\Pages/sec",
    "\\Memory\\Available MBytes",
    "\\Pressure(io)\\Some Stall %",
    "\\Pressure(io)\\Full Stall %",
];

/// `\PhysicalDisk(vda)\Disk Reads/sec`.
pub fn disk_path(device: &str, counter: &str) -> String {
    format!("\\PhysicalDisk({device})\\{counter}")
}

/// The path of every counter `values` returns, in the same order.
pub fn counter_paths(devices: &[String]) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for d in devices {
        paths.extend(DISK_COUNTERS.iter().map(|c| disk_path(d, c)));
    }
    paths.extend(MACHINE_COUNTERS.iter().map(|c| c.to_string()));
    paths
}

/// Every counter's value over the interval from `a` to `b`: for each device the
/// `DISK_COUNTERS` in order, then the `MACHINE_COUNTERS`. `None` where a source is missing.
pub fn values(a: &Snapshot, b: &Snapshot) -> Vec<Option<f64>> {
    let secs = b.at.duration_since(a.at).as_secs_f64();
    let mut out = Vec::new();
    for (da, db) in a.disks.iter().zip(&b.disks) {
        match (da, db) {
            (Some(da), Some(db)) if secs > 0.0 => out.extend(disk_values(da, db, secs).map(Some)),
            _ => out.extend([None; DISK_COUNTERS.len()]),
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
    out
}

fn disk_values(a: &DiskStat, b: &DiskStat, secs: f64) -> [f64; DISK_COUNTERS.len()] {
    // Counters only grow (wrapping aside); a reset device reads as zero activity.
    let d = |x: u64, y: u64| y.saturating_sub(x) as f64;
    let reads = d(a.reads, b.reads);
    let writes = d(a.writes, b.writes);
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
        per(d(a.write_ms, b.write_ms), writes) / 1000.0,
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
            cpu: Some(cpu),
            vm: Some(vm),
            mem_available_kib: Some(2048 * 1024),
            io_pressure: Some(Pressure { some_us: psi, full_us: None }),
        }
    }

    #[test]
    fn perfmon_counters_from_two_snapshots() {
        let t0 = Instant::now();
        let a = snap(t0, DiskStat::default(), CpuTicks::default(), VmStat::default(), 0);
        let disk = DiskStat {
            reads: 2000,
            sectors_read: 2000 * 16, // 8 KiB reads
            read_ms: 1000,           // 0.5 ms each
            writes: 500,
            sectors_written: 500 * 128,
            write_ms: 1000,
            in_flight: 3,
            io_ms: 1500,
            weighted_io_ms: 8000,
            flushes: Some(7),
        };
        let cpu = CpuTicks { user: 30, system: 10, idle: 50, iowait: 10, ..CpuTicks::default() };
        let vm = VmStat { pswpin: 4, pswpout: 2, pgmajfault: 4 };
        let b = snap(t0 + Duration::from_secs(2), disk, cpu, vm, 500_000);
        let v = values(&a, &b);
        assert_eq!(v.len(), 2 * DISK_COUNTERS.len() + MACHINE_COUNTERS.len());
        let got = |i: usize| v[i].unwrap();
        assert_eq!(got(0), 1000.0, "Disk Reads/sec");
        assert_eq!(got(1), 250.0, "Disk Writes/sec");
        assert_eq!(got(2), 1000.0 * 8192.0, "Disk Read Bytes/sec");
        assert_eq!(got(4), 8192.0, "Avg. Disk Bytes/Read");
        assert_eq!(got(5), 65536.0, "Avg. Disk Bytes/Write");
        assert_eq!(got(6), 0.0005, "Avg. Disk sec/Read");
        assert_eq!(got(7), 0.002, "Avg. Disk sec/Write");
        assert_eq!(got(8), 4.0, "Avg. Disk Queue Length = weighted ms / elapsed ms");
        assert_eq!(got(9), 3.0, "Current Disk Queue Length");
        assert_eq!(got(10), 75.0, "% Disk Time");
        assert!(v[11..22].iter().all(Option::is_none), "a device missing from diskstats has no values");
        let m = 22;
        assert_eq!(got(m), 40.0, "% Processor Time: all but idle and iowait");
        assert_eq!((got(m + 1), got(m + 2), got(m + 3)), (30.0, 10.0, 10.0));
        assert_eq!(got(m + 4), 5.0, "Pages/sec");
        assert_eq!(got(m + 5), 2048.0, "Available MBytes");
        assert_eq!(got(m + 6), 25.0, "Some Stall %");
        assert_eq!(v[m + 7], None, "no full line");
    }
}
