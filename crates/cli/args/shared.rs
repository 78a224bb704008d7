use clap::Args;
use std::path::PathBuf;

/// Where results are kept.
#[derive(Debug, Args, Clone, Default)]
pub struct StoreArgs {
    /// Results store: a file, or a PostgreSQL database a team shares (postgres://user@host/db)
    /// [default: $SPINDLE_STORE, else $XDG_DATA_HOME/spindle/results.db].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
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

/// The counter sampler that runs beside every measuring command.
#[derive(Debug, Args, Clone, Default)]
pub struct SamplerArgs {
    /// How often disk, CPU and memory counters are sampled during a run [default: 1s].
    #[arg(long, value_name = "DURATION")]
    pub sample_interval: Option<String>,
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
    /// The image a Kubernetes Job's pods run, holding this spindle (--launch k8s; the
    /// Containerfile at spindle's checkout builds one).
    #[arg(long, value_name = "IMAGE")]
    pub image: Option<String>,
    /// A PersistentVolumeClaim the Job mounts at the targets' directories (--launch k8s)
    /// [default: an emptyDir, each node's own disk].
    #[arg(long, value_name = "NAME")]
    pub volume_claim: Option<String>,
    /// How long agents may take to join and prepare before the run is aborted [default: 5m].
    #[arg(long, value_name = "DURATION")]
    pub ready_timeout: Option<String>,
}

/// How long a measuring command measures, and the unmeasured time before it; each command
/// says what its duration covers (`help`).
#[derive(Debug, Args, Clone, Default)]
pub struct TimingArgs {
    /// How long to measure.
    #[arg(long, short = 'd')]
    pub duration: Option<String>,
    /// Unmeasured time before measuring.
    #[arg(long)]
    pub warmup: Option<String>,
}

/// The database a command works on; each command says what it does there (`help`).
#[derive(Debug, Args, Clone, Default)]
pub struct DatabaseArgs {
    /// The database: sqlite:///path/to/test.db, postgres://user@host/db or mysql://user@host/db.
    #[arg(long, value_name = "URL")]
    pub db: String,
}

/// The file or device a command reads or writes; each command says which (`help`).
#[derive(Debug, Args, Clone, Default)]
pub struct TargetArgs {
    /// The file or block device.
    #[arg(id = "target", short = 't', long = "target", value_name = "PATH")]
    pub path: PathBuf,
}

/// `--json`: each command says what it prints (`help`).
#[derive(Debug, Args, Clone, Default)]
pub struct JsonArgs {
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The help of flags a shared group declares, in the words of the command that flattens the
/// group (`#[command(mut_args(help(&[("duration", "...")])))]`): the flag is declared once,
/// and what it means is said where it is used. (`mut_args` keeps the flags' order, which `mut_arg`
/// would not: the usage line and the completions list flags in that order.)
pub(crate) fn help(texts: &'static [(&'static str, &'static str)]) -> impl FnMut(clap::Arg) -> clap::Arg {
    move |arg| match texts.iter().find(|(id, _)| arg.get_id() == *id) {
        Some((_, text)) => arg.help(*text),
        None => arg,
    }
}
