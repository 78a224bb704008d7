//! One run measured by several agents at once (`spindle io --agents N`), on one host or many,
//! coordinated through the results store on a PostgreSQL server that every agent saves into
//! anyway: no daemon, no port, no protocol of spindle's own.
//!
//! ```text
//! io --agents N ── plan (as io) ── run row + group in the store ── launch (local | ssh |
//!     srun | --emit: the commands or a Kubernetes Job printed)
//! agent I ── join (lease, clock offset) ── prepare its files ── ready
//! coordinator ── barrier: all ready -> start_at = server now + lead ── agents sleep to
//!     start_at on their own clocks (offset applied) ── measure ── save their share
//!     ── watch: leases and heartbeats (a lost agent: run partial, the others stop)
//!     ── merge: histograms added exactly ── the merged run saved in the group
//! ```
//!
//! The API: [`Request`] (what `--agents` asked for), [`Work`] (what the agents measure),
//! [`coordinate()`] (the coordinator's whole run) and [`agent()`] (one agent's whole life), with
//! [`Caller`] for what they need from the program they run in. User mistakes are usage
//! errors (`spindle_model::usage::UsageError`), each naming its flag or file.

mod agent;
mod caller;
mod clock;
mod coordinate;
mod coordinator;
mod k8s;
mod launch;
mod merge;
mod request;
mod tally;
mod work;

pub use agent::{Joining, run as agent};
pub use caller::Caller;
pub use coordinator::{Coordinated, Coordination, run as coordinate};
pub use launch::{Launch, parse_hosts};
pub use request::Request;
pub use work::Work;

use sha2::{Digest, Sha256};

/// The name of a run of agents' group.
fn group_name(run: i64) -> String {
    format!("agents run {run}")
}

/// SHA-256 of a job's JSON, in hex: what every agent checks its job against.
fn spec_hash(spec: &str) -> String {
    Sha256::digest(spec.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
