//! Hammer's procedures on SQLite, as prepared statements on one connection. Updates take the
//! write lock up front (`BEGIN IMMEDIATE`), so concurrent writers queue on the busy timeout
//! instead of deadlocking on a lock upgrade; a call still busy after it counts as an error.

use super::{contents, open, shown};
use crate::DbError;
use crate::load::Contents;
use crate::session::{CallError, Session};
use rusqlite::{Connection, ErrorCode};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct SqliteSession {
    conn: Connection,
}

/// Rows loaded in the Hammer database at `path`; an error when there is none to hammer.
pub fn loaded_rows(path: &Path) -> Result<u64, DbError> {
    if !path.is_file() {
        return Err(DbError::NotLoaded { db: shown(path) });
    }
    match contents(&open(path)?, path)? {
        Contents::Hammer { rows } if rows > 0 => Ok(rows),
        Contents::Other => Err(DbError::NotOurs { db: shown(path) }),
        _ => Err(DbError::NotLoaded { db: shown(path) }),
    }
}

/// Times SQLite sessions of this process waited for another's lock: SQLite's only lock-wait
/// figure, read by the counter sampler.
static BUSY_RETRIES: AtomicU64 = AtomicU64::new(0);

pub fn busy_retries() -> u64 {
    BUSY_RETRIES.load(Ordering::Relaxed)
}

/// Waits and retries as busy_timeout would (up to about 30 s), counting every retry.
fn on_busy(attempt: i32) -> bool {
    BUSY_RETRIES.fetch_add(1, Ordering::Relaxed);
    std::thread::sleep(std::time::Duration::from_micros(if attempt < 10 { 100 } else { 1000 }));
    attempt < 30_000
}

impl SqliteSession {
    pub fn connect(path: &Path) -> Result<SqliteSession, DbError> {
        let conn = open(path)?;
        let sql = |source| DbError::Sqlite { db: shown(path), source };
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;").map_err(sql)?;
        conn.busy_handler(Some(on_busy)).map_err(sql)?;
        Ok(SqliteSession { conn })
    }
}

fn call_error(e: rusqlite::Error) -> CallError {
    let kind = match &e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::DatabaseBusy => "busy",
            ErrorCode::DatabaseLocked => "locked",
            ErrorCode::SystemIoFailure => "io",
            ErrorCode::DiskFull => "disk full",
            _ => "sqlite",
        },
        rusqlite::Error::QueryReturnedNoRows => "no such row",
        _ => "sqlite",
    };
    CallError { kind: kind.into(), message: e.to_string() }
}

impl Session for SqliteSession {
    fn get_account(&mut self, card_no: &str) -> Result<(), CallError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT ChargeDate, Amount FROM TestTransaction WHERE CardNo = ?1")
            .map_err(call_error)?;
        stmt.query_row([card_no], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))).map_err(call_error)?;
        Ok(())
    }

    fn update_account(&mut self, card_no: &str, amount: i64) -> Result<(), CallError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(call_error)?;
        let n = tx
            .prepare_cached(
                "UPDATE TestTransaction SET Amount = Amount + ?1, ChargeDate = datetime('now') WHERE CardNo = ?2",
            )
            .and_then(|mut s| s.execute(rusqlite::params![amount, card_no]))
            .map_err(call_error)?;
        if n != 1 {
            return Err(CallError { kind: "no such row".into(), message: format!("no row with CardNo {card_no}") });
        }
        tx.commit().map_err(call_error)
    }
}
