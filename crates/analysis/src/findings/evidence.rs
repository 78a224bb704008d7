//! What a check measured and saw under each directory: the facts the rules judge. The CLI
//! gathers these from the check's stored runs and the host; nothing here measures.

use crate::curve::{CurvePoint, Dip, KneeRange};
use serde::{Deserialize, Serialize};
use spindle_model::record::DeviceInfo;

/// Whose published guidance the figures are held against (`spindle check --for`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Guidance {
    /// A generic OLTP database: the thresholds every engine's guidance agrees on.
    Generic,
    SqlServer,
    Postgres,
    Mysql,
}

/// Everything one check saw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub guidance: Guidance,
    pub dirs: Vec<DirEvidence>,
}

/// One checked directory: where it lives and what each step of the battery measured there
/// (`None` for a step the battery left out or that did not finish).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirEvidence {
    /// The directory as the user named it.
    pub dir: String,
    /// Filesystem, mount options, block device, scheduler, write cache, rotational.
    pub device: DeviceInfo,
    /// Free bytes on the directory's filesystem before the check, and its size.
    pub free_bytes: Option<u64>,
    pub filesystem_bytes: Option<u64>,
    /// Where the partition under the directory starts on its disk, in bytes (alignment).
    pub partition_start_bytes: Option<u64>,
    /// The loop device's backing file, when the directory sits on a loop device.
    pub loop_backing: Option<LoopBacking>,
    /// Random page reads (direct I/O) at rising queue depths.
    pub page_reads: Option<DepthCurve>,
    /// Log-like commits: a sequential write and a flush, one at a time.
    pub commits: Option<Commits>,
    /// Checkpoint-like large random writes.
    pub large_writes: Option<Transfer>,
    /// Read-ahead-like large sequential reads.
    pub large_reads: Option<Transfer>,
    /// The log test at a few transaction sizes on the chosen engine.
    pub log: Option<LogCurve>,
    /// A short pass of writes read back and checked.
    pub verify: Option<VerifyOutcome>,
    /// What else the host did during each I/O step (absent in older evidence).
    #[serde(default)]
    pub loads: Vec<super::load::StepLoad>,
    /// Page reads held long (`--sustain`): the burst and the rate kept after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sustained: Option<super::sustained::Sustained>,
    /// What the volume was provisioned to deliver (`--expect`), when the user said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<spindle_model::expected::Expected>,
    /// How each I/O step's rate moved over its seconds: its level shift and swing (absent in
    /// older evidence).
    #[serde(default)]
    pub over_time: Vec<super::over_time::StepOverTime>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopBacking {
    /// The backing file's path (as `/sys/block/loopN/loop/backing_file` gives it).
    pub file: String,
    /// Whether the loop device reads and writes its backing file with direct I/O; when not,
    /// the backing file's page cache answers reads and absorbs writes.
    pub direct_io: bool,
    /// The filesystem the backing file itself lives on (`tmpfs` makes the "disk" memory).
    pub backing_filesystem: Option<String>,
}

/// Page reads at each depth: the sweep's curve (`value` is the depth) and its knee.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepthCurve {
    /// Bytes per read (the engine's page size: 8 KiB, 16 KiB for InnoDB).
    pub block: u64,
    pub points: Vec<CurvePoint>,
    /// Index into `points` of the knee, if the curve has one.
    pub knee: Option<usize>,
    /// Where the knee may lie when the 10% rule's answer turns on a gain within 5 points of 10%
    /// (indices into `points`; `to` none: the deepest point may still be climbing).
    #[serde(default)]
    pub knee_range: Option<KneeRange>,
    /// Throughput fell and rose again by more than a quarter: too noisy to name a knee.
    #[serde(default)]
    pub noisy: bool,
    /// Where throughput fell and rose again (`curve::noise` when noisy, else `curve::dip`): the
    /// depths a sentence names, and how far one run a depth swings.
    #[serde(default)]
    pub dip: Option<Dip>,
}

/// Commit latency: each commit is a write of `write_bytes` and a flush (fdatasync), at QD1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Commits {
    pub write_bytes: u64,
    pub count: u64,
    pub per_sec: f64,
    /// From the write's start to the flush's end.
    pub mean_ns: f64,
    pub p99_ns: u64,
    /// The flush alone.
    pub flush_median_ns: u64,
    pub flush_p99_ns: u64,
}

/// A large-transfer step's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transfer {
    pub block: u64,
    /// Outstanding I/Os (threads times depth).
    pub outstanding: u32,
    pub mb_per_sec: f64,
    pub iops: f64,
    pub latency_mean_ns: f64,
    pub latency_p99_ns: u64,
}

impl Transfer {
    /// A run's figures as a transfer: its largest block, its outstanding I/Os (threads times
    /// depth over its targets), its rates and latency.
    pub fn of(r: &spindle_model::RunRecord) -> Transfer {
        let s = &r.summary;
        let job = r.details.job();
        Transfer {
            block: job.map_or(0, |j| j.targets.first().map_or(0, |t| t.workload.largest_block())),
            outstanding: job.map_or(0, |j| j.targets.iter().map(|t| t.workload.threads * t.workload.depth).sum()),
            mb_per_sec: s.mb_per_sec,
            iops: s.iops,
            latency_mean_ns: s.latency_ns.mean,
            latency_p99_ns: s.latency_ns.p99,
        }
    }
}

/// The log test: one point per transaction size, and the size where throughput levels off.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogCurve {
    /// `sqlite`, `postgres`, `mysql`.
    pub engine: String,
    pub points: Vec<LogPoint>,
    /// The smallest transaction size within 10% of the best log throughput.
    pub optimum: Option<u64>,
    /// The largest size tried, when throughput was still rising there (no optimum then).
    #[serde(default)]
    pub still_rising: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogPoint {
    pub transaction_size: u64,
    pub rows_per_sec: f64,
    pub commits_per_sec: f64,
    /// Log MB/s, where the log's bytes were counted.
    pub mb_per_sec: Option<f64>,
}

/// A verification pass: what was read back and what was wrong.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyOutcome {
    pub bytes_checked: u64,
    /// Blocks found lost, torn, stale, misdirected or corrupt.
    pub faults: u64,
    /// The first faults, by kind and offset, as verify prints them.
    pub examples: Vec<String>,
}
