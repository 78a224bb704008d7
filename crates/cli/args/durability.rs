use super::{JsonArgs, TargetArgs, help};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(after_help = "On another machine:\n  spindle durability listen --dir /var/tmp/logs\n\
On the machine under test (then pull its power cord while it writes):\n  \
spindle durability write -t /mnt/data/d.dat --log otherhost:5400\n\
After it is back up:\n  spindle durability verify -t /mnt/data/d.dat --log otherhost:5400")]
pub struct DurabilityArgs {
    #[command(subcommand)]
    pub action: DurabilityAction,
}

#[derive(Debug, Subcommand)]
pub enum DurabilityAction {
    /// Write stamped blocks to random places, a flush after each, telling the log every write
    /// before it is issued and every flush once it returns; until stopped or the power goes.
    Write(DurabilityWriteArgs),
    /// Keep the logs writers send over TCP, one file per run, and hand them to `verify`.
    Listen(DurabilityListenArgs),
    /// After the crash: check that every write the log says was acknowledged is on the target,
    /// whole (exit 0 all kept, 1 with acknowledged writes lost).
    Verify(DurabilityVerifyArgs),
}

#[derive(Debug, Args)]
#[command(mut_args(help(&[
    ("target", "The file or block device to write (a new test file is created and kept for verify)"),
])))]
pub struct DurabilityWriteArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Where the log goes: HOST:PORT of `spindle durability listen` on another machine, or a
    /// new FILE on a volume the crash does not touch.
    #[arg(long, value_name = "HOST:PORT|FILE")]
    pub log: String,
    /// Size of a new test file [default: 1G; a device is used whole].
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// Bytes per write, a multiple of 512.
    #[arg(short = 'b', long, value_name = "SIZE", default_value = "4K")]
    pub block: String,
    /// Writes between flushes, each to its own place (a group commit).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub writes_per_flush: u32,
    /// How long to write [default: until Ctrl-C, a kill or the power cut].
    #[arg(short = 'd', long, value_name = "DURATION")]
    pub duration: Option<String>,
    /// Write through the page cache (by default writes are direct, where the file system allows).
    #[arg(long)]
    pub buffered: bool,
    /// Write to an existing file spindle did not create.
    #[arg(long)]
    pub force: bool,
    /// Write to a block device (destroys what it holds).
    #[arg(long)]
    pub allow_destroy: bool,
}

#[derive(Debug, Args)]
pub struct DurabilityListenArgs {
    /// Address and port to listen on.
    #[arg(long, value_name = "ADDR:PORT", default_value = "0.0.0.0:5400")]
    pub listen: String,
    /// Directory the logs are kept in, one file per run (<run id>.log).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
#[command(mut_args(help(&[
    ("target", "The file or device the writer wrote"),
    ("json", "Print the findings as JSON"),
])))]
pub struct DurabilityVerifyArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The writer's log: HOST:PORT of the listener that kept it, or the FILE.
    #[arg(long, value_name = "HOST:PORT|FILE")]
    pub log: String,
    /// The run's id (hex, as the writer printed it), to fetch its log from a listener
    /// [default: the mark on the file, or the stamps the target holds].
    #[arg(long, value_name = "HEX")]
    pub id: Option<String>,
    #[command(flatten)]
    pub print: JsonArgs,
}
