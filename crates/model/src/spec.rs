//! A resolved, validated I/O job: what `spindle io` flags, a spec file or a profile become once
//! every default is filled in. The engine runs exactly this, and the run record echoes it, so a
//! stored run says precisely what was measured.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Which I/O engine a job runs on. Chosen once per job, never per I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// io_uring: one ring per worker thread, registered files and buffers, batched submit/reap.
    Uring,
    /// pread/pwrite, one I/O at a time per thread; portable.
    Sync,
    /// No I/O at all: measures spindle's own ceiling and makes tests deterministic.
    Null,
}

impl EngineKind {
    pub const ALL: [EngineKind; 3] = [EngineKind::Uring, EngineKind::Sync, EngineKind::Null];

    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Uring => "uring",
            EngineKind::Sync => "sync",
            EngineKind::Null => "null",
        }
    }

    pub fn from_name(name: &str) -> Option<EngineKind> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// One line of an access specification, as IOMeter has them: a transfer size, its weight
/// among the lines (`64K:83,512:17`), and its own read and random percentages. Flags give
/// every line the same percentages; a characterised workload gives reads and writes their
/// own sizes (seed 002: reads 68% 64K / 32% 8K, writes 83% 64K / 17% 512B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MixEntry {
    pub block: u64,
    pub weight: u32,
    /// Percentage of this line's I/Os that are reads (0..=100).
    pub read_pct: u8,
    /// Percentage of this line's I/Os at random offsets; the rest continue sequentially.
    pub random_pct: u8,
}

/// How one target is driven. Every thread of the target runs this workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// Access lines and their weights; a single `--block` is a one-line mix.
    pub mix: Vec<MixEntry>,
    pub threads: u32,
    /// Outstanding I/Os per thread.
    pub depth: u32,
    /// IOPS cap for the whole target (spread evenly over its threads); latency is measured
    /// from each I/O's intended start so a cap cannot hide queueing.
    pub rate_iops: Option<u64>,
    /// Use the page cache (direct I/O is the default: databases bypass it).
    pub buffered: bool,
    /// Open with O_DSYNC so every write is durable before it completes (log-like writes).
    pub write_through: bool,
    /// Issue fdatasync after every N writes (0 = never); its latency is kept separately.
    pub fsync_every: u32,
}

impl Workload {
    pub fn largest_block(&self) -> u64 {
        self.mix.iter().map(|m| m.block).max().unwrap_or(0)
    }

    pub fn smallest_block(&self) -> u64 {
        self.mix.iter().map(|m| m.block).min().unwrap_or(0)
    }

    /// The largest size every I/O of the mix starts and ends on: the greatest common divisor
    /// of its block sizes (offsets are multiples of a block's own size).
    pub fn block_granule(&self) -> u64 {
        self.mix.iter().fold(0, |g, m| gcd(m.block, g)).max(1)
    }

    fn weighted(&self, f: impl Fn(&MixEntry) -> u8) -> f64 {
        let total: f64 = self.mix.iter().map(|m| m.weight as f64).sum();
        if total == 0.0 {
            return 0.0;
        }
        self.mix.iter().map(|m| m.weight as f64 * f(m) as f64).sum::<f64>() / total
    }

    /// Percentage of all I/Os that are reads.
    pub fn read_pct(&self) -> f64 {
        self.weighted(|m| m.read_pct)
    }

    /// Percentage of all I/Os at random offsets.
    pub fn random_pct(&self) -> f64 {
        self.weighted(|m| m.random_pct)
    }

    /// Whether any I/O writes (so the target must be writable and is modified).
    pub fn writes(&self) -> bool {
        self.mix.iter().any(|m| m.read_pct < 100)
    }

    /// Whether every line shares one read and one random percentage (a flag-style mix).
    pub fn uniform(&self) -> bool {
        self.mix.windows(2).all(|w| w[0].read_pct == w[1].read_pct && w[0].random_pct == w[1].random_pct)
    }

    /// The sizes as users write them: `8KiB` or `64KiB:83,512B:17`.
    pub fn mix_label(&self) -> String {
        if let [only] = self.mix.as_slice() {
            return crate::units::format_size(only.block);
        }
        let parts: Vec<String> =
            self.mix.iter().map(|m| format!("{}:{}", crate::units::format_size(m.block), m.weight)).collect();
        parts.join(",")
    }
}

/// A file or block device and the workload that drives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetSpec {
    #[serde(serialize_with = "path_as_text")]
    pub path: PathBuf,
    /// Bytes of the target that I/O covers (the test file's size).
    pub size: u64,
    pub workload: Workload,
}

/// Everything one measured job needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    pub engine: EngineKind,
    pub duration_ns: u64,
    /// Run before measuring and excluded from the results.
    pub warmup_ns: u64,
    pub targets: Vec<TargetSpec>,
    /// Keep test files spindle created instead of removing them at the end.
    pub keep_file: bool,
    /// Write to an existing file spindle did not create.
    pub force: bool,
    /// Allow writing to a block device (destroys its contents).
    pub allow_destroy: bool,
    /// Stamp every written sector and check every sector read (`--verify`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify: bool,
}

impl JobSpec {
    pub fn total_threads(&self) -> u32 {
        self.targets.iter().map(|t| t.workload.threads).sum()
    }
}

/// A path as text, any bytes that are not UTF-8 shown as U+FFFD: the record echoes a job whose
/// target is any path the system takes, and JSON holds only text.
pub(crate) fn path_as_text<S: serde::Serializer>(path: &std::path::Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&path.to_string_lossy())
}

/// Greatest common divisor (of block sizes, weights, periods).
pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_target_path_that_is_not_utf8_is_echoed_as_text() {
        use std::os::unix::ffi::OsStrExt;
        let mut job = crate::fixtures::record().details.job().unwrap().clone();
        job.targets[0].path = std::ffi::OsStr::from_bytes(b"/d/x\xff.dat").into();
        let json = serde_json::to_value(&job).expect("any path serializes");
        assert_eq!(json["targets"][0]["path"], "/d/x\u{fffd}.dat");
    }
}
