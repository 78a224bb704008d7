//! What a Hammer load is asked and what it did, whichever engine loads it.

#[cfg(feature = "net")]
mod chunks;
mod record;
#[cfg(feature = "net")]
pub(crate) mod server;

#[cfg(feature = "net")]
pub(crate) use chunks::drive_chunks;
pub use record::load_record;

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
    /// Stopped before all rows: Ctrl-C, or `failure`.
    pub interrupted: bool,
    /// What cut the load short (a full disk, a server gone away): the rows committed before it
    /// are the outcome's, and `--resume` loads the rest.
    pub failure: Option<LoadFailure>,
}

/// Why a load stopped before all its rows, kept with the rows it committed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadFailure {
    /// The error, in words.
    pub why: String,
    /// The database's storage was full.
    pub out_of_space: bool,
    /// Every row was in: what failed is what completes a load (PostgreSQL's primary key).
    pub completing: bool,
}

impl LoadFailure {
    pub fn of(e: &crate::DbError) -> LoadFailure {
        LoadFailure { why: e.to_string(), out_of_space: e.is_out_of_space(), completing: false }
    }

    /// A failure once every row is in, as the load is completed.
    pub fn completing(e: &crate::DbError) -> LoadFailure {
        LoadFailure { completing: true, ..LoadFailure::of(e) }
    }
}

/// What a database holds before a load: nothing yet, spindle's Hammer table (with its row
/// count), or a table of the same name that is not spindle's.
#[derive(Debug, PartialEq)]
pub(crate) enum Contents {
    Empty,
    Hammer { rows: u64 },
    Other,
}

/// How a load begins, from what is there and the mode asked for.
#[derive(Debug, PartialEq)]
pub(crate) enum Start {
    /// Create the tables (none is there).
    Create,
    /// Drop spindle's tables, then create them.
    Replace,
    /// Keep the rows there and load the rest.
    Resume(u64),
}

/// The same rules for every engine: a table that is not spindle's is never touched, a
/// loaded one is only replaced or continued when asked.
pub(crate) fn start(found: Contents, mode: LoadMode, db: &str) -> Result<Start, crate::DbError> {
    match (found, mode) {
        (Contents::Other, _) => Err(crate::DbError::NotOurs { db: db.to_string() }),
        (Contents::Hammer { rows }, LoadMode::New) if rows > 0 => {
            Err(crate::DbError::AlreadyLoaded { db: db.to_string(), rows })
        }
        (Contents::Hammer { rows }, LoadMode::Resume) => Ok(Start::Resume(rows)),
        (Contents::Hammer { .. }, _) => Ok(Start::Replace),
        (Contents::Empty, _) => Ok(Start::Create),
    }
}

/// The outcome of a chunked load once its rows are counted: interrupted when stopped or
/// short; the last second's count loses the rows of a chunk that was rolled back.
pub(crate) fn chunked_outcome(
    rows_before: u64,
    rows: u64,
    committed: u64,
    (mut per_second, reported): (Vec<u64>, u64),
    elapsed: Duration,
    stopped: bool,
    failure: Option<LoadFailure>,
) -> LoadOutcome {
    if let Some(last) = per_second.last_mut() {
        *last = last.saturating_sub((rows_before + reported).saturating_sub(committed));
    }
    LoadOutcome {
        rows_before,
        rows_loaded: committed.saturating_sub(rows_before),
        elapsed,
        per_second,
        interrupted: stopped || committed < rows || failure.is_some(),
        failure,
    }
}
