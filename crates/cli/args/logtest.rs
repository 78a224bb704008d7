use super::{DatabaseArgs, OutputArgs, SamplerArgs, StoreArgs, help};
use clap::Args;

#[derive(Debug, Args)]
#[command(mut_args(help(&[("db", "The database: sqlite:///path/to/test.db, postgres://user@host/db \
or mysql://user@host/db. spindle creates (and drops at the end) a table of its own, spindle_logtest")])))]
pub struct LogTestArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Rows inserted at each transaction size (K, M are powers of 1000) [default: 100000].
    #[arg(long)]
    pub rows: Option<String>,
    /// Transaction sizes in rows, each a run [default: 1,10,100,1000,10000,100000].
    #[arg(long, value_name = "N[,N...]")]
    pub batch: Option<String>,
    /// Bytes of each row's payload, as the original's char(4000) [default: 4000].
    #[arg(long, value_name = "BYTES")]
    pub row_bytes: Option<String>,
    /// Pause before and after the checkpoint that precedes each size [default: 5s].
    #[arg(long, value_name = "DURATION")]
    pub settle: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub sampler: SamplerArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}
