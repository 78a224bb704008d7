//! The command line, as clap sees it: raw strings and numbers. Turning them into a validated
//! job is `plan`'s work, so every rule lives in one place whether it came from a flag or a file.

use clap::{Parser, Subcommand};

mod ab;
mod agent;
mod check;
mod counters;
mod database;
mod durability;
mod io;
mod orders;
mod shared;
mod shell;
mod stored;

pub use ab::*;
pub use agent::*;
pub use check::*;
pub use counters::*;
pub use database::*;
pub use durability::*;
pub use io::*;
pub use orders::*;
pub use shared::*;
pub use shell::*;
pub use stored::*;

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
    /// An order-entry workload derived from TPC-C's transactions (as HammerDB's TPROC-C runs
    /// them; not comparable with published TPC-C results): `load` creates and fills its tables.
    Orders(OrdersArgs),
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
