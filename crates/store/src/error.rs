//! What can go wrong with the store; every message names the store (a file, or a database
//! URL with its password masked).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{store} is not a spindle results store (it is {what}); pass another --store")]
    NotAStore { store: String, what: String },
    #[error(
        "{store} was written by a newer spindle (store schema {found}; this spindle reads up to {known}); upgrade spindle or pass another --store"
    )]
    Newer { store: String, found: i64, known: i64 },
    #[error("cannot create the store's directory {dir}: {source}")]
    Directory { dir: PathBuf, source: std::io::Error },
    #[error("cannot create the store {path}: {source}")]
    Create { path: PathBuf, source: std::io::Error },
    #[error("no run {0} in the store")]
    NoSuchRun(i64),
    #[error("no group {0} in the store (spindle runs list shows each run's group)")]
    NoSuchGroup(i64),
    #[error("run {id} in the store cannot be read ({why})")]
    Corrupt { id: i64, why: String },
    #[error("group {id} in the store is of a kind this spindle does not know, '{kind}'")]
    UnknownGroupKind { id: i64, kind: String },
    /// The database under the store failed a statement (SQLite's or the server's words).
    #[error("results store {store}: {cause}")]
    Database { store: String, cause: String },
    /// A file of the store is immutable (`chattr +i`): nothing can be written to it.
    #[error(
        "results store {store}: {file} is immutable (chattr +i), so nothing can be saved in the store; `chattr -i {file}` lets spindle write to it again"
    )]
    Immutable { store: String, file: PathBuf },
    /// The store's server cannot be reached, or this build lacks its driver.
    #[error("results store {store}: {cause}")]
    Unreachable { store: String, cause: String },
}
