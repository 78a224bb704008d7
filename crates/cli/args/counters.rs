//! `record` and `characterize`: counter logs written, and read into workloads.

use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The CSV file to write (never an existing file, unless --force).
    #[arg(long, short = 'o', value_name = "FILE.csv")]
    pub output: PathBuf,
    /// Time between samples [default: 1s].
    #[arg(long, value_name = "DURATION")]
    pub interval: Option<String>,
    /// Stop after this long [default: until Ctrl-C].
    #[arg(long, short = 'd')]
    pub duration: Option<String>,
    /// Disk to record (kernel name, e.g. nvme0n1; repeatable) [default: every disk].
    #[arg(long = "device", value_name = "NAME")]
    pub devices: Vec<String>,
    /// Replace FILE.csv if it exists.
    #[arg(long)]
    pub force: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct CharacterizeArgs {
    /// The counter log: a perfmon CSV or TSV, a `spindle record` CSV, or iostat -x output
    /// (text in any sysstat layout, or -o JSON); or an IOMeter .icf file to convert.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Only this disk (as the log names it: vda, "0 C:").
    #[arg(long)]
    pub device: Option<String>,
    /// The busy profile keeps samples whose Avg. Disk Queue Length is above this [default: 2];
    /// given, the spec is written from the busy samples.
    #[arg(long, value_name = "QUEUE")]
    pub min_queue: Option<String>,
    /// Keep the largest size classes until they cover this percentage of I/Os [default: 80].
    #[arg(long, value_name = "PERCENT")]
    pub coverage: Option<String>,
    /// Only samples at or after this time (the log's local time: 2026-11-23T06:00:00).
    #[arg(long, value_name = "TIME")]
    pub from: Option<String>,
    /// Only samples at or before this time.
    #[arg(long, value_name = "TIME")]
    pub to: Option<String>,
    /// The object the disks are instances of, as the log names it [default: PhysicalDisk,
    /// else LogicalDisk]; for logs from a localized Windows, e.g. "Физический диск".
    #[arg(long, value_name = "NAME")]
    pub object: Option<String>,
    /// The log's names (or 1-based positions among each disk's columns) for Disk Reads/sec,
    /// Disk Writes/sec, Avg. Disk Bytes/Read, Avg. Disk Bytes/Write and Avg. Disk Queue Length,
    /// in that order, comma-separated: for logs whose counter names are not English.
    #[arg(long, value_name = "FIVE NAMES|FIVE POSITIONS")]
    pub counters: Option<String>,
    /// From an IOMeter .icf file, the access specification to convert.
    #[arg(long, value_name = "NAME")]
    pub access: Option<String>,
    /// Write the workload: a spec file for `spindle io --spec`, or, named *.icf, IOMeter
    /// access specifications.
    #[arg(long, short = 'o', value_name = "SPEC.toml|FILE.icf")]
    pub output: Option<PathBuf>,
    /// Replace SPEC.toml if it exists.
    #[arg(long)]
    pub force: bool,
    /// Leave the recorded rate out of SPEC.toml: the replay then runs as fast as the disk
    /// goes, instead of at the I/Os a second the log recorded.
    #[arg(long)]
    pub flat_out: bool,
    /// Print the profiles as JSON.
    #[arg(long)]
    pub json: bool,
}
