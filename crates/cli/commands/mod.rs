//! One module per subcommand (and `batch`, the job runner that measuring commands share).

pub mod ab;
pub mod batch;
pub mod characterize;
pub mod compare;
pub mod db;
pub mod durability;
pub mod hammer;
pub mod import;
pub mod io;
pub mod largeops;
pub mod logtest;
pub mod placement;
pub mod profiles;
pub mod record;
pub mod report;
pub mod runs;
pub mod shell;
pub mod suite;
pub mod verify;
