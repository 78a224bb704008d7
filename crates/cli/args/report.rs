use super::{SelectArgs, StoreArgs};
use clap::Args;
use std::path::PathBuf;

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
