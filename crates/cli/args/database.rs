//! `hammer`, `logtest`, `largeops`, `db` and `placement`: workloads on a database, and the
//! instances spindle manages.

use super::{AgentsArgs, DatabaseArgs, JsonArgs, OutputArgs, SamplerArgs, StoreArgs, TimingArgs, VerdictArgs, help};
use clap::{Args, Subcommand};
use std::path::PathBuf;

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

#[derive(Debug, Args)]
#[command(mut_args(help(&[("db", "The database: sqlite:///path/to/test.db, postgres://user@host/db \
or mysql://user@host/db. spindle creates (and drops at the end) a table of its own, spindle_logtest")])))]
pub struct LogTestArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Rows inserted at each transaction size (K, M are powers of 1000) [default: 100000].
    #[arg(long)]
    pub rows: Option<String>,
    /// Transaction sizes in rows, each a run [default: 1,10,100,1000,10000,100000].
    #[arg(long, value_name = "N[,N...]")]
    pub batch: Option<String>,
    /// Bytes of each row's payload, as the original's char(4000) [default: 4000].
    #[arg(long, value_name = "BYTES")]
    pub row_bytes: Option<String>,
    /// Pause before and after the checkpoint that precedes each size [default: 5s].
    #[arg(long, value_name = "DURATION")]
    pub settle: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub sampler: SamplerArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
#[command(mut_args(help(&[("db", "The database: sqlite:///path/to/test.db, postgres://user@host/db \
or mysql://user@host/db. spindle creates (and drops at the end, unless --keep) a table of its own, \
spindle_customer")])))]
pub struct LargeOpsArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Customers to load (K, M are powers of 1000) [default: 3M, about 2 GB].
    #[arg(long)]
    pub rows: Option<String>,
    /// Rows a load batch commits together [default: 50000].
    #[arg(long, value_name = "N")]
    pub batch: Option<String>,
    /// Pause before each operation, so each stands apart in the counters [default: 5s].
    #[arg(long, value_name = "DURATION")]
    pub settle: Option<String>,
    /// Run the four operations N times, each time on a table made anew; `spindle compare`
    /// then compares each operation with the same operation only [default: 1].
    #[arg(long, value_name = "N")]
    pub repeat: Option<String>,
    /// Keep the table at the end.
    #[arg(long)]
    pub keep: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub sampler: SamplerArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct DbArgs {
    #[command(subcommand)]
    pub action: DbAction,
}

#[derive(Debug, Subcommand)]
pub enum DbAction {
    /// Create and start an instance; prints the URL to use (with its generated password).
    Up(DbUpArgs),
    /// List the instances spindle manages, running or not.
    Status(DbStatusArgs),
    /// Stop an instance (--remove also deletes the directories spindle made for it).
    Down(DbDownArgs),
    /// Start a stopped instance again (after `db down`, or a server that died), on its own
    /// data, port and password; prints its URL.
    Start(DbStartArgs),
}

#[derive(Debug, Args)]
pub struct DbUpArgs {
    /// postgres or mariadb.
    #[arg(long)]
    pub engine: String,
    /// Where its data goes: a new or empty directory.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// Where its WAL (PostgreSQL) or redo log (MariaDB) goes, if not inside --data: a new or
    /// empty directory, e.g. on another volume.
    #[arg(long, value_name = "DIR")]
    pub wal: Option<PathBuf>,
    /// Port on 127.0.0.1 [default: a free one].
    #[arg(long)]
    pub port: Option<u16>,
    /// Shared buffers / InnoDB buffer pool, e.g. 1G [default: 256M].
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<String>,
    /// Push automatic checkpoints out as far as the engine allows, so a manual checkpoint
    /// can be timed on its own.
    #[arg(long)]
    pub defer_checkpoints: bool,
}

#[derive(Debug, Args)]
#[command(mut_args(help(&[("json", "Print the instances as JSON (passwords left out)")])))]
pub struct DbStatusArgs {
    #[command(flatten)]
    pub print: JsonArgs,
}

#[derive(Debug, Args)]
pub struct DbStartArgs {
    /// The instance's data directory, as given to `db up`.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
}

#[derive(Debug, Args)]
pub struct DbDownArgs {
    /// The instance's data directory, as given to `db up`.
    #[arg(long, value_name = "DIR", required_unless_present = "all", conflicts_with = "all")]
    pub data: Option<PathBuf>,
    /// Every instance spindle manages.
    #[arg(long)]
    pub all: bool,
    /// Also delete the directories spindle made for it (its data and WAL).
    #[arg(long)]
    pub remove: bool,
}

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
