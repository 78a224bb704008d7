//! Run records for other crates' tests (feature `fixtures`, enabled only in dev-dependencies):
//! a realistic two-target record for the exporters, and small one-target records with a
//! chosen per-second throughput for the store and comparisons.

use crate::counters::{CounterLog, CounterSeries};
use crate::record::{
    CpuUsage, DeviceInfo, DiskOrigin, Environment, IoStats, OpStats, RunRecord, RunStatus, SCHEMA_ID, TargetResult,
    ThreadResult, TimePoint,
};
use crate::spec::{EngineKind, JobSpec, MixEntry, TargetSpec, Workload};
use crate::{Histogram, KindData};

/// Statistics of `reads` and `writes` around `base_ns`, and `flushes` each committing the writes
/// before it.
fn stats(base_ns: u64, reads: u64, writes: u64, flushes: u64) -> IoStats {
    let (mut r, mut w, mut f, mut c) = (Histogram::new(), Histogram::new(), Histogram::new(), Histogram::new());
    for i in 0..reads {
        r.record(base_ns + i % 977 * 300);
    }
    for i in 0..writes {
        w.record(2 * base_ns + i % 353 * 9_000);
    }
    for i in 0..flushes {
        f.record(1_500_000 + i % 17 * 100_000);
        c.record(2 * base_ns + 1_500_000 + i % 17 * 120_000);
    }
    let cpu = CpuUsage::new(0.5, 1.5, reads + writes);
    IoStats { commit: OpStats::of(&c), ..IoStats::from_histograms(&r, &w, &f, reads * 8192, writes * 65536, 10.0, cpu) }
}

/// A workload of one line: `block`-byte I/Os, `read_pct` of them reads, `random_pct` random.
fn workload(block: u64, read_pct: u8, random_pct: u8, threads: u32, depth: u32) -> Workload {
    Workload {
        mix: vec![MixEntry { block, weight: 1, read_pct, random_pct }],
        threads,
        depth,
        rate_iops: None,
        buffered: false,
        write_through: false,
        fsync_every: 0,
    }
}

/// A 10-second job on the uring engine over `targets`.
pub fn job(targets: Vec<TargetSpec>) -> JobSpec {
    JobSpec {
        engine: EngineKind::Uring,
        duration_ns: 10_000_000_000,
        warmup_ns: 0,
        targets,
        keep_file: false,
        force: false,
        allow_destroy: false,
        verify: false,
    }
}

/// Two targets (a data file with a mixed workload and a log with flushes), threads, a time
/// series and an environment.
pub fn record() -> RunRecord {
    let data = stats(180_000, 40_000, 10_000, 0);
    let log = stats(400_000, 0, 5_000, 2_500);
    let mut summary = stats(180_000, 40_000, 15_000, 2_500);
    summary.cpu = CpuUsage::new(1.0, 3.0, summary.ios);
    let point = |t: f64| TimePoint {
        t,
        read_ios: 4_000,
        write_ios: 1_500,
        bytes: 4_000 * 8192 + 1_500 * 65536,
        iops: 5_500.0,
        bytes_per_sec: (4_000 * 8192 + 1_500 * 65536) as f64,
        latency_mean_ns: 250_000.0,
        latency_max_ns: 9_000_000,
    };
    let series: Vec<TimePoint> = (1..=10).map(|s| point(s as f64)).collect();
    let data_workload = Workload {
        mix: vec![
            MixEntry { block: 65536, weight: 83, read_pct: 80, random_pct: 100 },
            MixEntry { block: 8192, weight: 17, read_pct: 80, random_pct: 100 },
        ],
        ..workload(65536, 80, 100, 2, 8)
    };
    let log_workload = Workload { fsync_every: 2, ..workload(65536, 0, 0, 1, 1) };
    let spec = job(vec![
        TargetSpec { path: "/data/my,file.dat".into(), size: 1 << 30, workload: data_workload },
        TargetSpec { path: "/log/log.dat".into(), size: 256 << 20, workload: log_workload },
    ]);
    RunRecord {
        schema: SCHEMA_ID.into(),
        status: RunStatus::Complete,
        spindle_version: "0.1.0".into(),
        started_at: "2026-11-23T10:00:00Z".into(),
        measured_seconds: 10.0,
        labels: [("raid".to_string(), "10".to_string())].into(),
        command_line: vec!["spindle".into(), "io".into(), "--spec".into(), "job.toml".into()],
        details: KindData::Io { spec, verify: None },
        summary,
        targets: vec![
            TargetResult {
                path: "/data/my,file.dat".into(),
                device: Some("vda".into()),
                size: 1 << 30,
                workload: "64KiB:83,8KiB:17 80% read, 2 threads x 8 outstanding".into(),
                stats: data.clone(),
                timeseries: series.clone(),
            },
            TargetResult {
                path: "/log/log.dat".into(),
                device: Some("vdb".into()),
                size: 256 << 20,
                workload: "64KiB sequential write, 1 thread x 1 outstanding, fdatasync every 2 writes".into(),
                stats: log.clone(),
                timeseries: series.clone(),
            },
        ],
        threads: vec![
            ThreadResult { target: 0, thread: 0, stats: data.clone() },
            ThreadResult { target: 0, thread: 1, stats: data },
            ThreadResult { target: 1, thread: 0, stats: log },
        ],
        timeseries: series,
        // The series is flat: no shift, and no swing.
        level_shift: None,
        swing: Some(crate::over_time::Swing { p5: 5_500.0, p95: 5_500.0 }),
        environment: environment(),
        counters: Some(counters()),
        errors: [("EIO".to_string(), 3)].into(),
        warnings: vec!["a warning".into()],
        behind_schedule_ios: 12,
        in_flight_at_end: 0,
        sessions_started: None,
        counts: crate::db::Counts::Ios,
        agents: None,
    }
}

/// The host `record` ran on: one virtual disk under its data file.
fn environment() -> Environment {
    Environment {
        hostname: "db01".into(),
        os: "Debian GNU/Linux 13".into(),
        kernel: "6.12.0".into(),
        cpu_model: "AMD EPYC".into(),
        logical_cpus: 2,
        memory_bytes: 24 << 30,
        devices: vec![DeviceInfo {
            target: "/data/my,file.dat".into(),
            device: Some("vda".into()),
            partition: None,
            model: Some("Virtio disk".into()),
            vendor: None,
            rotational: Some(false),
            size_bytes: Some(256 << 30),
            scheduler: Some("mq-deadline".into()),
            logical_block_size: Some(512),
            physical_block_size: Some(4096),
            filesystem: Some("ext4".into()),
            mount_point: Some("/".into()),
            mount_options: Some("rw,relatime".into()),
            write_cache: Some("write back".into()),
            read_ahead_kb: Some(128),
            max_sectors_kb: Some(1280),
            loop_backing_file: None,
            loop_direct_io: None,
            members: Vec::new(),
            disks: vec!["vda".into()],
            origin: Some(DiskOrigin::Virtual {
                platform: "virtio".into(),
                evidence: "vda's driver is virtio_blk".into(),
            }),
        }],
        shared_disks: Vec::new(),
    }
}

/// Disk and CPU counters sampled beside `record`, one of them with a missing sample.
fn counters() -> CounterLog {
    CounterLog {
        interval_seconds: 1.0,
        t: vec![1.0, 2.0, 3.0],
        counters: vec![
            CounterSeries::new(
                "\\PhysicalDisk(vda)\\Disk Reads/sec".into(),
                vec![Some(3900.0), Some(4000.0), Some(4100.0)],
            ),
            CounterSeries::new(
                "\\PhysicalDisk(vda)\\Disk Writes/sec".into(),
                vec![Some(1500.0), Some(1500.0), Some(1500.0)],
            ),
            CounterSeries::new(
                "\\PhysicalDisk(vda)\\Avg. Disk Queue Length".into(),
                vec![Some(15.5), None, Some(16.5)],
            ),
            CounterSeries::new(
                "\\Processor(_Total)\\% Processor Time".into(),
                vec![Some(20.0), Some(30.0), Some(25.0)],
            ),
        ],
    }
}

/// A one-target 8 KiB random-read run whose seconds did `iops_per_second[i]` I/Os at about
/// `latency_ns` each, with these labels.
pub fn io_run(iops_per_second: &[f64], latency_ns: u64, labels: &[(&str, &str)]) -> RunRecord {
    let mut h = Histogram::new();
    let mut series = Vec::new();
    for (i, &iops) in iops_per_second.iter().enumerate() {
        let n = iops.max(0.0) as u64;
        for k in 0..n.min(2_000) {
            h.record(latency_ns + k % 50 * (latency_ns / 100).max(1));
        }
        series.push(TimePoint {
            t: (i + 1) as f64,
            read_ios: n,
            write_ios: 0,
            bytes: n * 8192,
            iops,
            bytes_per_sec: iops * 8192.0,
            latency_mean_ns: latency_ns as f64,
            latency_max_ns: latency_ns * 2,
        });
    }
    let seconds = iops_per_second.len() as f64;
    let total: f64 = iops_per_second.iter().sum();
    let mut stats =
        IoStats::from_histograms(&h, &Histogram::new(), &Histogram::new(), 0, 0, seconds, CpuUsage::new(0.1, 0.2, 1));
    // The histogram holds a sample; the totals are those of the series.
    stats.ios = total as u64;
    stats.iops = if seconds > 0.0 { total / seconds } else { 0.0 };
    stats.bytes = stats.ios * 8192;
    stats.bytes_per_sec = stats.iops * 8192.0;
    stats.mb_per_sec = stats.bytes_per_sec / 1e6;
    stats.mib_per_sec = stats.bytes_per_sec / (1u64 << 20) as f64;
    let mut r = record();
    r.labels = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    r.measured_seconds = seconds;
    r.summary = stats.clone();
    r.targets.truncate(1);
    r.details = KindData::Io {
        spec: job(vec![TargetSpec {
            path: r.targets[0].path.clone().into(),
            size: 1 << 30,
            workload: workload(8192, 100, 100, 1, 8),
        }]),
        verify: None,
    };
    r.targets[0].workload = "8KiB random read, 1 thread x 8 outstanding".into();
    r.targets[0].stats = stats.clone();
    r.targets[0].timeseries = series.clone();
    r.threads = vec![ThreadResult { target: 0, thread: 0, stats }];
    r.timeseries = series;
    r.errors.clear();
    r.warnings.clear();
    r
}

/// A one-target buffered 8 KiB run on disk `vda` in which spindle read `reads_per_sec` and wrote
/// `writes_per_sec`, with the disk's own rates sampled beside it: `disk` is its reads/s, read
/// bytes/s, writes/s and write bytes/s.
pub fn buffered_run(reads_per_sec: f64, writes_per_sec: f64, disk: [f64; 4]) -> RunRecord {
    let total = reads_per_sec + writes_per_sec;
    let read_pct = if total > 0.0 { (100.0 * reads_per_sec / total).round() as u8 } else { 100 };
    let workload = Workload { buffered: true, ..workload(8192, read_pct, 100, 1, 8) };
    let mut r = io_run(&[total; 10], 20_000, &[]);
    r.details = KindData::Io {
        spec: job(vec![TargetSpec { path: "/data/t.dat".into(), size: 1 << 30, workload }]),
        verify: None,
    };
    for stats in [&mut r.summary, &mut r.targets[0].stats, &mut r.threads[0].stats] {
        for (direction, per_sec) in [(&mut stats.read, reads_per_sec), (&mut stats.write, writes_per_sec)] {
            direction.ios = (per_sec * 10.0) as u64;
            direction.iops = per_sec;
            direction.bytes = direction.ios * 8192;
            direction.bytes_per_sec = per_sec * 8192.0;
        }
    }
    r.targets[0].device = Some("vda".into());
    let counter = |name: &str, value: f64| {
        CounterSeries::new(format!("\\PhysicalDisk(vda)\\{name}"), vec![Some(value), Some(value), Some(value)])
    };
    r.counters = Some(CounterLog {
        interval_seconds: 1.0,
        t: vec![1.0, 2.0, 3.0],
        counters: vec![
            counter("Disk Reads/sec", disk[0]),
            counter("Disk Read Bytes/sec", disk[1]),
            counter("Disk Writes/sec", disk[2]),
            counter("Disk Write Bytes/sec", disk[3]),
        ],
    });
    r
}

/// The job of a spindle I/O run, to change for a test.
pub fn job_mut(r: &mut RunRecord) -> &mut JobSpec {
    match &mut r.details {
        KindData::Io { spec, .. } => spec,
        other => panic!("a fixture's job is that of an I/O run, not {:?}", other.kind()),
    }
}
