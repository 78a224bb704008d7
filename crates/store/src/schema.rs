//! The store's layout and its versions. A store is an SQLite file whose `application_id` is
//! spindle's and whose `user_version` is the schema version; each migration moves it one
//! version up inside a transaction, so a store is never left half-migrated.

use crate::StoreError;
use rusqlite::{Connection, Transaction};
use std::path::Path;

/// "SPDL": marks an SQLite file as a spindle store (`PRAGMA application_id`).
pub const APPLICATION_ID: i64 = 0x5350_444C;

/// One step of a store's layout: SQL, or a rewrite of what is stored.
enum Step {
    Sql(&'static str),
    Rewrite(fn(&Transaction<'_>) -> rusqlite::Result<()>),
}

/// Migrations in order; the store's schema version is how many have been applied.
const MIGRATIONS: &[Step] = &[
    // 1: runs with their summary columns (what `runs list` and `compare` read without
    // parsing JSON), labels for selection, groups (repeats, sweeps, suites), and the full run
    // record as JSON in its own table so listing never reads it.
    Step::Sql(
        "CREATE TABLE groups (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        summary TEXT
    );
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        started_at TEXT NOT NULL,
        measured_seconds REAL NOT NULL,
        hostname TEXT NOT NULL,
        spindle_version TEXT NOT NULL,
        workload TEXT NOT NULL,
        group_id INTEGER REFERENCES groups(id) ON DELETE SET NULL,
        point TEXT,
        repeat INTEGER NOT NULL,
        ios INTEGER NOT NULL,
        iops REAL NOT NULL,
        bytes_per_sec REAL NOT NULL,
        latency_mean_ns REAL NOT NULL,
        latency_p50_ns INTEGER NOT NULL,
        latency_p99_ns INTEGER NOT NULL,
        latency_p99_9_ns INTEGER NOT NULL,
        latency_max_ns INTEGER NOT NULL,
        cpu_us_per_io REAL NOT NULL,
        errors INTEGER NOT NULL
    );
    CREATE INDEX runs_started_at ON runs(started_at);
    CREATE INDEX runs_group ON runs(group_id);
    CREATE TABLE labels (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
    ) WITHOUT ROWID;
    CREATE INDEX labels_key_value ON labels(key, value);
    CREATE TABLE records (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        schema TEXT NOT NULL,
        json TEXT NOT NULL
    );",
    ),
    // 2: every record in the current record schema (v2: the kind's data typed in `details`).
    Step::Rewrite(crate::records_v2::rewrite),
];

/// The schema version this spindle writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// What an opened SQLite file turned out to be.
#[derive(Debug, PartialEq)]
pub(crate) enum Found {
    /// A spindle store at this schema version.
    Store(i64),
    /// An empty database (a new or zero-length file): free to become a store.
    Empty,
}

/// Identifies the file without changing it. The application id, the version and the tables
/// are read in one statement, so from one snapshot: another spindle creating the store at the
/// same moment is seen before its first step or after it, never halfway (which would look
/// like another program's database).
pub(crate) fn inspect(conn: &Connection, path: &Path) -> Result<Found, StoreError> {
    let identity = conn.query_row(
        "SELECT (SELECT application_id FROM pragma_application_id), \
                (SELECT user_version FROM pragma_user_version), \
                (SELECT count(*) FROM sqlite_master)",
        [],
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)),
    );
    let (app, version, tables) = match identity {
        Ok(found) => found,
        Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::NotADatabase => {
            return Err(StoreError::NotAStore { path: path.into(), what: "not an SQLite database".into() });
        }
        Err(source) => return Err(StoreError::Sqlite { path: path.into(), source }),
    };
    if app == APPLICATION_ID {
        if version > SCHEMA_VERSION {
            return Err(StoreError::Newer { path: path.into(), found: version, known: SCHEMA_VERSION });
        }
        return Ok(Found::Store(version));
    }
    if app == 0 && tables == 0 && version == 0 {
        return Ok(Found::Empty);
    }
    let what = if app == 0 {
        "an SQLite database of another program".to_string()
    } else {
        format!("an SQLite database of another program (application id {app:#x})")
    };
    Err(StoreError::NotAStore { path: path.into(), what })
}

/// Brings a store (or an empty database) from `from` to `SCHEMA_VERSION`, each step in its
/// own transaction with the version bump. Each step takes the write lock first and reads the
/// version again under it: several spindles creating one new store at once apply each step
/// once, the others finding it done.
pub(crate) fn migrate(conn: &mut Connection, from: i64, path: &Path) -> Result<(), StoreError> {
    let sql = |source| StoreError::Sqlite { path: path.into(), source };
    for (i, step) in MIGRATIONS.iter().enumerate().skip(from as usize) {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(sql)?;
        let now: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(sql)?;
        if now > i as i64 {
            continue;
        }
        match step {
            Step::Sql(text) => tx.execute_batch(text),
            Step::Rewrite(rewrite) => rewrite(&tx),
        }
        .map_err(sql)?;
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {};", i + 1))
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
    }
    Ok(())
}
