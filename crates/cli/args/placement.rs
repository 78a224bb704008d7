use super::{JsonArgs, SamplerArgs, StoreArgs, TimingArgs, VerdictArgs, help};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(mut_args(help(&[
    ("duration", "How long each Hammer run measures [default: 30s]"),
    ("warmup", "Unmeasured time before each Hammer run [default: 5s]"),
    ("json", "Print the comparison as JSON (the shape of `spindle compare --json`, basis \"paired\")"),
])))]
pub struct PlacementArgs {
    /// postgres or mariadb.
    #[arg(long)]
    pub engine: String,
    /// The volume (a directory on it) that holds data and log together.
    #[arg(long, value_name = "DIR")]
    pub same: PathBuf,
    /// The volumes (a directory on each) that hold the data and the log apart.
    #[arg(long, value_name = "DATA_DIR,WAL_DIR")]
    pub split: String,
    /// What runs on both: hammer (Database Hammer) or logtest (the transaction-log test at
    /// one transaction size) [default: hammer].
    #[arg(long)]
    pub workload: Option<String>,
    /// Rounds, each one run on each layout, in balanced order [default: 3].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub rounds: Option<String>,
    /// Rows: Hammer's table [default: 1M], or the log test's inserts per run [default: 20000].
    #[arg(long)]
    pub rows: Option<String>,
    /// Hammer's concurrent sessions, or several (`8,32,128`): one paired comparison per count,
    /// the table loaded once per layout [default: 8].
    #[arg(long, value_name = "N")]
    pub sessions: Option<String>,
    /// Percent of Hammer's calls that are GetAccount [default: 50].
    #[arg(long, value_name = "PERCENT")]
    pub read_ratio: Option<String>,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// The log test's transaction size in rows [default: 1].
    #[arg(long, value_name = "N")]
    pub batch: Option<String>,
    /// Shared buffers / buffer pool of each instance [default: 256M].
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<String>,
    /// Keep the two instances and their directories at the end (they are stopped).
    #[arg(long)]
    pub keep: bool,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    #[command(flatten)]
    pub print: JsonArgs,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// Attach a label to every run (repeatable).
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub labels: Vec<String>,
    #[command(flatten)]
    pub sampler: SamplerArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}
