use super::{AgentsArgs, DatabaseArgs, OutputArgs, SamplerArgs, StoreArgs, TimingArgs, help};
use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct HammerArgs {
    #[command(subcommand)]
    pub action: HammerAction,
}

#[derive(Debug, Subcommand)]
pub enum HammerAction {
    /// Create Hammer's table and load it (the load time and rate are saved as a run).
    Load(HammerLoadArgs),
    /// Concurrent sessions calling GetAccount or UpdateAccount at random, one run per session
    /// count, measured once every session is connected.
    Run(Box<HammerRunArgs>),
}

#[derive(Debug, Args)]
#[command(mut_args(help(&[
    ("duration", "How long to measure each session count [default: 60s]"),
    ("warmup", "Run this long after every session is connected, unmeasured [default: 10s]"),
    ("db", "The loaded database: sqlite:///path/to/hammer.db"),
])))]
pub struct HammerRunArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Concurrent sessions; a list runs each count in turn: 100,500,800 [default: 8].
    #[arg(long, value_name = "N[,N...]")]
    pub sessions: Option<String>,
    /// Percent of calls that are GetAccount (the rest UpdateAccount) [default: 50].
    #[arg(long, value_name = "PERCENT", allow_negative_numbers = true)]
    pub read_ratio: Option<String>,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Pause after each call, as Hammer's interval [default: 0].
    #[arg(long, value_name = "DURATION")]
    pub think_time: Option<String>,
    /// Cap the calls per second of all sessions together; latency then counts from each
    /// call's intended start.
    #[arg(long, value_name = "TPS")]
    pub rate: Option<String>,
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
#[command(mut_args(help(&[("db", "The database: sqlite:///path/to/hammer.db (a new file in a \
directory you name), postgres://user@host/db or mysql://user@host/db (a database for the test; \
spindle creates its TestTransaction table there and never touches a table of another's)")])))]
pub struct HammerLoadArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Rows to load: 10M = 10,000,000 (K, M, G are powers of 1000) [default: 10M].
    #[arg(long)]
    pub rows: Option<String>,
    /// Drop a Hammer table already there and load from scratch.
    #[arg(long, conflicts_with = "resume")]
    pub fresh: bool,
    /// Keep the rows already loaded (an interrupted load) and load the rest.
    #[arg(long)]
    pub resume: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub sampler: SamplerArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}
