//! spindle's I/O engine. A job's targets are prepared (test files created or checked), then
//! each target's threads run a worker loop over an engine chosen once per job; workers own
//! their statistics and the collector merges them into a run record at the end.

pub mod collect;
pub mod durability;
pub mod engine;
pub mod live;
pub mod pattern;
pub mod payload;
/// The PRNG lives in the model crate, shared with the database workloads.
pub use spindle_model::rng;
pub mod run;
pub mod target;
pub mod verify;
pub mod worker;
