use super::{OutputArgs, SamplerArgs, StoreArgs, TimingArgs, help};
use clap::Args;
use std::path::PathBuf;

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
