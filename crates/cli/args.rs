//! The command line, as clap sees it: raw strings and numbers. Turning them into a validated
//! job is `plan`'s work, so every rule lives in one place whether it came from a flag or a file.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "spindle",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SPINDLE_COMMIT"), ")"),
    about = "How will this storage serve a database? Measure it the way databases use it."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The main job: how will this storage serve a database? A battery of measurements in
    /// DIR (page reads to the knee, commit latency, checkpoint-like writes, read-ahead-like
    /// reads, the log test on a database, a verified pass), then findings in plain words, each
    /// held against a threshold that is published (with its source) or spindle's own (said
    /// so), and an HTML report.
    Check(Box<CheckArgs>),
    /// Run one synthetic I/O workload (SQLIO/DiskSpd/fio style) against one or more targets.
    Io(Box<IoArgs>),
    /// List the named database I/O patterns that `spindle io --profile` takes.
    Profiles(ProfilesArgs),
    /// Run an engine's standard I/O pattern matrix (for SQL Server, the SQLIO set of "Disk Benchmark testing using SQLIO").
    Suite(Box<SuiteArgs>),
    /// List, show or remove stored runs.
    Runs(RunsArgs),
    /// Compare two runs, or two groups of runs selected by label, with significance.
    Compare(CompareArgs),
    /// An A/B experiment: two workload files run alternately in balanced rounds (A B B A ...),
    /// compared round by round so drift of the host cancels.
    Ab(Box<AbArgs>),
    /// Record disk, CPU and memory counters to a perfmon-compatible CSV, until Ctrl-C or
    /// --duration (the file opens in Excel and in `spindle characterize`).
    Record(RecordArgs),
    /// Turn a counter log (perfmon CSV/TSV, spindle record, iostat -x) into a workload spec, as
    /// "Optimizing tempdb and log disk performance" does: size classes covering 80% of I/Os, read %, outstanding I/Os; replay with io --spec.
    Characterize(CharacterizeArgs),
    /// Database Hammer: load its table, then hammer it with concurrent sessions.
    Hammer(HammerArgs),
    /// What the transaction log sustains: rows inserted in transactions of 1, 10, 100 ...
    /// rows, with the log's writes, bytes and MB/s from the engine's own statistics (after
    /// Tony Rogerson's "Transaction Log Performance").
    Logtest(LogTestArgs),
    /// A private PostgreSQL or MariaDB instance with its data and WAL/redo where you say:
    /// up, status, down.
    Db(DbArgs),
    /// Data and log on one volume, or on two? The same database workload on a managed
    /// instance of each layout, in alternating rounds, compared with the counters that
    /// explain the difference.
    Placement(Box<PlacementArgs>),
    /// TPC-C customer's large operations, each timed with the I/O sizes it made: bulk load,
    /// cold scan, full-table update, checkpoint (after Linchi Shea's "Performance impact of
    /// controller cache: SQL Server large operations").
    Largeops(LargeOpsArgs),
    /// Write stored runs as a report to hand on: one self-contained HTML page with charts, an
    /// Excel workbook with native charts, CSV or Markdown (by the file's extension).
    Report(ReportArgs),
    /// One agent's share of a run of several (`spindle io --agents N` starts them, or prints
    /// the commands or the Kubernetes Job that do): joins the run in the store, waits for the
    /// common start, measures and saves its share.
    Agent(AgentArgs),
    /// A local web page over the results store, read-only: browse runs, see a run or a group
    /// with its charts, compare any two selections, download them as HTML, XLSX, CSV or JSON.
    Serve(ServeArgs),
    /// Bring results of SQLIO, DiskSpd, fio and IOMeter into the store, beside spindle's own
    /// runs: `runs`, `compare` and `report` treat them alike.
    Import(ImportArgs),
    /// Check a whole file written under `spindle io --verify --keep-file`: every sector intact,
    /// in its place, and every write whole (exit 0 clean, 1 with findings).
    Verify(VerifyArgs),
    /// Does the storage keep every write it acknowledged? Write with a flush after each write
    /// while a log elsewhere records what was acknowledged; cut the power; then verify (after
    /// Brad Fitzpatrick's diskchecker).
    Durability(DurabilityArgs),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell
    /// (e.g. `spindle completions bash > /etc/bash_completion.d/spindle`).
    Completions(CompletionsArgs),
    /// Print the manual page, in roff, or write it and a page per command into a directory
    /// (e.g. `spindle man --dir ~/.cargo/share/man/man1; man spindle-check`).
    Man(ManArgs),
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  spindle io -t /mnt/data/v.dat --size 4G --read 50 --verify --keep-file\n  spindle verify -t /mnt/data/v.dat"
)]
pub struct VerifyArgs {
    /// The file (or device) to check.
    #[arg(short = 't', long, value_name = "PATH")]
    pub target: PathBuf,
    /// The run's verification id (hex, from the run's report), for a device or a file that
    /// lost its mark [default: the mark the run left on the file].
    #[arg(long, value_name = "HEX")]
    pub id: Option<String>,
    /// Print the findings as JSON.
    #[arg(long)]
    pub json: bool,
}

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
pub struct DurabilityWriteArgs {
    /// The file or block device to write (a new test file is created and kept for verify).
    #[arg(short = 't', long, value_name = "PATH")]
    pub target: PathBuf,
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
pub struct DurabilityVerifyArgs {
    /// The file or device the writer wrote.
    #[arg(short = 't', long, value_name = "PATH")]
    pub target: PathBuf,
    /// The writer's log: HOST:PORT of the listener that kept it, or the FILE.
    #[arg(long, value_name = "HOST:PORT|FILE")]
    pub log: String,
    /// The run's id (hex, as the writer printed it), to fetch its log from a listener
    /// [default: the mark on the file, or the stamps the target holds].
    #[arg(long, value_name = "HEX")]
    pub id: Option<String>,
    /// Print the findings as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write spindle.1 and a page for every command (spindle-check.1, spindle-hammer-run.1,
    /// ...) into DIR, made if it does not exist, instead of printing spindle(1).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell.
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
#[command(after_help = "Reads SQLIO text output (several runs a file), DiskSpd text (-Rtext) and XML (-Rxml), \
fio JSON (--output-format=json or json+), and IOMeter results CSV. Figures a tool did not record are left \
out, never invented.\nExamples:\n  spindle import sqlio-*.txt --label array=raid5\n  spindle import fio.json --json")]
pub struct ImportArgs {
    /// Result files to import.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Attach a label to every imported run, e.g. --label array=raid10 (repeatable).
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub labels: Vec<String>,
    /// Import a file again although runs from the same bytes are in the store.
    #[arg(long)]
    pub again: bool,
    /// Print the imported run records as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  spindle report -o results.html\n  spindle report 12-20 -o raid.html -o raid.xlsx\n  \
spindle report --group 4 -o sweep.md\n  spindle report --label raid=10 -o raid10.csv"
)]
pub struct ReportArgs {
    /// Run ids or ranges (12, 14-20); without them, every run the flags below select (every
    /// run in the store when there are none).
    #[arg(value_name = "RUN")]
    pub runs: Vec<String>,
    #[command(flatten)]
    pub select: SelectArgs,
    /// The file to write: .html, .xlsx, .csv or .md (repeatable, one report per file).
    #[arg(long = "output", short = 'o', value_name = "FILE", required = true)]
    pub outputs: Vec<PathBuf>,
    /// The format of every -o file, when their names do not end in .html, .xlsx, .csv or .md.
    #[arg(long)]
    pub format: Option<String>,
    /// The report's title [default: spindle report].
    #[arg(long)]
    pub title: Option<String>,
    /// Replace output files that exist.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct LargeOpsArgs {
    /// The database: sqlite:///path/to/test.db, postgres://user@host/db or mysql://user@host/db.
    /// spindle creates (and drops at the end, unless --keep) a table of its own, spindle_customer.
    #[arg(long, value_name = "URL")]
    pub db: String,
    /// Customers to load (K, M are powers of 1000) [default: 3M, about 2 GB].
    #[arg(long)]
    pub rows: Option<String>,
    /// Rows a load batch commits together [default: 50000].
    #[arg(long, value_name = "N")]
    pub batch: Option<String>,
    /// Pause before each operation, so each stands apart in the counters [default: 5s].
    #[arg(long, value_name = "DURATION")]
    pub settle: Option<String>,
    /// Keep the table at the end.
    /// Run the four operations N times, each time on a table made anew; `spindle compare`
    /// then compares each operation with the same operation only [default: 1].
    #[arg(long, value_name = "N")]
    pub repeat: Option<String>,
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
    /// How long each Hammer run measures [default: 30s].
    #[arg(long, short = 'd')]
    pub duration: Option<String>,
    /// Unmeasured time before each Hammer run [default: 5s].
    #[arg(long)]
    pub warmup: Option<String>,
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
    /// Print the comparison as JSON (the shape of `spindle compare --json`, basis "paired").
    #[arg(long)]
    pub json: bool,
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
pub struct DbStatusArgs {
    /// Print the instances as JSON (passwords left out).
    #[arg(long)]
    pub json: bool,
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
pub struct LogTestArgs {
    /// The database: sqlite:///path/to/test.db, postgres://user@host/db or mysql://user@host/db.
    /// spindle creates (and drops at the end) a table of its own, spindle_logtest.
    #[arg(long, value_name = "URL")]
    pub db: String,
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
pub struct HammerRunArgs {
    /// The loaded database: sqlite:///path/to/hammer.db.
    #[arg(long, value_name = "URL")]
    pub db: String,
    /// Concurrent sessions; a list runs each count in turn: 100,500,800 [default: 8].
    #[arg(long, value_name = "N[,N...]")]
    pub sessions: Option<String>,
    /// Percent of calls that are GetAccount (the rest UpdateAccount) [default: 50].
    #[arg(long, value_name = "PERCENT", allow_negative_numbers = true)]
    pub read_ratio: Option<String>,
    /// How long to measure each session count [default: 60s].
    #[arg(long, short = 'd')]
    pub duration: Option<String>,
    /// Run this long after every session is connected, unmeasured [default: 10s].
    #[arg(long)]
    pub warmup: Option<String>,
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
pub struct HammerLoadArgs {
    /// The database: sqlite:///path/to/hammer.db (a new file in a directory you name),
    /// postgres://user@host/db or mysql://user@host/db (a database for the test; spindle
    /// creates its TestTransaction table there and never touches a table of another's).
    #[arg(long, value_name = "URL")]
    pub db: String,
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

/// The counter sampler that runs beside every measuring command.
#[derive(Debug, Args, Clone, Default)]
pub struct SamplerArgs {
    /// How often disk, CPU and memory counters are sampled during a run [default: 1s].
    #[arg(long, value_name = "DURATION")]
    pub sample_interval: Option<String>,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  spindle serve                         http://127.0.0.1:8088/ on this machine only\n  \
spindle serve --listen 0.0.0.0:8088    on the network, behind a generated token it prints"
)]
pub struct ServeArgs {
    /// The address to serve on; one other than loopback needs a token [default: 127.0.0.1:8088].
    #[arg(long, value_name = "ADDRESS:PORT")]
    pub listen: Option<String>,
    /// The token every request must carry (`?token=` once, then a cookie); without it on a
    /// non-loopback address, one is generated and printed [env: SPINDLE_SERVE_TOKEN].
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Started by `spindle io --agents N --launch ...`, or by what --emit printed. The store's URL comes from\n\
SPINDLE_STORE (kept out of the arguments, where any user's `ps` would see a password)."
)]
pub struct AgentArgs {
    /// The run of agents to join (its id, as `spindle io --agents` printed it).
    #[arg(long, value_name = "ID")]
    pub run: i64,
    /// Which agent this is, 0 to N-1 [default: $JOB_COMPLETION_INDEX, else $SLURM_PROCID].
    #[arg(long, value_name = "I")]
    pub index: Option<u32>,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// One run measured by several agents at once.
#[derive(Debug, Args, Clone, Default)]
pub struct AgentsArgs {
    /// Measure the job with N agents at once, started together and merged exactly into one
    /// run (needs a store on a PostgreSQL server: --store postgres://...).
    #[arg(long, value_name = "N")]
    pub agents: Option<String>,
    /// How the agents are started: local (processes here), ssh (round the --hosts), slurm
    /// (srun) or k8s (an Indexed Job, printed with --emit) [default: local].
    #[arg(long, value_name = "HOW")]
    pub launch: Option<String>,
    /// The hosts for --launch ssh: one per line (host or user@host); agents go round them.
    /// ssh is run as $SPINDLE_SSH says, if set: the program and its first options, split on
    /// spaces (`ssh -i KEY -p 2222`).
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// Print the commands (or the Job's YAML) that start the agents instead of running them,
    /// then wait for the agents and merge their run.
    #[arg(long)]
    pub emit: bool,
    /// How long agents may take to join and prepare before the run is aborted [default: 5m].
    #[arg(long, value_name = "DURATION")]
    pub ready_timeout: Option<String>,
}

/// Where results are kept.
#[derive(Debug, Args, Clone, Default)]
pub struct StoreArgs {
    /// Results store: a file, or a PostgreSQL database a team shares (postgres://user@host/db)
    /// [default: $SPINDLE_STORE, else $XDG_DATA_HOME/spindle/results.db].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  spindle check --quick                 about a minute, in the current directory\n  \
spindle check /mnt/data --for postgres --db postgres://localhost/test\n  \
spindle check /mnt/data --thorough --strict   exit 1 on any problem (for CI pipelines)"
)]
pub struct CheckArgs {
    /// Directories to check [default: the current directory]. Test files (and, without --db,
    /// a SQLite database) are created there and removed at the end.
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// A short battery: at most a minute on an idle machine.
    #[arg(long, conflicts_with = "thorough")]
    pub quick: bool,
    /// A long battery (about 15 minutes): more depths, longer steps, a larger test file.
    #[arg(long)]
    pub thorough: bool,
    /// Whose I/O patterns and guidance: sqlserver, postgres or mysql [default: from --db,
    /// else a generic OLTP database].
    #[arg(long = "for", value_name = "ENGINE")]
    pub for_engine: Option<String>,
    /// Run the log test on this database (postgres://, mysql://, sqlite:PATH) instead of a
    /// SQLite database in DIR. Its log is where the server keeps it, not necessarily in DIR.
    #[arg(long, value_name = "URL", conflicts_with = "managed")]
    pub db: Option<String>,
    /// Run the log test on a private PostgreSQL or MariaDB instance (as --for says) that
    /// spindle starts in DIR, its data and log there, and removes at the end.
    #[arg(long)]
    pub managed: bool,
    /// Where to write the HTML report [default: DIR/spindle-check-DATE.html].
    #[arg(long, short = 'o', value_name = "FILE.html")]
    pub output: Option<PathBuf>,
    /// Replace the report file if it exists.
    #[arg(long)]
    pub force: bool,
    /// Exit 1 when any finding is a problem (for CI pipelines); 0 otherwise.
    #[arg(long)]
    pub strict: bool,
    /// Print the findings as JSON on stdout (schema: docs/check.md).
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors and the findings' verdict.
    #[arg(long, short)]
    pub quiet: bool,
    /// Attach a label to every run of the check, e.g. --label array=raid10 (repeatable).
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub labels: Vec<String>,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
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
    /// How long to measure each member [default: 30s; 13 members fit in 10 minutes].
    #[arg(long, short = 'd')]
    pub duration: Option<String>,
    /// Unmeasured run before each member [default: 5s].
    #[arg(long)]
    pub warmup: Option<String>,
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

#[derive(Debug, Args)]
pub struct RunsArgs {
    #[command(subcommand)]
    pub action: RunsAction,
}

#[derive(Debug, Subcommand)]
pub enum RunsAction {
    /// List stored runs, oldest first (the newest 50 unless --limit or --all).
    List(RunsListArgs),
    /// Show one stored run as `spindle io` printed it (--json: its run record), or a group
    /// (--group N: its curve and knee, repeats' spread, or A/B comparison).
    Show(RunsShowArgs),
    /// Remove stored runs (all or none: an unknown id removes nothing).
    Rm(RunsRmArgs),
}

/// Which stored runs: every condition given must hold.
#[derive(Debug, Args, Clone, Default)]
pub struct SelectArgs {
    /// Runs with this label (repeatable; all must match).
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub labels: Vec<String>,
    /// Runs of this kind (io, ...).
    #[arg(long)]
    pub kind: Option<String>,
    /// Runs with this status: complete, interrupted or failed.
    #[arg(long)]
    pub status: Option<String>,
    /// Runs started at or after: 2026-11-22, 2026-11-22T10:00:00Z, or an age (90m, 24h, 7d).
    #[arg(long)]
    pub since: Option<String>,
    /// Runs started at or before (a bare date includes the whole day).
    #[arg(long)]
    pub until: Option<String>,
    /// Runs of this group (a --repeat, --sweep or suite).
    #[arg(long, value_name = "ID")]
    pub group: Option<String>,
}

#[derive(Debug, Args)]
pub struct RunsListArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Show the newest N matching runs [default: 50].
    #[arg(long, value_name = "N", conflicts_with = "all")]
    pub limit: Option<String>,
    /// Show every matching run.
    #[arg(long)]
    pub all: bool,
    /// Print the runs as JSON (id, time, labels, workload, summary figures).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct RunsShowArgs {
    /// Run id (as `spindle runs list` shows it).
    #[arg(required_unless_present = "group", conflicts_with = "group")]
    pub id: Option<String>,
    /// Show a group instead: its runs and what it says as a whole (a sweep's curve and knee,
    /// the spread of repeats, an A/B experiment's comparison).
    #[arg(long, value_name = "ID")]
    pub group: Option<String>,
    /// Print the run record as JSON.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the results as CSV.
    #[arg(long)]
    pub csv: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct RunsRmArgs {
    /// Run ids or ranges (12, 14-20).
    #[arg(required = true)]
    pub ids: Vec<String>,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
#[command(after_help = "Selections: a run id (12), a range (12-14), or KEY=VALUE labels; --a and --b repeat \
to narrow.\nExamples:\n  spindle compare 12 15\n  spindle compare --a raid=5 --b raid=10\n  \
spindle compare --a raid=5 --a host=db1 --b raid=10 --b host=db1")]
pub struct CompareArgs {
    /// Two runs, A then B (instead of --a and --b).
    #[arg(value_name = "RUN", num_args = 0..=2)]
    pub runs: Vec<String>,
    /// Baseline selection A: run ids/ranges or KEY=VALUE labels (repeatable; all must match).
    #[arg(long = "a", value_name = "SELECTION")]
    pub a: Vec<String>,
    /// Selection B, compared against A.
    #[arg(long = "b", value_name = "SELECTION")]
    pub b: Vec<String>,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
#[command(after_help = "A and B are workload files in the --spec format (docs/spec-format.md). Rounds \
alternate in balanced order, A B B A A B ... (or starting with B: chosen at random and printed), and every \
run is saved with the labels ab=a|b and round=N in one group.\nExample:\n  spindle ab raid5.toml raid10.toml \
--rounds 5 --duration 30s")]
pub struct AbArgs {
    /// Workload A, the baseline (a spec file).
    #[arg(value_name = "A.toml")]
    pub a: PathBuf,
    /// Workload B, compared against A.
    #[arg(value_name = "B.toml")]
    pub b: PathBuf,
    /// Rounds, each one run of A and one of B [default: 5].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub rounds: Option<String>,
    /// How long to measure each run (over the files' own duration) [default: the files', else 30s].
    #[arg(long, short = 'd')]
    pub duration: Option<String>,
    /// Unmeasured run before each run (over the files' own warmup).
    #[arg(long)]
    pub warmup: Option<String>,
    /// I/O engine for both sides: uring, sync or null (over the files' own engine).
    #[arg(long)]
    pub engine: Option<String>,
    /// Keep the test files spindle created instead of removing them at the end.
    #[arg(long)]
    pub keep_file: bool,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    /// Print the comparison as JSON (the shape of `spindle compare --json`, basis "paired").
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// Attach a label to every run, e.g. --label array=eva (repeatable).
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub labels: Vec<String>,
    #[command(flatten)]
    pub sampler: SamplerArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// How comparisons judge a change.
#[derive(Debug, Args, Clone, Default)]
pub struct VerdictArgs {
    /// The smallest change worth acting on, percent: better/worse need the whole interval
    /// (simultaneous over the metrics tested) beyond it, equivalent the whole interval inside
    /// it [default: 5].
    #[arg(long, value_name = "PERCENT")]
    pub threshold: Option<String>,
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
    /// Print every run's full report: sweeps, suites and repeats otherwise print a line per
    /// run as it ends and the table of all of them at the end (`spindle runs show N` prints
    /// any run's report later).
    #[arg(long, short, conflicts_with = "quiet")]
    pub verbose: bool,
    /// Attach a label to the run, e.g. --label raid=10 (repeatable).
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub labels: Vec<String>,
}

#[derive(Debug, Args, Default)]
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
    /// Outstanding I/Os per thread (SQLIO's and DiskSpd's -o) [default: 1].
    #[arg(long, allow_negative_numbers = true)]
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
    #[command(flatten)]
    pub agents: AgentsArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub sampler: SamplerArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}
