use super::{JsonArgs, StoreArgs, help};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(after_help = "Reads SQLIO text output (several runs a file), DiskSpd text (-Rtext) and XML (-Rxml), \
fio JSON (--output-format=json or json+), and IOMeter results CSV. Figures a tool did not record are left \
out, never invented.\nExamples:\n  spindle import sqlio-*.txt --label array=raid5\n  spindle import fio.json --json")]
#[command(mut_args(help(&[
    ("json", "Print the imported run records as JSON"),
])))]
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
