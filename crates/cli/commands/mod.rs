//! One module per subcommand; the measuring ones parse, plan and hand over to the runner
//! (`spindle_runner`, through crate::runner).

pub mod ab;
pub mod agents;
pub mod characterize;
pub mod check;
pub mod compare;
pub mod db;
pub mod durability;
pub mod hammer;
pub mod import;
pub mod io;
pub mod largeops;
pub mod logtest;
pub mod orders;
pub mod placement;
pub mod profiles;
pub mod record;
pub mod report;
pub mod runs;
pub mod serve;
pub mod shell;
pub mod suite;
pub mod verify;
