//! The command line, as clap sees it: raw strings and numbers. Turning them into a validated
//! job is `plan`'s work, so every rule lives in one place whether it came from a flag or a file.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "spindle",
    version,
    about = "How will this storage serve a database? Measure it the way databases use it."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one synthetic I/O workload (SQLIO/DiskSpd/fio style) against one or more targets.
    Io(Box<IoArgs>),
    /// List the named database I/O patterns that `spindle io --profile` takes.
    Profiles(ProfilesArgs),
}

#[derive(Debug, Args)]
pub struct ProfilesArgs {
    /// Print the profiles as JSON (name, summary, settings).
    #[arg(long)]
    pub json: bool,
}

/// How results are printed.
#[derive(Debug, Args, Clone, Default)]
pub struct OutputArgs {
    /// Print the run record as JSON on stdout (schema: docs/run-record.schema.json).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the results as CSV on stdout (total, per target, per thread).
    #[arg(long)]
    pub csv: bool,
    /// Print nothing but errors (the run is still measured and its exit code set).
    #[arg(long, short)]
    pub quiet: bool,
    /// Attach a label to the run, e.g. --label raid=10 (repeatable).
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub labels: Vec<String>,
}

#[derive(Debug, Args)]
#[command(after_help = "Sizes: 512, 4K, 8KiB, 1MiB, 10G (binary multiples). Durations: 500ms, 30s, 5m, 1h.\n\
Example: spindle io --target data.dat --size 1G --block 8K --read 100 --random 100 --threads 4 --depth 8 --duration 30s")]
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
    /// Outstanding I/Os per thread [default: 1].
    #[arg(long, short = 'o', allow_negative_numbers = true)]
    pub depth: Option<String>,
    /// How long to measure [default: 30s].
    #[arg(long, short = 'd')]
    pub duration: Option<String>,
    /// Run this long first, excluded from the results [default: 0s].
    #[arg(long)]
    pub warmup: Option<String>,
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
    #[command(flatten)]
    pub output: OutputArgs,
}
