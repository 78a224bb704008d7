//! Loading Hammer's table into MariaDB/MySQL: `LOAD DATA LOCAL INFILE` fed from memory (no
//! file is written), two connections at once, one million rows a chunk, each chunk committed
//! with a marker row so `--resume` loads only what is missing. Rows go in key order, so
//! InnoDB's clustered index only appends. The load's course is `load::server`'s; here are
//! MariaDB's statements.

use super::{CREATE_MARKER, CREATE_PROCEDURES, CREATE_TABLE, connect, load_data_error, sql_error};
use crate::keys::CardNo;
use crate::load::server::{ChunkWorker, ChunkedLoad, Lead, Share, load_chunked};
use crate::load::{Contents, LoadOptions, LoadOutcome};
use crate::{DbError, DbUrl};
use bytes::Bytes;
use futures_util::StreamExt;
use mysql_async::prelude::Queryable;
use std::collections::HashSet;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Rows per buffer handed to the server.
const ROWS_PER_BUFFER: u64 = 2_000;

pub async fn load(
    url: &DbUrl,
    opts: &LoadOptions,
    progress: &mut (dyn FnMut(u64, u64) + Send),
    stop: &'static AtomicBool,
) -> Result<LoadOutcome, DbError> {
    load_chunked(Lead { conn: connect(url).await?, url }, opts, progress, stop).await
}

impl ChunkedLoad for Lead<'_, mysql_async::Conn> {
    async fn contents(&mut self) -> Result<Contents, DbError> {
        let present: Vec<String> = self
            .conn
            .query(
                "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() \
                 AND TABLE_NAME IN ('TestTransaction', 'spindle_hammer')",
            )
            .await
            .map_err(|e| sql_error(self.url, e))?;
        let has = |table: &str| present.iter().any(|t| t == table);
        Ok(match (has("TestTransaction"), has("spindle_hammer")) {
            (false, _) => Contents::Empty,
            (true, false) => Contents::Other,
            (true, true) => Contents::Hammer { rows: self.count().await? },
        })
    }

    async fn drop_tables(&mut self) -> Result<(), DbError> {
        self.conn.query_drop("DROP TABLE TestTransaction, spindle_hammer").await.map_err(|e| sql_error(self.url, e))
    }

    async fn prepare(&mut self, rows: u64) -> Result<HashSet<u64>, DbError> {
        let url = self.url;
        let sql = |e| sql_error(url, e);
        let conn = &mut self.conn;
        conn.query_drop(CREATE_TABLE).await.map_err(sql)?;
        conn.query_drop(CREATE_MARKER).await.map_err(sql)?;
        for statement in CREATE_PROCEDURES {
            conn.query_drop(statement).await.map_err(sql)?;
        }
        conn.exec_drop("REPLACE INTO spindle_hammer VALUES ('rows', ?)", (rows.to_string(),)).await.map_err(sql)?;
        conn.query_drop("DELETE FROM spindle_hammer WHERE `key` = 'complete'").await.map_err(sql)?;
        let done: Vec<String> =
            conn.query("SELECT `key` FROM spindle_hammer WHERE `key` LIKE 'chunk:%'").await.map_err(sql)?;
        Ok(done.iter().filter_map(|k| k.strip_prefix("chunk:")?.parse().ok()).collect())
    }

    async fn count(&mut self) -> Result<u64, DbError> {
        let rows: Option<i64> =
            self.conn.query_first("SELECT COUNT(*) FROM TestTransaction").await.map_err(|e| sql_error(self.url, e))?;
        Ok(rows.unwrap_or(0).max(0) as u64)
    }

    /// The mark that the load is whole.
    async fn complete(&mut self) -> Result<(), DbError> {
        let marked = self.conn.query_drop("REPLACE INTO spindle_hammer VALUES ('complete', 'yes')").await;
        marked.map_err(|e| sql_error(self.url, e))
    }
}

impl ChunkWorker for mysql_async::Conn {
    /// Loads chunks taken from `share` until none is left or a stop.
    async fn worker(url: DbUrl, share: Share, stop: &'static AtomicBool) -> Result<(), DbError> {
        let mut conn = connect(&url).await?;
        let sql = |e| sql_error(&url, e);
        while let Some((chunk, first, end)) = share.take() {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            let counter = share.loaded.clone();
            let rows = futures_util::stream::iter((first..end).step_by(ROWS_PER_BUFFER as usize)).map(move |from| {
                if stop.load(Ordering::Relaxed) {
                    // Failing the stream fails the LOAD DATA: the chunk's transaction rolls back.
                    return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "stopped"));
                }
                let upto = (from + ROWS_PER_BUFFER).min(end);
                let mut text = String::with_capacity(((upto - from) * 48) as usize);
                for row in from..upto {
                    let amount = row.wrapping_mul(7919) % 1_000_000;
                    let _ = writeln!(text, "{},2026-01-01 00:00:00,{amount}", CardNo::of_row(row));
                }
                counter.fetch_add(upto - from, Ordering::Relaxed);
                Ok(Bytes::from(text))
            });
            conn.query_drop("START TRANSACTION").await.map_err(sql)?;
            conn.set_infile_handler(async move { Ok(rows.boxed()) });
            let loaded_chunk = conn
                .query_drop(
                    "LOAD DATA LOCAL INFILE 'spindle-hammer' INTO TABLE TestTransaction \
                     FIELDS TERMINATED BY ',' LINES TERMINATED BY '\\n' (CardNo, ChargeDate, Amount)",
                )
                .await;
            if let Err(e) = loaded_chunk {
                let _ = conn.query_drop("ROLLBACK").await;
                let loaded = &share.loaded;
                loaded.fetch_sub((end - first).min(loaded.load(Ordering::Relaxed)), Ordering::Relaxed);
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                return Err(load_data_error(&url, e));
            }
            conn.exec_drop("INSERT INTO spindle_hammer VALUES (?, 'done')", (format!("chunk:{chunk}"),))
                .await
                .map_err(sql)?;
            conn.query_drop("COMMIT").await.map_err(sql)?;
            share.committed.fetch_add(end - first, Ordering::Relaxed);
        }
        Ok(())
    }
}
