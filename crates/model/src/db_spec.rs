//! The settings a database run ran with, as its record echoes them: the database (its URL as
//! shown, passwords masked), the engine, and each workload's own knobs. Named as in the JSON
//! of schema v1, so records of v1 read into them unchanged.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A Database Hammer run (`hammer run`), one session count.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HammerSpec {
    /// The database's URL, masked.
    pub db: String,
    /// `sqlite`, `postgres` or `mysql`.
    pub engine: String,
    /// Rows of the table the calls pick from.
    pub rows: u64,
    pub sessions: u32,
    /// Percent of calls that are GetAccount (the rest UpdateAccount).
    pub read_pct: u8,
    pub duration_ns: u64,
    pub warmup_ns: u64,
    pub think_ns: u64,
    /// Calls per second each session was held to, under `--rate`.
    pub rate_per_session: Option<f64>,
    /// How long connecting every session took (not measured).
    pub ramp_up_ns: u64,
    /// What a commit waits for on this engine and its settings, in words (absent in records
    /// from before it was said).
    #[serde(default)]
    pub durability: Option<String>,
    /// The server settings of an instance spindle started for the run (a `[database.settings]`
    /// of `spindle ab`), so what one side changed is in its runs; empty otherwise.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub settings: std::collections::BTreeMap<String, String>,
}

/// Database Hammer's table loaded (`hammer load`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadSpec {
    pub db: String,
    pub engine: String,
    /// Rows the table was to hold.
    pub rows: u64,
    /// Rows already there when the load started (a resumed load).
    pub rows_before: u64,
}

/// One transaction size of the log test (`logtest`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LogTestSpec {
    pub db: String,
    pub engine: String,
    /// As the server reports it.
    pub server_version: String,
    /// The engine's settings that decide what a commit costs.
    pub settings: BTreeMap<String, String>,
    /// Rows inserted at each transaction size.
    pub rows: u64,
    pub row_bytes: u64,
    /// Rows committed together in this run.
    pub transaction_size: u64,
}

/// One of the large operations (`largeops`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LargeOpSpec {
    pub db: String,
    pub engine: String,
    pub server_version: String,
    pub settings: BTreeMap<String, String>,
    /// `load`, `scan`, `update` or `checkpoint`.
    pub operation: String,
    /// Customers in the table.
    pub rows: u64,
    /// Rows a load batch commits together.
    pub batch: u64,
}
