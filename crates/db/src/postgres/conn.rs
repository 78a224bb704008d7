//! PostgreSQL behind the blocking `Conn`: one client on a runtime of its own. The log's
//! figures come from `pg_stat_wal` (and times where `track_wal_io_timing` is on); the data
//! files' from `pg_stat_database` reads and the buffers written by checkpoints, the
//! background writer and backends (`pg_stat_bgwriter`), as PostgreSQL 15 counts them.

use super::{connect, sql_error};
use crate::conn::{Conn, EngineFiles, Param, is_local, numbered_placeholders, prepared, runtime};
use crate::file_stats::{FileIo, FileStats};
use crate::largeops::checkpoints::{self, PushedOut, Pushing, quoted};
use crate::{ConnectionRoom, DbError, DbUrl, Engine};
use bytes::BytesMut;
use futures_util::SinkExt;
use std::collections::{BTreeMap, HashMap};
use std::error::Error;
use std::path::PathBuf;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Client, Statement};

/// Settings that shape how PostgreSQL writes, for the record.
const SETTINGS: [&str; 13] = [
    "fsync",
    "synchronous_commit",
    "wal_sync_method",
    "wal_level",
    "full_page_writes",
    "wal_buffers",
    "wal_writer_delay",
    "commit_delay",
    "shared_buffers",
    "checkpoint_timeout",
    "max_wal_size",
    "track_wal_io_timing",
    "block_size",
];

/// Automatic checkpoints pushed out on a managed server with ALTER SYSTEM (kept in
/// postgresql.auto.conf), so none comes before the timed one.
const PUSHING: Pushing = Pushing {
    shown: &["checkpoint_timeout", "max_wal_size"],
    settings: &[("checkpoint_timeout", "1d"), ("max_wal_size", "100GB")],
    set: |name, value| format!("ALTER SYSTEM SET {name} = {}", quoted(value)),
    restore: auto_conf_restore,
    apply: Some("SELECT pg_reload_conf()"),
    note: "automatic checkpoints pushed out: checkpoint_timeout 1d, max_wal_size 100GB",
};

/// What puts `name` back: the value an earlier ALTER SYSTEM left in postgresql.auto.conf, or a
/// reset. An instance spindle started keeps its own settings in another file, so most often
/// a reset.
fn auto_conf_restore(conn: &mut dyn Conn, name: &str) -> Result<Option<String>, DbError> {
    let sql = format!(
        "SELECT setting FROM pg_file_settings WHERE name = '{name}' \
         AND sourcefile LIKE '%postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1"
    );
    Ok(Some(match conn.query_text(&sql).ok().flatten() {
        Some(before) => format!("ALTER SYSTEM SET {name} = {}", quoted(&before)),
        None => format!("ALTER SYSTEM RESET {name}"),
    }))
}

pub struct PgConn {
    url: DbUrl,
    rt: tokio::runtime::Runtime,
    client: Client,
    prepared: HashMap<String, Statement>,
}

impl PgConn {
    pub fn open(url: &DbUrl) -> Result<PgConn, DbError> {
        let rt = runtime("database runtime")?;
        let client = rt.block_on(connect(url))?;
        Ok(PgConn { url: url.clone(), rt, client, prepared: HashMap::new() })
    }

    fn sql(&self) -> impl Fn(tokio_postgres::Error) -> DbError + '_ {
        |e| sql_error(&self.url, e)
    }

    fn setting(&mut self, name: &str) -> Result<Option<String>, DbError> {
        self.query_text(&format!("SELECT current_setting('{name}', true)"))
    }
}

impl ToSql for Param<'_> {
    /// Integers become whichever integer type the statement wants; text any text type.
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match *self {
            Param::Int(i) if *ty == Type::INT2 => i16::try_from(i)?.to_sql(ty, out),
            Param::Int(i) if *ty == Type::INT4 => i32::try_from(i)?.to_sql(ty, out),
            Param::Int(i) => i.to_sql(ty, out),
            Param::Text(s) => s.to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        <i64 as ToSql>::accepts(ty) || <&str as ToSql>::accepts(ty) || *ty == Type::INT2 || *ty == Type::INT4
    }

    to_sql_checked!();
}

impl Conn for PgConn {
    fn engine(&self) -> Engine {
        Engine::Postgres
    }

    fn shown(&self) -> String {
        self.url.to_string()
    }

    fn execute(&mut self, sql: &str) -> Result<(), DbError> {
        self.rt.block_on(self.client.batch_execute(sql)).map_err(|e| sql_error(&self.url, e))
    }

    fn run(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError> {
        let (rt, client, url) = (&self.rt, &self.client, &self.url);
        let statement = prepared(&mut self.prepared, sql, || {
            rt.block_on(client.prepare(&numbered_placeholders(sql))).map_err(|e| sql_error(url, e))
        })?;
        let values: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        self.rt.block_on(self.client.execute(&statement, &values)).map_err(self.sql())
    }

    fn query_text(&mut self, sql: &str) -> Result<Option<String>, DbError> {
        let rows = self.rt.block_on(self.client.simple_query(sql)).map_err(self.sql())?;
        Ok(rows
            .iter()
            .find_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(r) => Some(r.get(0).map(str::to_string)),
                _ => None,
            })
            .flatten())
    }

    fn copy_in(&mut self, table: &str, columns: &[&str], rows: bytes::Bytes) -> Result<u64, DbError> {
        let statement = format!("COPY {table} ({}) FROM STDIN", columns.join(", "));
        let client = &self.client;
        self.rt
            .block_on(async {
                let sink = client.copy_in::<_, bytes::Bytes>(statement.as_str()).await?;
                let mut sink = std::pin::pin!(sink);
                sink.send(rows).await?;
                sink.as_mut().finish().await
            })
            .map_err(|e| sql_error(&self.url, e))
    }

    fn room(&mut self) -> Result<Option<ConnectionRoom>, DbError> {
        self.rt.block_on(super::free_connections(&self.url)).map(Some)
    }

    fn version(&mut self) -> Result<String, DbError> {
        Ok(self.query_text("SELECT version()")?.unwrap_or_default())
    }

    fn settings(&mut self) -> Result<BTreeMap<String, String>, DbError> {
        let mut out = BTreeMap::new();
        for name in SETTINGS {
            if let Some(v) = self.setting(name)? {
                out.insert(name.to_string(), v);
            }
        }
        Ok(out)
    }

    fn file_stats(&mut self) -> Result<FileStats, DbError> {
        // A backend publishes its statistics when it goes idle, at most once a second unless
        // asked: ask, let this statement end, then read.
        self.execute("SELECT pg_stat_force_next_flush()")?;
        let timing = self.setting("track_wal_io_timing")?.as_deref() == Some("on");
        let query = "SELECT w.wal_write::float8, w.wal_sync::float8, w.wal_bytes::float8, \
                     w.wal_write_time::float8, w.wal_sync_time::float8, \
                     (SELECT sum(blks_read) FROM pg_stat_database)::float8, \
                     (SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter)::float8, \
                     (SELECT buffers_backend_fsync FROM pg_stat_bgwriter)::float8, \
                     current_setting('block_size')::float8, \
                     (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter)::float8 FROM pg_stat_wal w";
        let row = self.rt.block_on(self.client.query_one(query, &[])).map_err(self.sql())?;
        let n = |i: usize| row.get::<_, Option<f64>>(i).map(|v| v.max(0.0) as u64);
        let block = n(8).unwrap_or(8192);
        let ms_to_ns = |i: usize| row.get::<_, Option<f64>>(i).map(|ms| (ms * 1e6) as u64);
        let notes = vec![
            "log bytes are the WAL generated (pg_stat_wal.wal_bytes): a page a later commit rewrites counts once"
                .to_string(),
            "data writes are the buffers checkpoints, the background writer and backends wrote (pg_stat_bgwriter)"
                .to_string(),
        ];
        let mut missing = Vec::new();
        if !timing {
            missing.push("log write and sync times: track_wal_io_timing is off".into());
        }
        Ok(FileStats {
            log: FileIo {
                writes: n(0),
                syncs: n(1),
                bytes_written: n(2),
                write_ns: ms_to_ns(3).filter(|_| timing),
                sync_ns: ms_to_ns(4).filter(|_| timing),
                ..FileIo::default()
            },
            data: FileIo {
                reads: n(5),
                bytes_read: n(5).map(|b| b * block),
                writes: n(6),
                bytes_written: n(6).map(|b| b * block),
                syncs: n(7),
                ..FileIo::default()
            },
            source: "pg_stat_wal, pg_stat_database, pg_stat_bgwriter".into(),
            missing,
            notes,
            checkpoints: n(9),
            log_writes_are: "write() calls",
            log_bytes_are: "WAL generated",
            log_frames: None,
        })
    }

    fn checkpoint(&mut self) -> Result<(), DbError> {
        self.execute("CHECKPOINT")
    }

    fn drop_caches(&mut self) -> Result<Vec<String>, DbError> {
        Ok(vec![format!("{} empty only when the server restarts", self.cache_name())])
    }

    fn cache_name(&self) -> &'static str {
        "PostgreSQL's shared buffers"
    }

    fn push_out_checkpoints(&mut self, managed: bool) -> Result<PushedOut, DbError> {
        checkpoints::push_out(self, managed, &PUSHING)
    }

    fn files(&mut self) -> Result<EngineFiles, DbError> {
        if !is_local(&self.url) {
            return Ok(EngineFiles::default());
        }
        // Reading data_directory needs pg_read_all_settings; without it the files are unknown.
        let data = self.setting("data_directory")?.map(PathBuf::from);
        let log = data.as_ref().map(|d| std::fs::canonicalize(d.join("pg_wal")).unwrap_or_else(|_| d.join("pg_wal")));
        Ok(EngineFiles { log, data })
    }
}
