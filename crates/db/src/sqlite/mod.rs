//! The SQLite driver: the embedded default, a database file in a directory you name. Hammer's
//! table is a `WITHOUT ROWID` table, so it is clustered on CardNo as the original's
//! `PRIMARY KEY CLUSTERED` was; its procedures are prepared statements.

mod conn;
mod load;
mod session;
pub mod vfs;

pub use conn::SqliteConn;
pub use load::load;
pub use session::{SqliteSession, busy_retries, loaded_rows};

use crate::DbError;
use crate::load::Contents;
use rusqlite::Connection;
use std::path::Path;
use std::time::Duration;

/// Hammer's table: `TestTransaction(CardNo char(15) primary key clustered, ChargeDate
/// datetime, Amount money)`. ChargeDate is ISO text, SQLite's datetime convention; Amount
/// is an integer of 1/10000 units, money's scale, so sums stay exact.
pub(crate) const CREATE_TABLE: &str = "CREATE TABLE IF NOT EXISTS TestTransaction (
    CardNo TEXT NOT NULL PRIMARY KEY,
    ChargeDate TEXT NOT NULL,
    Amount INTEGER NOT NULL
) WITHOUT ROWID";

/// Marks a database as spindle's Hammer database, and keeps what was loaded into it.
pub(crate) const CREATE_MARKER: &str =
    "CREATE TABLE IF NOT EXISTS spindle_hammer (key TEXT PRIMARY KEY, value TEXT NOT NULL)";

pub(crate) fn shown(path: &Path) -> String {
    format!("sqlite://{}", path.display())
}

pub(crate) fn open(path: &Path) -> Result<Connection, DbError> {
    let db = shown(path);
    let conn = Connection::open(path).map_err(|source| DbError::Sqlite { db: db.clone(), source })?;
    // Sessions wait for one another's write locks instead of failing at once.
    conn.busy_timeout(Duration::from_secs(30)).map_err(|source| DbError::Sqlite { db, source })?;
    Ok(conn)
}

/// Opens the database at `path` through a counting VFS of its own, so the I/O SQLite asks
/// of each of its files is counted (`vfs`); the connection must be dropped before the counts.
pub(crate) fn open_counted(path: &Path) -> Result<(Connection, vfs::Counted), DbError> {
    let db = shown(path);
    let counted = vfs::register().map_err(|cause| DbError::Server { db: db.clone(), cause })?;
    let conn = Connection::open_with_flags_and_vfs(path, rusqlite::OpenFlags::default(), counted.name.as_str())
        .map_err(|source| DbError::Sqlite { db: db.clone(), source })?;
    conn.busy_timeout(Duration::from_secs(30)).map_err(|source| DbError::Sqlite { db, source })?;
    Ok((conn, counted))
}

pub(crate) fn contents(conn: &Connection, path: &Path) -> Result<Contents, DbError> {
    let sql = |source| DbError::Sqlite { db: shown(path), source };
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(sql)?;
    if tables.is_empty() {
        return Ok(Contents::Empty);
    }
    if !tables.iter().any(|t| t == "spindle_hammer") || !tables.iter().any(|t| t == "TestTransaction") {
        return Ok(Contents::Other);
    }
    let rows: i64 = conn.query_row("SELECT count(*) FROM TestTransaction", [], |r| r.get(0)).map_err(sql)?;
    Ok(Contents::Hammer { rows: rows.max(0) as u64 })
}
