//! spindle's vocabulary: workload specs, units, the log-linear latency histogram and the
//! run record. Everything here is pure data and arithmetic, so every other crate can depend
//! on it without pulling in I/O, drivers or formats.

pub mod counters;
pub mod db;
pub mod db_spec;
pub mod details;
pub mod expected;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod group;
pub mod group_summary;
pub mod histogram;
pub mod kind;
pub mod merge;
pub mod origin;
pub mod over_time;
pub mod record;
mod record_v1;
pub mod rng;
pub mod series;
pub mod shell;
pub mod spec;
pub mod time;
pub mod units;
pub mod usage;
pub mod verify;

pub use details::KindData;
pub use histogram::Histogram;
pub use kind::{ImportedSpec, Origin, Recorded, RunKind, Unrecorded};
pub use record::RunRecord;
