use super::StoreArgs;
use clap::Args;
use std::path::PathBuf;

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
    /// A long battery (about 22 minutes): more depths, longer steps, a larger test file, and a
    /// 10-minute sustained step.
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
    /// What the volume was provisioned to deliver, e.g. 3000iops,125MB/s (MiB/s and GB/s too):
    /// the check says whether it delivers them, at which depth and latency; short of 90% of a
    /// figure is a problem (with --strict, exit 1).
    #[arg(long, value_name = "RATES")]
    pub expect: Option<String>,
    /// Hold page reads this long at the end, to see a cloud volume's burst run out: burst
    /// length, burst and sustained rates [default: off with --quick, 2m, 10m with --thorough;
    /// `off` leaves it out].
    #[arg(long, value_name = "DURATION")]
    pub sustain: Option<String>,
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
