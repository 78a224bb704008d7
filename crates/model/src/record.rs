//! The run record: the one type that the store, reports, comparisons and importers see.
//! Its JSON form is versioned (`schema`) and described by `docs/run-record.schema.json`.

use crate::counters::CounterLog;
use crate::details::KindData;
use crate::histogram::{Histogram, SparseHistogram};
use crate::over_time::{LevelShift, Swing};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// Identifies this layout of the record; bump the suffix on any breaking change (and teach
/// `record_v1`'s successor to read the old one).
pub const SCHEMA_ID: &str = "spindle.run-record/v2";

/// What every version's `schema` starts with: a JSON text holding it is a spindle run record
/// of some version.
pub const SCHEMA_FAMILY: &str = "spindle.run-record/";

/// Percentiles every latency summary carries.
pub const PERCENTILES: [f64; 6] = [50.0, 90.0, 95.0, 99.0, 99.9, 99.99];

/// SQLIO's latency histogram: one bucket per whole millisecond 0..23, then 24+.
pub const SQLIO_BUCKETS: usize = 25;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Ran for its whole duration.
    Complete,
    /// Stopped early (Ctrl-C, out of space, a server going away); the figures cover what ran.
    Interrupted,
    /// Could not measure; `warnings`/`errors` say why.
    Failed,
}

impl RunStatus {
    pub fn name(self) -> &'static str {
        match self {
            RunStatus::Complete => "complete",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Failed => "failed",
        }
    }
}

/// A Database Hammer run's sessions by whether each began a call before the measured window's
/// end: a run too short for the host to start them all measures fewer sessions than it names.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionStarts {
    /// Sessions that began a call before the window's end.
    pub started: u32,
    /// When the last of them began its first call, seconds after time zero (every session
    /// connected; the warm-up, if any, comes first).
    pub last_started_s: f64,
    /// Sessions that began none though a call of theirs was due before the window's end: the
    /// host did not run them in time.
    pub not_started: u32,
    /// Sessions with no call due before the window's end: under a rate, their first intended
    /// start fell after it.
    pub not_due: u32,
}

impl SessionStarts {
    /// Several agents' sessions as one run's (their time zeros are the run's shared start).
    pub fn merged<'a>(parts: impl IntoIterator<Item = &'a SessionStarts>) -> Option<SessionStarts> {
        parts.into_iter().fold(None, |all: Option<SessionStarts>, one| {
            let all = all.unwrap_or_default();
            Some(SessionStarts {
                started: all.started + one.started,
                last_started_s: all.last_started_s.max(one.last_started_s),
                not_started: all.not_started + one.not_started,
                not_due: all.not_due + one.not_due,
            })
        })
    }
}

/// The derived (de)serializers are the current schema's (`remote = "Self"` makes them inherent
/// functions); the trait impls below wrap them so that reading also accepts earlier schemas.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct RunRecord {
    pub schema: String,
    pub status: RunStatus,
    pub spindle_version: String,
    /// RFC 3339 UTC time the measurement started.
    pub started_at: String,
    /// Seconds actually measured (excludes warm-up; shorter than asked when interrupted).
    pub measured_seconds: f64,
    pub labels: BTreeMap<String, String>,
    /// The arguments spindle was started with, passwords removed.
    pub command_line: Vec<String>,
    /// What the run's kind adds: the resolved job, echoed so the run says exactly what ran,
    /// and the figures only that kind has. The run's kind is read off it (`kind()`).
    pub details: KindData,
    pub summary: IoStats,
    pub targets: Vec<TargetResult>,
    pub threads: Vec<ThreadResult>,
    pub timeseries: Vec<TimePoint>,
    /// A lasting change of the rate partway through the run, tested once when the run was
    /// finished (spindle-analysis's `over_time`: one change point, its basis said there):
    /// absent when there was none, when the series was too short to test, and in records from
    /// before it was tested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level_shift: Option<LevelShift>,
    /// The spread of the per-second rate (p5-p95), found with the level shift: absent for a
    /// series too short to tell, and in records from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swing: Option<Swing>,
    pub environment: Environment,
    /// Disk, CPU, memory and pressure counters sampled while the run measured (absent in
    /// records from before counters were sampled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<CounterLog>,
    /// Failed operations counted by kind (e.g. `EIO`), instead of aborting on the first.
    pub errors: BTreeMap<String, u64>,
    pub warnings: Vec<String>,
    /// Under `--rate`: I/Os meant to start inside the measured window that were never issued
    /// because the device (or spindle) fell behind the schedule, summed over threads. 0 when
    /// the schedule was kept or there was no rate (and in records from before it was counted).
    #[serde(default)]
    pub behind_schedule_ios: u64,
    /// Operations (I/Os, calls) begun before the measured window's end and still running at
    /// it: not counted, as the window holds only what ended inside it (0 in records from before
    /// they were said, which counted them).
    #[serde(default)]
    pub in_flight_at_end: u64,
    /// A Database Hammer run's sessions by whether they began a call before the measured
    /// window's end (absent for other kinds, and in records from before it was said).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions_started: Option<SessionStarts>,
    /// What `ios`, `iops` and the latencies count: I/Os, calls or rows (`ios` in records
    /// from before it was said).
    #[serde(default)]
    pub counts: crate::db::Counts,
    /// A run several agents measured together (`--agents`): where and how they started, and
    /// each one's share (absent for a run of one process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<crate::merge::Distribution>,
}

impl Serialize for RunRecord {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RunRecord::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for RunRecord {
    /// A record of the current schema, or of an earlier one converted to it.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RunRecord, D::Error> {
        use serde::de::Error;
        let json = serde_json::Value::deserialize(deserializer)?;
        RunRecord::from_json(json).map_err(D::Error::custom)
    }
}

impl RunRecord {
    /// The record in `json`, of the current schema or converted from an earlier one. Not
    /// generic, so the record's whole deserializer is compiled once, here: each crate that
    /// reads records with a deserializer of its own compiles only the reading into JSON above.
    fn from_json(json: serde_json::Value) -> Result<RunRecord, String> {
        let current = crate::record_v1::upgrade(json)?;
        RunRecord::deserialize(current).map_err(|e| e.to_string())
    }
}

impl RunRecord {
    /// Which figures this run recorded: a run imported from a tool that did not record one
    /// shows it as absent, never as 0; a large operation is one statement (or one load), with
    /// no latencies of its own.
    pub fn recorded(&self) -> crate::Recorded {
        let recorded = crate::Recorded::of_origin(self.details.origin());
        if !self.kind().times_operations() {
            recorded.without_latency()
        } else {
            // A run stopped before any operation completed timed none.
            recorded.of_count(self.summary.ios.max(self.summary.commit.count))
        }
    }

    /// A record with its identity and kind's details filled in and everything measured left
    /// empty, for the builders of each kind to complete.
    pub fn new(
        details: KindData,
        status: RunStatus,
        started_at: std::time::SystemTime,
        measured_seconds: f64,
    ) -> RunRecord {
        let kind = details.kind();
        RunRecord {
            schema: SCHEMA_ID.to_string(),
            status,
            spindle_version: env!("CARGO_PKG_VERSION").to_string(),
            started_at: crate::time::rfc3339_utc(started_at),
            measured_seconds,
            labels: BTreeMap::new(),
            command_line: Vec::new(),
            details,
            summary: IoStats::default(),
            targets: Vec::new(),
            threads: Vec::new(),
            timeseries: Vec::new(),
            level_shift: None,
            swing: None,
            environment: Environment::default(),
            counters: None,
            errors: BTreeMap::new(),
            warnings: Vec::new(),
            behind_schedule_ios: 0,
            in_flight_at_end: 0,
            sessions_started: None,
            counts: kind.counts(),
            agents: None,
        }
    }

    /// What produced the run: `io`, `hammer`, `hammer-load`, `logtest` or `largeops`.
    pub fn kind(&self) -> crate::RunKind {
        self.details.kind()
    }

    /// The rate of what the run counts (`counts`), or `None` where a rate means nothing: a
    /// checkpoint of the large operations processes no rows, so it has no rows/sec (and never
    /// IOs/sec: its I/O is its volumes').
    pub fn rate(&self) -> Option<f64> {
        match self.details.large_op() {
            Some(f) if !f.has_row_rate() => None,
            _ => Some(self.summary.iops),
        }
    }
}

/// Throughput and latency of a set of I/Os: a whole run, one target, or one thread.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IoStats {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bytes_per_sec: f64,
    /// Decimal megabytes (10^6), as SQLIO and IOMeter's "MBps (Decimal)" print them.
    pub mb_per_sec: f64,
    pub mib_per_sec: f64,
    pub latency_ns: LatencySummary,
    pub read: DirectionStats,
    pub write: DirectionStats,
    pub flush: OpStats,
    /// Commits, when writes were flushed: with `--fsync-every N`, N writes and the fdatasync
    /// after them, from the start of the first write to the end of the flush; with
    /// `--write-through` (O_DSYNC), each write. What a DBA means by log-write latency. Empty
    /// otherwise (and in records from before it was measured).
    #[serde(default)]
    pub commit: OpStats,
    /// Share of I/Os (percent) per SQLIO millisecond bucket 0, 1, ... 23, 24+.
    pub sqlio_histogram_pct: Vec<f64>,
    pub cpu: CpuUsage,
}

/// What a latency is of: a commit (writes and the flush that made them durable, or one
/// write-through write) or each operation on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LatencyOf {
    Commit,
    Io,
}

impl LatencyOf {
    /// Its name in a column or a field (`commit`, `io`).
    pub fn name(self) -> &'static str {
        match self {
            LatencyOf::Commit => "commit",
            LatencyOf::Io => "io",
        }
    }
}

impl IoStats {
    /// The latency every view leads with, and what it is of: a commit's where writes were
    /// committed (what a DBA means by log-write latency), else each operation's. Views ask
    /// this one place, so no two of them lead with different latencies for one run; where it
    /// is a commit's, they show `latency_ns` (each I/O's: a log's writes) beside it, named.
    pub fn lead_latency(&self) -> (LatencyOf, &LatencySummary) {
        if self.commit.count > 0 {
            (LatencyOf::Commit, &self.commit.latency_ns)
        } else {
            (LatencyOf::Io, &self.latency_ns)
        }
    }

    /// How many operations (commits or I/Os) `lead_latency` is of.
    pub fn lead_count(&self) -> u64 {
        match self.lead_latency().0 {
            LatencyOf::Commit => self.commit.count,
            LatencyOf::Io => self.ios,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirectionStats {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bytes_per_sec: f64,
    pub latency_ns: LatencySummary,
    pub histogram: SparseHistogram,
}

/// How many of one kind of operation that moves no bytes of its own there were, and how long
/// they took: fdatasync calls issued by `--fsync-every` (never mixed into writes' latency), and
/// commits.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpStats {
    pub count: u64,
    pub latency_ns: LatencySummary,
    pub histogram: SparseHistogram,
}

impl OpStats {
    pub fn of(h: &Histogram) -> Self {
        OpStats { count: h.count(), latency_ns: LatencySummary::of(h), histogram: SparseHistogram::from(h) }
    }
}

/// A set of operations' latencies, ns. A figure a run did not record (`RunRecord::recorded`)
/// is 0 here; the JSON export (spindle-report's `render_json`) sets `shown` on its copy so the
/// figure is written as null, which reads back as 0.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct LatencySummary {
    #[serde(deserialize_with = "zero_if_null")]
    pub min: u64,
    #[serde(deserialize_with = "zero_if_null")]
    pub mean: f64,
    #[serde(deserialize_with = "zero_if_null")]
    pub max: u64,
    #[serde(deserialize_with = "zero_if_null")]
    pub stddev: f64,
    #[serde(deserialize_with = "zero_if_null")]
    pub p50: u64,
    #[serde(deserialize_with = "zero_if_null")]
    pub p90: u64,
    #[serde(deserialize_with = "zero_if_null")]
    pub p95: u64,
    #[serde(deserialize_with = "zero_if_null")]
    pub p99: u64,
    #[serde(deserialize_with = "zero_if_null")]
    pub p99_9: u64,
    #[serde(deserialize_with = "zero_if_null")]
    pub p99_99: u64,
    /// Which figures to write (the others as null); all when `None`. Never stored.
    #[serde(skip)]
    pub shown: Option<crate::Recorded>,
}

impl Serialize for LatencySummary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let r = self.shown.unwrap_or(crate::Recorded::ALL);
        let mut s = serializer.serialize_struct("LatencySummary", 10)?;
        s.serialize_field("min", &r.min.then_some(self.min))?;
        s.serialize_field("mean", &r.latency.then_some(self.mean))?;
        s.serialize_field("max", &r.max.then_some(self.max))?;
        s.serialize_field("stddev", &r.stddev.then_some(self.stddev))?;
        for (name, v) in [
            ("p50", self.p50),
            ("p90", self.p90),
            ("p95", self.p95),
            ("p99", self.p99),
            ("p99_9", self.p99_9),
            ("p99_99", self.p99_99),
        ] {
            s.serialize_field(name, &r.percentiles.then_some(v))?;
        }
        s.end()
    }
}

/// A latency the export wrote as null (not recorded), as the 0 the record holds for it.
fn zero_if_null<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

impl LatencySummary {
    pub fn of(h: &Histogram) -> Self {
        let [p50, p90, p95, p99, p99_9, p99_99] = PERCENTILES.map(|p| h.percentile(p));
        LatencySummary {
            min: h.min(),
            mean: h.mean(),
            max: h.max(),
            stddev: h.stddev(),
            p50,
            p90,
            p95,
            p99,
            p99_9,
            p99_99,
            shown: None,
        }
    }
}

/// CPU time spindle itself used while measuring: the cost of the tool per I/O.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuUsage {
    pub user_seconds: f64,
    pub system_seconds: f64,
    /// (user + system) microseconds per completed I/O.
    pub us_per_io: f64,
}

impl CpuUsage {
    pub fn new(user_seconds: f64, system_seconds: f64, ios: u64) -> Self {
        let us_per_io = if ios == 0 { 0.0 } else { (user_seconds + system_seconds) * 1e6 / ios as f64 };
        CpuUsage { user_seconds, system_seconds, us_per_io }
    }
}

impl IoStats {
    /// Builds the statistics of I/Os whose latencies are in `read`/`write`/`flush`, moved
    /// `bytes_read`/`bytes_written` over `seconds`. `commit` is left empty for the caller that
    /// knows which writes each flush covered.
    pub fn from_histograms(
        read: &Histogram,
        write: &Histogram,
        flush: &Histogram,
        bytes_read: u64,
        bytes_written: u64,
        seconds: f64,
        cpu: CpuUsage,
    ) -> Self {
        let per_sec = |x: u64| if seconds > 0.0 { x as f64 / seconds } else { 0.0 };
        let mut all = read.clone();
        all.merge(write);
        let direction = |h: &Histogram, bytes: u64| DirectionStats {
            ios: h.count(),
            bytes,
            iops: per_sec(h.count()),
            bytes_per_sec: per_sec(bytes),
            latency_ns: LatencySummary::of(h),
            histogram: SparseHistogram::from(h),
        };
        let bytes = bytes_read + bytes_written;
        IoStats {
            ios: all.count(),
            bytes,
            iops: per_sec(all.count()),
            bytes_per_sec: per_sec(bytes),
            mb_per_sec: per_sec(bytes) / 1e6,
            mib_per_sec: per_sec(bytes) / (1u64 << 20) as f64,
            latency_ns: LatencySummary::of(&all),
            read: direction(read, bytes_read),
            write: direction(write, bytes_written),
            flush: OpStats::of(flush),
            commit: OpStats::default(),
            sqlio_histogram_pct: sqlio_histogram(&all),
            cpu,
        }
    }

    /// The same figures with each histogram's buckets dropped and its count, extremes and sums
    /// kept: for one row among a thousand sessions, whose run and target keep the whole
    /// distribution. A thousand bucket lists, one per session, were the bulk of such a record
    /// and of spindle's memory while saving it.
    pub fn without_buckets(mut self) -> Self {
        for h in
            [&mut self.read.histogram, &mut self.write.histogram, &mut self.flush.histogram, &mut self.commit.histogram]
        {
            h.buckets = Vec::new();
        }
        self
    }
}

/// SQLIO's 0..24+ millisecond histogram, in percent of I/Os.
pub fn sqlio_histogram(h: &Histogram) -> Vec<f64> {
    let mut below_prev = 0.0;
    let mut out = Vec::with_capacity(SQLIO_BUCKETS);
    for ms in 1..SQLIO_BUCKETS as u64 {
        let below = h.fraction_below(ms * 1_000_000);
        out.push((below - below_prev) * 100.0);
        below_prev = below;
    }
    out.push(if h.is_empty() { 0.0 } else { (1.0 - below_prev) * 100.0 });
    out
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetResult {
    pub path: String,
    /// The block device under the target (a partition's disk, a loop device's backing disk).
    pub device: Option<String>,
    pub size: u64,
    /// The workload in words, e.g. `8KiB random read, 4 threads x 8 outstanding`.
    pub workload: String,
    pub stats: IoStats,
    pub timeseries: Vec<TimePoint>,
}

impl TargetResult {
    /// A database as a run's one target: named by its URL (shown masked), with no device or
    /// size of its own, and the run's statistics and series.
    pub fn database(shown: String, workload: String, stats: IoStats, timeseries: Vec<TimePoint>) -> TargetResult {
        TargetResult { path: shown, device: None, size: 0, workload, stats, timeseries }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadResult {
    /// Index into `targets`.
    pub target: usize,
    /// Thread number within its target.
    pub thread: u32,
    pub stats: IoStats,
}

/// One second of the measurement (all targets, or one target).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimePoint {
    /// End of the interval, seconds since measurement start.
    pub t: f64,
    pub read_ios: u64,
    pub write_ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bytes_per_sec: f64,
    pub latency_mean_ns: f64,
    pub latency_max_ns: u64,
}

impl TimePoint {
    /// A series of whole seconds from counts of operations in each (the last second cut at
    /// `secs`, so its rate is over the part measured): for runs whose operations have no
    /// latency or bytes of their own per second (loads, the log test, large operations).
    pub fn per_second(counts: &[u64], secs: f64) -> Vec<TimePoint> {
        counts
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let t = ((i + 1) as f64).min(secs);
                let width = (t - i as f64).max(1e-9);
                TimePoint { t, write_ios: n, iops: n as f64 / width, ..TimePoint::default() }
            })
            .collect()
    }
}

/// Where the run happened, so two runs can be told apart and compared fairly.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    pub hostname: String,
    pub os: String,
    pub kernel: String,
    pub cpu_model: String,
    pub logical_cpus: u32,
    pub memory_bytes: u64,
    pub devices: Vec<DeviceInfo>,
    /// Targets that share a physical disk (`shared_disks(&devices)` when recorded; empty when
    /// every target has a disk of its own, and in older records).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_disks: Vec<SharedDisk>,
}

/// What lies under one target: its filesystem and block device.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// The target path this describes.
    pub target: String,
    /// Kernel name of the disk (`vda`, `nvme0n1`), after mapping a partition to its disk; a
    /// loop device is a disk of its own (`loop0`: its own queue, size and counters), the disks
    /// under its backing file are in `disks`. Older records name the disk under a loop here.
    pub device: Option<String>,
    /// The device the target sits on directly, when it differs (`vda1`, `loop0p1`).
    pub partition: Option<String>,
    pub model: Option<String>,
    pub vendor: Option<String>,
    pub rotational: Option<bool>,
    pub size_bytes: Option<u64>,
    pub scheduler: Option<String>,
    pub logical_block_size: Option<u64>,
    pub physical_block_size: Option<u64>,
    pub filesystem: Option<String>,
    pub mount_point: Option<String>,
    pub mount_options: Option<String>,
    /// The device's volatile write cache setting (`write back` / `write through`).
    pub write_cache: Option<String>,
    /// Read-ahead of the device's queue, KiB: with the write cache, what plays a controller
    /// cache's part for large scans on Linux (absent in older records).
    #[serde(default)]
    pub read_ahead_kb: Option<u64>,
    /// The largest request the queue sends to the device, KiB: the ceiling on the I/O sizes a
    /// scan or a checkpoint can reach (absent in older records).
    #[serde(default)]
    pub max_sectors_kb: Option<u64>,
    /// When the target sits on a loop device: the loop's backing file (absent in older
    /// records and for targets on no loop).
    #[serde(default)]
    pub loop_backing_file: Option<String>,
    /// Whether that loop device reads and writes its backing file with direct I/O; when not,
    /// the backing file's page cache answers reads and holds writes, and the disk sees less.
    #[serde(default)]
    pub loop_direct_io: Option<bool>,
    /// The members of the device-mapper or md device under the target (`sda2`, `sdb2`): the
    /// devices at the bottom of its `slaves`, sorted; empty when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// Every whole disk the target's I/O reaches, through partitions, loops, device mapper
    /// and md (`device` names the first, but for a loop device, which is `device` itself);
    /// empty in older records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<String>,
    /// Whether those disks are a hypervisor's or a cloud's (virtual), the machine's own, or
    /// cannot be told: what a flush time can show depends on it (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<DiskOrigin>,
}

/// Whose disk the target's I/O reaches, and what says so (`evidence`: the driver, vendor or
/// model, or the machine's firmware, in words).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DiskOrigin {
    /// A disk this machine drives itself (or a loop device over no disk): its flags
    /// (rotational, write cache) are its own.
    Local { evidence: String },
    /// A hypervisor's or a cloud's virtual disk (`platform`: `virtio`, `Amazon EBS`, ...): the
    /// host answers its flushes, and its flags are what the host chose to show.
    Virtual { platform: String, evidence: String },
    /// A virtual machine's disk whose driver, vendor and model name no hypervisor and no local
    /// hardware: it may be the host's or passed through, and nothing here tells which.
    Unknown { evidence: String },
}

impl DiskOrigin {
    /// What says so, in words.
    pub fn evidence(&self) -> &str {
        match self {
            DiskOrigin::Local { evidence }
            | DiskOrigin::Virtual { evidence, .. }
            | DiskOrigin::Unknown { evidence } => evidence,
        }
    }
}

impl DeviceInfo {
    /// The whole disks under the target: `disks`, or `device` in records from before it.
    pub fn physical_disks(&self) -> Vec<&str> {
        if self.disks.is_empty() {
            self.device.iter().map(String::as_str).collect()
        } else {
            self.disks.iter().map(String::as_str).collect()
        }
    }
}

/// Targets of one run that reach one physical disk: what one does, the others wait for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedDisk {
    /// The whole disk (`vda`).
    pub disk: String,
    /// The targets on it, by their place in `devices` (from 0), two or more.
    pub targets: Vec<usize>,
}

/// Which of `devices` share a physical disk, each disk once, in the order of the disks'
/// first targets.
pub fn shared_disks(devices: &[DeviceInfo]) -> Vec<SharedDisk> {
    let mut by_disk: Vec<SharedDisk> = Vec::new();
    for (i, d) in devices.iter().enumerate() {
        for disk in d.physical_disks() {
            match by_disk.iter_mut().find(|s| s.disk == disk) {
                Some(s) if !s.targets.contains(&i) => s.targets.push(i),
                Some(_) => {}
                None => by_disk.push(SharedDisk { disk: disk.to_string(), targets: vec![i] }),
            }
        }
    }
    by_disk.retain(|s| s.targets.len() > 1);
    by_disk
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_from_histograms() {
        let (mut r, mut w, f) = (Histogram::new(), Histogram::new(), Histogram::new());
        for _ in 0..300 {
            r.record(500_000);
        }
        for _ in 0..100 {
            w.record(30_000_000);
        }
        let s = IoStats::from_histograms(&r, &w, &f, 300 * 8192, 100 * 8192, 2.0, CpuUsage::new(0.1, 0.3, 400));
        assert_eq!(s.ios, 400);
        assert_eq!(s.iops, 200.0);
        assert_eq!(s.read.iops, 150.0);
        assert_eq!(s.bytes_per_sec, 400.0 * 8192.0 / 2.0);
        assert_eq!(s.sqlio_histogram_pct.len(), SQLIO_BUCKETS);
        assert!((s.sqlio_histogram_pct[0] - 75.0).abs() < 1e-9);
        assert!((s.sqlio_histogram_pct[24] - 25.0).abs() < 1e-9);
        assert!((s.cpu.us_per_io - 1000.0).abs() < 1e-9);
        assert_eq!(s.flush.count, 0);
    }

    /// The JSON export writes a latency a run did not record as null; `spindle import` of that
    /// export reads it back.
    #[test]
    fn a_latency_written_as_null_reads_back_as_zero() {
        let mut json =
            serde_json::to_value(LatencySummary { min: 5, mean: 7.5, p99: 9, ..Default::default() }).unwrap();
        json["min"] = serde_json::Value::Null;
        json["mean"] = serde_json::Value::Null;
        let back: LatencySummary = serde_json::from_value(json).unwrap();
        assert_eq!(back, LatencySummary { p99: 9, ..Default::default() });
    }

    #[test]
    fn a_run_that_completed_no_operation_recorded_no_latency() {
        let mut r = crate::fixtures::record();
        assert_eq!(r.recorded(), crate::Recorded::ALL);
        r.summary = IoStats::default();
        assert_eq!(r.recorded(), crate::Recorded::ALL.without_latency(), "0 I/Os: their latencies measured nothing");
    }

    #[test]
    fn commits_lead_where_there_are_some_else_each_ios_latency() {
        let (mut w, mut c, none) = (Histogram::new(), Histogram::new(), Histogram::new());
        w.record(25_000);
        c.record(250_000);
        let mut s = IoStats::from_histograms(&none, &w, &none, 0, 8192, 1.0, CpuUsage::default());
        assert_eq!(s.lead_latency(), (LatencyOf::Io, &s.latency_ns));
        s.commit = OpStats::of(&c);
        let (of, lead) = s.lead_latency();
        assert_eq!((of.name(), lead.mean), ("commit", 250_000.0));
    }

    #[test]
    fn empty_stats_have_no_nans() {
        let h = Histogram::new();
        let s = IoStats::from_histograms(&h, &h, &h, 0, 0, 0.0, CpuUsage::new(0.0, 0.0, 0));
        let json = serde_json::to_string(&s).unwrap();
        assert!(!json.contains("NaN") && !json.contains("null"), "{json}");
        assert!(s.sqlio_histogram_pct.iter().all(|p| *p == 0.0));
    }
}
