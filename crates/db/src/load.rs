//! What a Hammer load is asked and what it did, whichever engine loads it.

use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadMode {
    /// The database must not hold a Hammer table yet.
    New,
    /// Drop a Hammer table that is there and load from scratch.
    Fresh,
    /// Keep the rows that are there and load the rest.
    Resume,
}

#[derive(Clone, Debug)]
pub struct LoadOptions {
    pub rows: u64,
    pub mode: LoadMode,
}

#[derive(Clone, Debug, Default)]
pub struct LoadOutcome {
    /// Rows already there (a resumed load).
    pub rows_before: u64,
    pub rows_loaded: u64,
    pub elapsed: Duration,
    /// Rows loaded in each whole second.
    pub per_second: Vec<u64>,
    pub interrupted: bool,
}
