//! The one runner every workload goes through:
//!
//! ```text
//! plan (the command's) -> Workload::prepare (files, tables, instances) -> Workload::measure
//!   (the gate and the harness: counters, CPU, exact volume totals, environment) -> record
//!   -> saved at once (Saver) -> the next step
//! ```
//!
//! Workloads ([`Workload`]: an I/O job, Hammer's load and run, the log test, the large
//! operations) are one axis; engines are the other, chosen inside the workload once (the I/O
//! engine by the job, the database driver by the URL), so no caller matches on an engine. An
//! experiment says which workload runs which step in which order: a [`experiment::series`]
//! (repeats, a sweep, a suite, session counts, transaction sizes) or an [`experiment::ab`] in
//! balanced rounds, whose runs are then compared pair by pair, one comparison per part and
//! point.

pub mod compared;
pub mod end;
pub mod experiment;
pub mod harness;
pub mod observer;
pub mod saver;
pub mod workload;

pub use end::{Outcome, RunEnd};
pub use observer::Observer;
pub use saver::Saver;
pub use workload::{Context, Measured, Workload};
