//! One blocking connection to any engine: the statements single-session workloads (the log
//! test, the large operations) send, and what spindle asks an engine about itself (version,
//! settings, its own per-file I/O statistics, checkpoints and pushing them out, caches, where its
//! files are). A
//! workload is written once against this trait; each driver implements it, and `open` picks
//! the driver once from the URL.

use crate::file_stats::FileStats;
use crate::largeops::checkpoints::PushedOut;
use crate::{ConnectionRoom, DbError, DbUrl, Engine};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A value bound to a `?` placeholder. Integers fit whichever integer column they meet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Param<'a> {
    Int(i64),
    Text(&'a str),
}

pub trait Conn {
    fn engine(&self) -> Engine;
    /// The database as shown in messages and records (any password masked).
    fn shown(&self) -> String;
    /// Runs statements that return nothing (DDL, BEGIN, COMMIT, SET), one or several.
    fn execute(&mut self, sql: &str) -> Result<(), DbError>;
    /// Runs one statement with `?` placeholders, prepared on first use and kept; returns the
    /// rows it changed.
    fn run(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError>;
    /// The first column of the first row, as text (`None` for no row or NULL).
    fn query_text(&mut self, sql: &str) -> Result<Option<String>, DbError>;
    /// Loads rows given as text, one per line, fields separated by tabs (`\N` for NULL), into
    /// `table (columns)` the fastest way the engine has from a client: `COPY FROM STDIN`,
    /// `LOAD DATA LOCAL INFILE`, or a prepared insert in SQLite. Returns the rows loaded.
    fn copy_in(&mut self, table: &str, columns: &[&str], rows: bytes::Bytes) -> Result<u64, DbError>;
    /// How many more connections the server takes (`None`: no limit, an embedded engine).
    fn room(&mut self) -> Result<Option<ConnectionRoom>, DbError>;
    /// The server's version, as it says it.
    fn version(&mut self) -> Result<String, DbError>;
    /// The settings that shape the engine's I/O (durability, log, cache, checkpoints), by
    /// name, for the run record.
    fn settings(&mut self) -> Result<BTreeMap<String, String>, DbError>;
    /// The engine's cumulative I/O on its log and data files, as it counts them itself.
    fn file_stats(&mut self) -> Result<FileStats, DbError>;
    /// Writes every dirty page now (`CHECKPOINT`, InnoDB's flush, SQLite's WAL checkpoint).
    fn checkpoint(&mut self) -> Result<(), DbError>;
    /// Empties what caches a client may empty; returns what it could not, and why.
    fn drop_caches(&mut self) -> Result<Vec<String>, DbError>;
    /// The engine's own cache by name (`SQLite's page cache`), as said once it was emptied.
    fn cache_name(&self) -> &'static str;
    /// Pushes automatic checkpoints out for a run whose manual checkpoint is timed alone: on a
    /// server spindle manages, with the statements that put its settings back; on another,
    /// only said, with the settings that decide them.
    fn push_out_checkpoints(&mut self, managed: bool) -> Result<PushedOut, DbError>;
    /// Where the log and the data are on this machine (`None` for a server elsewhere, or one
    /// that does not say).
    fn files(&mut self) -> Result<EngineFiles, DbError>;
}

/// Where an engine keeps its log and its data, when they are on this machine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineFiles {
    pub log: Option<PathBuf>,
    pub data: Option<PathBuf>,
}

/// Whether a server at `url` runs on this machine, so paths it reports are paths here.
pub(crate) fn is_local(url: &DbUrl) -> bool {
    matches!(url.host.as_deref(), None | Some("localhost" | "127.0.0.1" | "::1" | "[::1]"))
        || url.host.as_deref().is_some_and(|h| h.starts_with('/'))
}

/// Opens a connection to the database at `url` with the driver its scheme names.
/// A driver this build lacks is said by name (`built::check`).
pub fn open(url: &DbUrl) -> Result<Box<dyn Conn>, DbError> {
    crate::built::check(url)?;
    Ok(match url.engine {
        Engine::Sqlite => Box::new(crate::sqlite::SqliteConn::open(url)?),
        #[cfg(feature = "postgres")]
        Engine::Postgres => Box::new(crate::postgres::PgConn::open(url)?),
        #[cfg(feature = "mysql")]
        Engine::MySql => Box::new(crate::mysql::MySqlConn::open(url)?),
        #[cfg(not(all(feature = "postgres", feature = "mysql")))]
        _ => unreachable!("built::check refuses an engine this build lacks"),
    })
}

/// A small runtime of a blocking connection's own (`what` names it when it cannot start).
#[cfg(feature = "net")]
pub(crate) fn runtime(what: &str) -> Result<tokio::runtime::Runtime, DbError> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| DbError::Io(what.into(), e))
}

/// The statement prepared for `sql`, kept in `cache` from its first use on the connection.
#[cfg(feature = "net")]
pub(crate) fn prepared<S: Clone>(
    cache: &mut std::collections::HashMap<String, S>,
    sql: &str,
    prepare: impl FnOnce() -> Result<S, DbError>,
) -> Result<S, DbError> {
    if let Some(statement) = cache.get(sql) {
        return Ok(statement.clone());
    }
    let statement = prepare()?;
    cache.insert(sql.to_string(), statement.clone());
    Ok(statement)
}

/// `?` placeholders as PostgreSQL numbers them (`$1`, `$2`, ...). spindle's own statements
/// carry no `?` inside literals.
pub(crate) fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for c in sql.chars() {
        if c == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits a line of tab-separated text into fields, `\N` as NULL.
pub(crate) fn fields(line: &str) -> impl Iterator<Item = Option<&str>> {
    line.split('\t').map(|f| (f != "\\N").then_some(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_fields() {
        assert_eq!(numbered_placeholders("INSERT INTO t VALUES (?, ?)"), "INSERT INTO t VALUES ($1, $2)");
        assert_eq!(fields("a\t\\N\t3").collect::<Vec<_>>(), vec![Some("a"), None, Some("3")]);
        let local = |h: Option<&str>| {
            is_local(&DbUrl { host: h.map(String::from), ..crate::parse_url("postgres://x").unwrap() })
        };
        assert!(local(None) && local(Some("127.0.0.1")) && local(Some("/tmp/sock")));
        assert!(!local(Some("db1.example.com")));
    }
}
