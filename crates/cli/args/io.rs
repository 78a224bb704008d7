//! `io`, `profiles`, `verify` and `suite`: I/O workloads on files and devices.

use super::{AgentsArgs, JsonArgs, OutputArgs, SamplerArgs, StoreArgs, TargetArgs, TimingArgs, help};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args, Default)]
#[command(after_help = "Sizes: 512, 4K, 8KiB, 1MiB, 10G (binary multiples). Durations: 500ms, 30s, 5m, 1h.\n\
Example: spindle io --target data.dat --size 1G --block 8K --read 100 --random 100 --threads 4 --depth 8 --duration 30s")]
#[command(mut_args(help(&[
    ("duration", "How long to measure [default: 30s]"),
    ("warmup", "Run this long first, excluded from the results [default: 0s]"),
])))]
pub struct IoArgs {
    /// File (or, with --allow-destroy, block device) to drive; repeatable. Test files are created.
    #[arg(long = "target", short = 't', value_name = "PATH")]
    pub targets: Vec<PathBuf>,
    /// Workload file (TOML) with per-target workloads; see docs/spec-format.md.
    #[arg(long, value_name = "FILE.toml")]
    pub spec: Option<PathBuf>,
    /// Start from a named database I/O pattern (see `spindle profiles`); flags override it.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Size of each test file [default: 1G].
    #[arg(long)]
    pub size: Option<String>,
    /// Transfer size of every I/O [default: 8K, a database page].
    #[arg(long, short = 'b', conflicts_with = "mix")]
    pub block: Option<String>,
    /// Transfer sizes with weights, IOMeter style: 64K:83,512:17.
    #[arg(long)]
    pub mix: Option<String>,
    /// Percentage of reads, 0..100 [default: 100].
    #[arg(long, allow_negative_numbers = true)]
    pub read: Option<String>,
    /// Percentage of random I/O, 0..100; the rest is sequential [default: 100].
    #[arg(long, allow_negative_numbers = true)]
    pub random: Option<String>,
    /// Threads per target, or `cpus` for one per logical CPU [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<String>,
    /// Outstanding I/Os per thread (SQLIO's and DiskSpd's -o) [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    pub depth: Option<String>,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Cap each target at this many IOPS; latency counts from each I/O's intended start.
    #[arg(long, value_name = "IOPS", allow_negative_numbers = true)]
    pub rate: Option<String>,
    /// Go through the page cache (direct I/O is the default, as databases do).
    #[arg(long)]
    pub buffered: bool,
    /// Open with O_DSYNC: every write is durable when it completes (log-like writes).
    #[arg(long)]
    pub write_through: bool,
    /// Issue fdatasync after every N writes; its latency is reported on its own.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub fsync_every: Option<String>,
    /// I/O engine: uring, sync or null [default: uring, falling back to sync].
    #[arg(long)]
    pub engine: Option<String>,
    /// Keep the test files spindle created instead of removing them at the end.
    #[arg(long)]
    pub keep_file: bool,
    /// Write to an existing file that spindle did not create (its contents are destroyed).
    #[arg(long)]
    pub force: bool,
    /// Allow writing to a block device (destroys everything on it). Refused while mounted.
    #[arg(long)]
    pub allow_destroy: bool,
    /// Check the data: stamp every written 512-byte sector (run, offset, write, checksum) and
    /// check every sector read; lost, torn, stale, misdirected and corrupt writes are listed
    /// and the run exits 1. With --keep-file, `spindle verify` checks the whole file later.
    #[arg(long)]
    pub verify: bool,
    /// Run the job N times, each saved as its own run in one group (the SAN placement study behind
    /// Database Hammer ran everything three times).
    #[arg(long, value_name = "N")]
    pub repeat: Option<String>,
    /// Run once per value of one setting, e.g. depth=1,2,4,...,256 (also block=, threads=);
    /// prints the curve and its knee.
    #[arg(long, value_name = "PARAM=LIST")]
    pub sweep: Option<String>,
    /// What the volume was provisioned to deliver, e.g. 3000iops,125MB/s: says whether the
    /// best run delivers it, at which depth and latency (short of 90% is short).
    #[arg(long, value_name = "RATES")]
    pub expect: Option<String>,
    /// Exit 1 when the runs deliver less than --expect.
    #[arg(long, requires = "expect")]
    pub strict: bool,
    #[command(flatten)]
    pub agents: AgentsArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub sampler: SamplerArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
#[command(mut_args(help(&[("json", "Print the profiles as JSON (name, summary, settings)")])))]
pub struct ProfilesArgs {
    #[command(flatten)]
    pub print: JsonArgs,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  spindle io -t /mnt/data/v.dat --size 4G --read 50 --verify --keep-file\n  spindle verify -t /mnt/data/v.dat"
)]
#[command(mut_args(help(&[
    ("target", "The file (or device) to check"),
    ("json", "Print the findings as JSON"),
])))]
pub struct VerifyArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The run's verification id (hex, from the run's report), for a device or a file that
    /// lost its mark [default: the mark the run left on the file].
    #[arg(long, value_name = "HEX")]
    pub id: Option<String>,
    #[command(flatten)]
    pub print: JsonArgs,
}

#[derive(Debug, Args)]
#[command(mut_args(help(&[
    ("duration", "How long to measure each member [default: 30s; 13 members fit in 10 minutes]"),
    ("warmup", "Unmeasured run before each member [default: 5s]"),
])))]
pub struct SuiteArgs {
    /// Which engine's matrix: sqlserver, postgres or mysql.
    #[arg(value_name = "ENGINE")]
    pub engine: String,
    /// Directory to test; the suite's test file is created (and removed) there.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Size of the test file [default: 1G].
    #[arg(long)]
    pub size: Option<String>,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Run every member N times (interleaved), to tell real differences from noise.
    #[arg(long, value_name = "N")]
    pub repeat: Option<String>,
    /// I/O engine: uring, sync or null [default: uring, falling back to sync] (as `io --engine`).
    #[arg(long = "engine", alias = "io-engine", value_name = "ENGINE")]
    pub io_engine: Option<String>,
    /// Keep the test file at the end.
    #[arg(long)]
    pub keep_file: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub sampler: SamplerArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}
