//! `runs`, `compare`, `report`, `import` and `serve`: the commands over the results store.

use super::{JsonArgs, SelectArgs, StoreArgs, VerdictArgs, help};
use clap::{Args, Subcommand};
use std::path::PathBuf;

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

#[derive(Debug, Args)]
#[command(mut_args(help(&[("json", "Print the runs as JSON (id, time, labels, workload, summary figures)")])))]
pub struct RunsListArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Show the newest N matching runs [default: 50].
    #[arg(long, value_name = "N", conflicts_with = "all")]
    pub limit: Option<String>,
    /// Show every matching run.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub print: JsonArgs,
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
#[command(mut_args(help(&[("json", "Print the comparison as JSON")])))]
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
    #[command(flatten)]
    pub print: JsonArgs,
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
#[command(after_help = "Reads SQLIO text output (several runs a file), DiskSpd text (-Rtext) and XML (-Rxml), \
fio JSON (--output-format=json or json+), and IOMeter results CSV. Figures a tool did not record are left \
out, never invented.\nExamples:\n  spindle import sqlio-*.txt --label array=raid5\n  spindle import fio.json --json")]
#[command(mut_args(help(&[("json", "Print the imported run records as JSON")])))]
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
    #[command(flatten)]
    pub print: JsonArgs,
    #[command(flatten)]
    pub store: StoreArgs,
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
