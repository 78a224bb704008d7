//! MariaDB/MySQL behind the blocking `Conn`: one connection on a runtime of its own. The
//! log's figures are InnoDB's status counters (`Innodb_log_writes`, `Innodb_os_log_written`,
//! `Innodb_os_log_fsyncs` where the server still has it), and performance_schema's
//! `file_summary_by_instance` when it is on, which also times them and counts the data files.

use super::{connect, load_data_error, sql_error};
use crate::conn::{Conn, EngineFiles, Param, is_local, prepared, runtime};
use crate::file_stats::{FileIo, FileStats};
use crate::largeops::checkpoints::{self, PushedOut, Pushing, quoted};
use crate::{ConnectionRoom, DbError, DbUrl, Engine};
use futures_util::StreamExt;
use mysql_async::prelude::Queryable;
use mysql_async::{Statement, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// Settings that shape how InnoDB writes, for the record.
const SETTINGS: [&str; 12] = [
    "innodb_flush_log_at_trx_commit",
    "innodb_flush_method",
    "innodb_log_file_size",
    "innodb_log_buffer_size",
    "innodb_log_write_ahead_size",
    "innodb_buffer_pool_size",
    "innodb_io_capacity",
    "innodb_max_dirty_pages_pct",
    "innodb_doublewrite",
    "sync_binlog",
    "log_bin",
    "performance_schema",
];

/// Automatic flushing pushed out on a managed server with SET GLOBAL (gone at a restart, but
/// not before). InnoDB has no checkpoint timer: no early flushing, no adaptive flushing and a
/// high dirty-page limit are as far as it goes without a larger redo log (a restart).
const PUSHING: Pushing = Pushing {
    shown: &["innodb_log_file_size", "innodb_max_dirty_pages_pct"],
    settings: &[
        ("innodb_max_dirty_pages_pct", "99"),
        ("innodb_max_dirty_pages_pct_lwm", "0"),
        ("innodb_adaptive_flushing", "OFF"),
    ],
    set: |name, value| format!("SET GLOBAL {name} = {value}"),
    restore: global_restore,
    apply: None,
    note: "automatic flushing pushed out: innodb_max_dirty_pages_pct 99, no early or adaptive flushing; \
           a full redo log still forces a checkpoint",
};

/// What puts `name` back: its global value now.
fn global_restore(conn: &mut dyn Conn, name: &str) -> Result<Option<String>, DbError> {
    Ok(conn.query_text(&format!("SELECT @@GLOBAL.{name}"))?.map(|before| {
        // These are numbers (a switch reads back as 0 or 1), which SET takes bare.
        let value = if before.parse::<f64>().is_ok() { before } else { quoted(&before) };
        format!("SET GLOBAL {name} = {value}")
    }))
}

pub struct MySqlConn {
    url: DbUrl,
    rt: tokio::runtime::Runtime,
    conn: mysql_async::Conn,
    prepared: HashMap<String, Statement>,
}

impl MySqlConn {
    pub fn open(url: &DbUrl) -> Result<MySqlConn, DbError> {
        let rt = runtime("database runtime")?;
        let conn = rt.block_on(connect(url))?;
        Ok(MySqlConn { url: url.clone(), rt, conn, prepared: HashMap::new() })
    }

    fn status(&mut self) -> Result<HashMap<String, u64>, DbError> {
        let rows: Vec<(String, String)> =
            self.rt.block_on(self.conn.query("SHOW GLOBAL STATUS")).map_err(|e| sql_error(&self.url, e))?;
        Ok(rows.into_iter().filter_map(|(k, v)| Some((k, v.parse().ok()?))).collect())
    }

    /// performance_schema's counts for files whose names match `pattern`, when it is on:
    /// reads, writes and their bytes, and the time spent writing (its syncs are mixed with
    /// opens and closes in "misc", so they are not taken from here).
    fn perf_schema_files(&mut self, pattern: &str) -> Option<FileIo> {
        let sql = format!(
            "SELECT SUM(COUNT_READ), SUM(SUM_NUMBER_OF_BYTES_READ), SUM(COUNT_WRITE), \
             SUM(SUM_NUMBER_OF_BYTES_WRITE), SUM(SUM_TIMER_WRITE) \
             FROM performance_schema.file_summary_by_instance WHERE FILE_NAME LIKE '{pattern}'"
        );
        type Row = (Option<u64>, Option<u64>, Option<u64>, Option<u64>, Option<u64>);
        // performance_schema off or unreadable: the status counters remain.
        let row: Row = self.rt.block_on(self.conn.query_first(sql)).ok().flatten()?;
        let (reads, bytes_read, writes, bytes_written, write_ps) = row;
        writes?;
        Some(FileIo {
            reads,
            bytes_read,
            writes,
            bytes_written,
            write_ns: write_ps.map(|p| p / 1000),
            ..FileIo::default()
        })
    }
}

fn value_of(p: &Param<'_>) -> Value {
    match *p {
        Param::Int(i) => Value::Int(i),
        Param::Text(s) => Value::Bytes(s.as_bytes().to_vec()),
    }
}

impl Conn for MySqlConn {
    fn engine(&self) -> Engine {
        Engine::MySql
    }

    fn shown(&self) -> String {
        self.url.to_string()
    }

    fn execute(&mut self, sql: &str) -> Result<(), DbError> {
        self.rt.block_on(self.conn.query_drop(sql)).map_err(|e| sql_error(&self.url, e))
    }

    fn run(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError> {
        let (rt, conn, url) = (&self.rt, &mut self.conn, &self.url);
        let statement =
            prepared(&mut self.prepared, sql, || rt.block_on(conn.prep(sql)).map_err(|e| sql_error(url, e)))?;
        let values: Vec<Value> = params.iter().map(value_of).collect();
        self.rt.block_on(self.conn.exec_drop(&statement, values)).map_err(|e| sql_error(&self.url, e))?;
        Ok(self.conn.affected_rows())
    }

    fn query_text(&mut self, sql: &str) -> Result<Option<String>, DbError> {
        let row: Option<Option<String>> =
            self.rt.block_on(self.conn.query_first(sql)).map_err(|e| sql_error(&self.url, e))?;
        Ok(row.flatten())
    }

    fn copy_in(&mut self, table: &str, columns: &[&str], rows: bytes::Bytes) -> Result<u64, DbError> {
        // Sent in pieces: the driver writes each as a packet of its own, and the server
        // refuses a packet over its max_allowed_packet (16 MB by default on MariaDB).
        const PIECE: usize = 1 << 20;
        let pieces: Vec<_> =
            (0..rows.len()).step_by(PIECE).map(|at| Ok(rows.slice(at..(at + PIECE).min(rows.len())))).collect();
        let stream = futures_util::stream::iter(pieces);
        self.conn.set_infile_handler(async move { Ok(stream.boxed()) });
        let statement = format!(
            "LOAD DATA LOCAL INFILE 'spindle-rows' INTO TABLE {table} FIELDS TERMINATED BY '\\t' \
             LINES TERMINATED BY '\\n' ({})",
            columns.join(", ")
        );
        let loaded = self.rt.block_on(self.conn.query_drop(statement));
        loaded.map_err(|e| load_data_error(&self.url, e))?;
        Ok(self.conn.affected_rows())
    }

    fn room(&mut self) -> Result<Option<ConnectionRoom>, DbError> {
        self.rt.block_on(super::free_connections(&self.url)).map(Some)
    }

    fn version(&mut self) -> Result<String, DbError> {
        Ok(self.query_text("SELECT VERSION()")?.unwrap_or_default())
    }

    fn settings(&mut self) -> Result<BTreeMap<String, String>, DbError> {
        let list = SETTINGS.map(|s| format!("'{s}'")).join(", ");
        let rows: Vec<(String, String)> = self
            .rt
            .block_on(self.conn.query(format!("SHOW GLOBAL VARIABLES WHERE Variable_name IN ({list})")))
            .map_err(|e| sql_error(&self.url, e))?;
        Ok(rows.into_iter().collect())
    }

    fn file_stats(&mut self) -> Result<FileStats, DbError> {
        let status = self.status()?;
        let get = |k: &str| status.get(k).copied();
        let mut missing = Vec::new();
        let mut log = FileIo {
            writes: get("Innodb_log_writes"),
            bytes_written: get("Innodb_os_log_written"),
            syncs: get("Innodb_os_log_fsyncs"),
            ..FileIo::default()
        };
        let mut data = FileIo {
            reads: get("Innodb_data_reads"),
            bytes_read: get("Innodb_data_read"),
            writes: get("Innodb_data_writes"),
            bytes_written: get("Innodb_data_written"),
            syncs: get("Innodb_data_fsyncs"),
            ..FileIo::default()
        };
        let mut source = "SHOW GLOBAL STATUS".to_string();
        let instrumented = self.query_text("SELECT @@performance_schema")?.as_deref() == Some("1");
        if instrumented {
            source.push_str(", performance_schema.file_summary_by_instance");
            data.write_ns = self.perf_schema_files("%.ibd").and_then(|d| d.write_ns);
        }
        match self.perf_schema_files("%ib_logfile%") {
            Some(files) => log.write_ns = files.write_ns,
            None if instrumented => missing.push(
                "log write times: this server's redo log writes are not instrumented in performance_schema".into(),
            ),
            None => missing.push("log write times: performance_schema is off".into()),
        }
        missing.push("log sync times: InnoDB does not time its log syncs apart from other file operations".into());
        if log.syncs.is_none() {
            missing
                .push("log syncs: this server has no Innodb_os_log_fsyncs (MariaDB 10.8 and later dropped it)".into());
        }
        Ok(FileStats {
            log,
            data,
            source,
            missing,
            notes: Vec::new(),
            checkpoints: None,
            log_writes_are: "redo writes",
            log_bytes_are: "redo written",
            log_frames: None,
        })
    }

    fn checkpoint(&mut self) -> Result<(), DbError> {
        // MariaDB writes every dirty page and advances the checkpoint when asked, and returns
        // when done; a server without the switch is asked to keep no dirty pages until it has
        // none, which its I/O capacity paces.
        if self.execute("SET GLOBAL innodb_log_checkpoint_now = ON").is_ok() {
            return Ok(());
        }
        let pct = self.query_text("SELECT @@GLOBAL.innodb_max_dirty_pages_pct")?.unwrap_or_else(|| "90".into());
        self.execute("SET GLOBAL innodb_max_dirty_pages_pct = 0")?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
        let result = loop {
            let dirty = self.status()?.get("Innodb_buffer_pool_pages_dirty").copied().unwrap_or(0);
            if dirty == 0 {
                break Ok(());
            }
            if std::time::Instant::now() > deadline {
                break Err(DbError::Server {
                    db: self.url.to_string(),
                    cause: format!("{dirty} dirty pages still unwritten after 10 minutes"),
                });
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        self.execute(&format!("SET GLOBAL innodb_max_dirty_pages_pct = {pct}"))?;
        result
    }

    fn drop_caches(&mut self) -> Result<Vec<String>, DbError> {
        Ok(vec![format!("{} empties only when the server restarts", self.cache_name())])
    }

    fn cache_name(&self) -> &'static str {
        "InnoDB's buffer pool"
    }

    fn push_out_checkpoints(&mut self, managed: bool) -> Result<PushedOut, DbError> {
        checkpoints::push_out(self, managed, &PUSHING)
    }

    fn files(&mut self) -> Result<EngineFiles, DbError> {
        if !is_local(&self.url) {
            return Ok(EngineFiles::default());
        }
        let data = self.query_text("SELECT @@datadir")?.map(PathBuf::from);
        let home = self.query_text("SELECT @@innodb_log_group_home_dir")?;
        let log = match (home.as_deref(), &data) {
            (Some(h), _) if h.starts_with('/') => Some(PathBuf::from(h)),
            (Some(h), Some(d)) => Some(d.join(h)),
            (_, d) => d.clone(),
        };
        Ok(EngineFiles { log: log.map(|p| std::fs::canonicalize(&p).unwrap_or(p)), data })
    }
}
