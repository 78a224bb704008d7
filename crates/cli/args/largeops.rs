use super::{DatabaseArgs, OutputArgs, SamplerArgs, StoreArgs, help};
use clap::Args;

#[derive(Debug, Args)]
#[command(mut_args(help(&[("db", "The database: sqlite:///path/to/test.db, postgres://user@host/db \
or mysql://user@host/db. spindle creates (and drops at the end, unless --keep) a table of its own, \
spindle_customer")])))]
pub struct LargeOpsArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
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
