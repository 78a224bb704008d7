use super::{JsonArgs, SelectArgs, StoreArgs, help};
use clap::{Args, Subcommand};

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
#[command(mut_args(help(&[
    ("json", "Print the runs as JSON (id, time, labels, workload, summary figures)"),
])))]
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
