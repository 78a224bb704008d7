use super::{JsonArgs, StoreArgs, VerdictArgs, help};
use clap::Args;

#[derive(Debug, Args)]
#[command(after_help = "Selections: a run id (12), a range (12-14), or KEY=VALUE labels; --a and --b repeat \
to narrow.\nExamples:\n  spindle compare 12 15\n  spindle compare --a raid=5 --b raid=10\n  \
spindle compare --a raid=5 --a host=db1 --b raid=10 --b host=db1")]
#[command(mut_args(help(&[
    ("json", "Print the comparison as JSON"),
])))]
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
