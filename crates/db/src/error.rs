//! What can go wrong in the database layer; messages name the database (with any password
//! masked) and say what to change.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("{db}: the directory for the database does not exist")]
    NoDirectory { db: String },
    #[error(
        "{db}: holds a table named testtransaction that is not spindle's (no spindle_hammer beside it); it is left alone: point --db at another database"
    )]
    NotOurs { db: String },
    #[error("{db}: already holds {rows} loaded rows; pass --resume to continue to --rows, or --fresh to start clean")]
    AlreadyLoaded { db: String, rows: u64 },
    #[error("{db}: no Hammer table; run `spindle hammer load --db {db}` first")]
    NotLoaded { db: String },
    #[error("{db}: {source}")]
    Sqlite {
        db: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("a session thread panicked")]
    Panic,
    /// A session's thread could not be started (the system's limit on threads or memory):
    /// the run stops before it measures.
    #[error(
        "could not start a thread for session {} of {sessions} ({started} started, stopped before measuring): {cause}", started + 1
    )]
    SessionThread { started: u32, sessions: u32, cause: std::io::Error },
    #[error("{db}: cannot connect: {cause}; {hint}")]
    Connect { db: String, cause: String, hint: String },
    #[error("{db}: {cause}")]
    Server { db: String, cause: String },
    #[error("{what}: {why}")]
    Managed { what: String, why: String },
    /// This build of spindle lacks what the database needs (a driver, TLS).
    #[error(
        "{db}: this spindle was built without {what} (cargo feature `{feature}`); build it with `cargo build --release --features {feature}`, or with the default features"
    )]
    NotBuilt { db: String, what: &'static str, feature: &'static str },
    /// A database the workload cannot be run on as named (an SQLite URL without a file).
    #[error("{db}: {why}")]
    Unusable { db: String, why: String },
}

/// The shared connection's failures, as the variants that already say them.
impl From<spindle_connect::ConnectError> for DbError {
    fn from(e: spindle_connect::ConnectError) -> DbError {
        match e {
            spindle_connect::ConnectError::Refused { db, cause, hint } => DbError::Connect { db, cause, hint },
            spindle_connect::ConnectError::NotBuilt { db, what, feature } => DbError::NotBuilt { db, what, feature },
        }
    }
}

impl DbError {
    /// Whether the database's storage was full (SQLite's "database or disk is full", a file
    /// write that met ENOSPC).
    pub fn is_out_of_space(&self) -> bool {
        match self {
            DbError::Sqlite { source: rusqlite::Error::SqliteFailure(f, _), .. } => {
                f.code == rusqlite::ErrorCode::DiskFull
            }
            DbError::Io(_, e) => e.raw_os_error() == Some(libc::ENOSPC),
            _ => false,
        }
    }
}
