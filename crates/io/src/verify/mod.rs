//! Data verification (`spindle io --verify`, `spindle verify`): every written sector stamped
//! with the run, its offset, its write's generation and a checksum; every sector read checked
//! against the generation map of what the run last wrote there; whole files checked after the
//! run, from the stamps and the write state the run kept beside the target.

mod against;
mod cells;
pub mod check;
pub mod map;
pub mod saver;
pub mod scan;
pub mod stamp;
pub mod state;
