//! SQLite behind the blocking `Conn`: a connection opened through spindle's counting VFS, so
//! the log (the WAL, or the rollback journal) and the database file have I/O statistics of
//! their own, as a server's are.

use super::{open_counted, shown};
use crate::conn::{Conn, EngineFiles, Param, fields};
use crate::file_stats::FileStats;
use crate::largeops::checkpoints::PushedOut;
use crate::{ConnectionRoom, DbError, DbUrl, Engine};
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Pragmas that shape how SQLite writes, for the record.
const SETTINGS: [&str; 6] =
    ["journal_mode", "synchronous", "page_size", "cache_size", "wal_autocheckpoint", "locking_mode"];

pub struct SqliteConn {
    path: PathBuf,
    /// Declared before `counts`: the connection closes before its VFS is unregistered.
    conn: Connection,
    counts: super::vfs::Counted,
}

impl SqliteConn {
    pub fn open(url: &DbUrl) -> Result<SqliteConn, DbError> {
        let path = url.path.clone().ok_or_else(|| DbError::NoDirectory { db: url.to_string() })?;
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !parent.is_dir() {
            return Err(DbError::NoDirectory { db: shown(&path) });
        }
        let (conn, counts) = open_counted(&path)?;
        Ok(SqliteConn { path, conn, counts })
    }

    fn sql(&self) -> impl Fn(rusqlite::Error) -> DbError + '_ {
        |source| DbError::Sqlite { db: shown(&self.path), source }
    }
}

fn to_sql<'a>(p: &'a Param<'a>) -> &'a dyn rusqlite::ToSql {
    match p {
        Param::Int(i) => i,
        Param::Text(s) => s,
    }
}

impl Conn for SqliteConn {
    fn engine(&self) -> Engine {
        Engine::Sqlite
    }

    fn shown(&self) -> String {
        shown(&self.path)
    }

    fn execute(&mut self, sql: &str) -> Result<(), DbError> {
        self.conn.execute_batch(sql).map_err(self.sql())
    }

    fn run(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError> {
        let values: Vec<&dyn rusqlite::ToSql> = params.iter().map(to_sql).collect();
        let n = self.conn.prepare_cached(sql).and_then(|mut s| s.execute(values.as_slice())).map_err(self.sql())?;
        Ok(n as u64)
    }

    fn query_text(&mut self, sql: &str) -> Result<Option<String>, DbError> {
        let mut stmt = self.conn.prepare(sql).map_err(self.sql())?;
        let mut rows = stmt.query([]).map_err(self.sql())?;
        let Some(row) = rows.next().map_err(self.sql())? else { return Ok(None) };
        let value: rusqlite::types::Value = row.get(0).map_err(self.sql())?;
        Ok(match value {
            rusqlite::types::Value::Null => None,
            rusqlite::types::Value::Integer(i) => Some(i.to_string()),
            rusqlite::types::Value::Real(r) => Some(r.to_string()),
            rusqlite::types::Value::Text(t) => Some(t),
            rusqlite::types::Value::Blob(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        })
    }

    fn copy_in(&mut self, table: &str, columns: &[&str], rows: bytes::Bytes) -> Result<u64, DbError> {
        let text =
            std::str::from_utf8(&rows).map_err(|e| DbError::Server { db: self.shown(), cause: e.to_string() })?;
        let marks = vec!["?"; columns.len()].join(", ");
        let sql = format!("INSERT INTO {table} ({}) VALUES ({marks})", columns.join(", "));
        let db = self.shown();
        let tx = self.conn.unchecked_transaction().map_err(|source| DbError::Sqlite { db: db.clone(), source })?;
        let mut n = 0;
        {
            let mut insert = tx.prepare_cached(&sql).map_err(|source| DbError::Sqlite { db: db.clone(), source })?;
            for line in text.lines().filter(|l| !l.is_empty()) {
                let values: Vec<Option<&str>> = fields(line).collect();
                if values.len() != columns.len() {
                    return Err(DbError::Server {
                        db,
                        cause: format!("a row has {} fields for {} columns", values.len(), columns.len()),
                    });
                }
                insert
                    .execute(rusqlite::params_from_iter(values))
                    .map_err(|source| DbError::Sqlite { db: db.clone(), source })?;
                n += 1;
            }
        }
        tx.commit().map_err(|source| DbError::Sqlite { db, source })?;
        Ok(n)
    }

    fn room(&mut self) -> Result<Option<ConnectionRoom>, DbError> {
        Ok(None)
    }

    fn version(&mut self) -> Result<String, DbError> {
        Ok(format!("SQLite {}", rusqlite::version()))
    }

    fn settings(&mut self) -> Result<BTreeMap<String, String>, DbError> {
        let mut out = BTreeMap::new();
        for name in SETTINGS {
            if let Some(v) = self.query_text(&format!("PRAGMA {name}"))? {
                out.insert(name.to_string(), v);
            }
        }
        Ok(out)
    }

    fn file_stats(&mut self) -> Result<FileStats, DbError> {
        let mode = self.query_text("PRAGMA journal_mode")?.unwrap_or_default();
        let (log, data) = self.counts.snapshot().log_and_data(&mode);
        let wal = mode.eq_ignore_ascii_case("wal");
        // A frame is its 24-byte header and a page; the WAL's own 32-byte header, written
        // once each time the WAL starts over, is less than a frame.
        let page: Option<u64> = self.query_text("PRAGMA page_size")?.and_then(|p| p.parse().ok());
        let frames = page.filter(|_| wal).zip(log.bytes_written).map(|(p, b)| b / (p + 24));
        Ok(FileStats {
            log,
            data,
            source: format!("spindle's counting VFS (journal_mode {mode})"),
            missing: Vec::new(),
            notes: vec![
                "a write is SQLite's calls that continue one another up to a sync, as they reach the file: a commit's frames (each its header and its page) are one".into(),
            ],
            checkpoints: None,
            log_writes_are: if wal { "WAL writes" } else { "journal writes" },
            log_bytes_are: if wal { "WAL written" } else { "journal written" },
            log_frames: frames,
        })
    }

    fn checkpoint(&mut self) -> Result<(), DbError> {
        // In WAL mode, fold the WAL into the database and empty it; otherwise every commit
        // already wrote the database file.
        self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).map_err(self.sql())
    }

    fn drop_caches(&mut self) -> Result<Vec<String>, DbError> {
        self.execute("PRAGMA shrink_memory")?;
        Ok(Vec::new())
    }

    fn cache_name(&self) -> &'static str {
        "SQLite's page cache"
    }

    /// The run's own connection, on no server to manage: the pragma ends with it, nothing to
    /// put back.
    fn push_out_checkpoints(&mut self, _managed: bool) -> Result<PushedOut, DbError> {
        self.execute("PRAGMA wal_autocheckpoint = 0")?;
        let note = "SQLite's automatic WAL checkpoints are off for the run (wal_autocheckpoint 0)";
        Ok(PushedOut { notes: vec![note.into()], restore: Vec::new() })
    }

    fn files(&mut self) -> Result<EngineFiles, DbError> {
        let data = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        // The log sits beside the database: `-wal` or `-journal`.
        Ok(EngineFiles { log: data.parent().map(Path::to_path_buf), data: Some(data) })
    }
}
