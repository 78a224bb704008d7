use super::{JsonArgs, SamplerArgs, StoreArgs, TimingArgs, VerdictArgs, help};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(after_help = "A and B are workload files in the --spec format (docs/spec-format.md). Rounds \
alternate in balanced order, A B B A A B ... (or starting with B: chosen at random and printed), and every \
run is saved with the labels ab=a|b and round=N in one group.\nExample:\n  spindle ab raid5.toml raid10.toml \
--rounds 5 --duration 30s")]
#[command(mut_args(help(&[
    ("duration", "How long to measure each run (over the files' own duration) [default: the files', \
else 30s]"),
    ("warmup", "Unmeasured run before each run (over the files' own warmup)"),
    ("json", "Print the comparison as JSON (the shape of `spindle compare --json`, basis \"paired\")"),
])))]
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
    #[command(flatten)]
    pub timing: TimingArgs,
    /// I/O engine for both sides: uring, sync or null (over the files' own engine).
    #[arg(long)]
    pub engine: Option<String>,
    /// Keep the test files spindle created instead of removing them at the end.
    #[arg(long)]
    pub keep_file: bool,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    #[command(flatten)]
    pub print: JsonArgs,
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
