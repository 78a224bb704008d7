//! What a run of agents needs from the program it runs in (the command line), handed in so
//! this crate knows nothing of its flags, its console or its signal handling.

use spindle_db::DbUrl;
use spindle_runner::Observer;
use spindle_store::Location;
use std::sync::atomic::AtomicBool;

pub trait Caller: Sync {
    /// The flag the user's stop (Ctrl-C) raises; asked for only when first watched.
    fn stop_flag(&self) -> &'static AtomicBool;
    /// Whether the user asked to stop (as opposed to a stop raised by the work itself).
    fn stop_requested(&self) -> fn() -> bool;
    /// The command line as recorded in a run (passwords masked).
    fn command_line(&self) -> Vec<String>;
    /// A database URL as the user's own clients read it (its password from their variable).
    fn db_url(&self, text: &str) -> anyhow::Result<DbUrl>;
    /// Says how the coordinator is getting on (unless the user asked for quiet).
    fn say(&self, text: &str);
    /// Writes what starts the agents (`--emit`) and ends standard output, so what reads it
    /// (`kubectl apply -f -`) goes on while the coordinator waits.
    fn emit(&self, text: &str) -> anyhow::Result<()>;
    /// What an agent's share tells as it runs: only what it saved, quietly.
    fn observer(&self, store: &Location) -> Box<dyn Observer + '_>;
}
