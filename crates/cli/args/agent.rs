use super::StoreArgs;
use clap::Args;

#[derive(Debug, Args)]
#[command(
    after_help = "Started by `spindle io --agents N --launch ...`, or by what --emit printed. The store's URL comes from\n\
SPINDLE_STORE (kept out of the arguments, where any user's `ps` would see a password)."
)]
pub struct AgentArgs {
    /// The run of agents to join (its id, as `spindle io --agents` printed it).
    #[arg(long, value_name = "ID")]
    pub run: i64,
    /// Which agent this is, 0 to N-1 [default: $JOB_COMPLETION_INDEX, else $SLURM_PROCID].
    #[arg(long, value_name = "I")]
    pub index: Option<u32>,
    #[command(flatten)]
    pub store: StoreArgs,
}
