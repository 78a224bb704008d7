//! Loading Hammer's table into MariaDB/MySQL: `LOAD DATA LOCAL INFILE` fed from memory (no
//! file is written), two connections at once, one million rows a chunk, each chunk committed
//! with a marker row so `--resume` loads only what is missing. Rows go in key order, so
//! InnoDB's clustered index only appends.

use super::{CREATE_MARKER, CREATE_PROCEDURES, CREATE_TABLE, connect, sql_error};
use crate::keys::CardNo;
use crate::load::{Contents, LoadFailure, LoadOptions, LoadOutcome, Start, chunked_outcome, drive_chunks, start};
use crate::{DbError, DbUrl};
use bytes::Bytes;
use futures_util::StreamExt;
use mysql_async::prelude::Queryable;
use std::collections::HashSet;
use std::fmt::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

const CHUNK_ROWS: u64 = 1_000_000;
/// Connections loading at once: two keep both cores of this machine busy.
const LOAD_WORKERS: usize = 2;
/// Rows per buffer handed to the server.
const ROWS_PER_BUFFER: u64 = 2_000;

pub async fn load(
    url: &DbUrl,
    opts: &LoadOptions,
    progress: &mut (dyn FnMut(u64, u64) + Send),
    stop: &'static AtomicBool,
) -> Result<LoadOutcome, DbError> {
    let mut conn = connect(url).await?;
    let sql = |e| sql_error(url, e);
    let present: Vec<String> = conn
        .query(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() \
             AND TABLE_NAME IN ('TestTransaction', 'spindle_hammer')",
        )
        .await
        .map_err(sql)?;
    let found = match (present.iter().any(|t| t == "TestTransaction"), present.iter().any(|t| t == "spindle_hammer")) {
        (false, _) => Contents::Empty,
        (true, false) => Contents::Other,
        (true, true) => {
            let rows: Option<i64> = conn.query_first("SELECT COUNT(*) FROM TestTransaction").await.map_err(sql)?;
            Contents::Hammer { rows: rows.unwrap_or(0).max(0) as u64 }
        }
    };
    let rows_before = match start(found, opts.mode, &url.to_string())? {
        Start::Resume(rows) => rows,
        Start::Replace => {
            conn.query_drop("DROP TABLE TestTransaction, spindle_hammer").await.map_err(sql)?;
            0
        }
        Start::Create => 0,
    };
    conn.query_drop(CREATE_TABLE).await.map_err(sql)?;
    conn.query_drop(CREATE_MARKER).await.map_err(sql)?;
    for statement in CREATE_PROCEDURES {
        conn.query_drop(statement).await.map_err(sql)?;
    }
    conn.exec_drop("REPLACE INTO spindle_hammer VALUES ('rows', ?)", (opts.rows.to_string(),)).await.map_err(sql)?;
    conn.query_drop("DELETE FROM spindle_hammer WHERE `key` = 'complete'").await.map_err(sql)?;
    let done: Vec<String> =
        conn.query("SELECT `key` FROM spindle_hammer WHERE `key` LIKE 'chunk:%'").await.map_err(sql)?;
    let done: HashSet<u64> = done.iter().filter_map(|k| k.strip_prefix("chunk:")?.parse().ok()).collect();
    let chunks: Vec<u64> = (0..opts.rows.div_ceil(CHUNK_ROWS)).filter(|c| !done.contains(c)).collect();

    let start = Instant::now();
    let total = opts.rows;
    let sent = drive_chunks(chunks, LOAD_WORKERS, rows_before, total, progress, |chunks, next, loaded, committed| {
        let url = url.clone();
        async move { load_worker(&url, &chunks, &next, total, &loaded, &committed, stop).await }
    })
    .await;
    let failure = sent.error.as_ref().map(LoadFailure::of);
    let committed = match conn.query_first::<i64, _>("SELECT COUNT(*) FROM TestTransaction").await {
        Ok(n) => n.unwrap_or(0).max(0) as u64,
        // The server that failed a worker cannot be asked: the chunks seen committed are known.
        Err(_) if failure.is_some() => rows_before + sent.committed,
        Err(e) => return Err(sql(e)),
    };
    let sent_rows = (sent.per_second, sent.reported);
    let stopped = stop.load(Ordering::Relaxed);
    let outcome = chunked_outcome(rows_before, opts.rows, committed, sent_rows, start.elapsed(), stopped, failure);
    if outcome.failure.is_some() {
        return Ok(outcome);
    }
    if !outcome.interrupted {
        conn.query_drop("REPLACE INTO spindle_hammer VALUES ('complete', 'yes')").await.map_err(sql)?;
    }
    progress(committed, opts.rows);
    Ok(outcome)
}

async fn load_worker(
    url: &DbUrl,
    chunks: &[u64],
    next: &AtomicUsize,
    total: u64,
    loaded: &Arc<AtomicU64>,
    committed: &AtomicU64,
    stop: &'static AtomicBool,
) -> Result<(), DbError> {
    let mut conn = connect(url).await?;
    let sql = |e| sql_error(url, e);
    while let Some(&chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let (first, end) = (chunk * CHUNK_ROWS, ((chunk + 1) * CHUNK_ROWS).min(total));
        let counter = loaded.clone();
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
            loaded.fetch_sub((end - first).min(loaded.load(Ordering::Relaxed)), Ordering::Relaxed);
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            return Err(match &e {
                mysql_async::Error::Server(s) if s.code == 1148 || s.code == 3948 => DbError::Server {
                    db: url.to_string(),
                    cause: format!(
                        "the server refuses LOAD DATA LOCAL ({}); set local_infile = ON on the server",
                        s.message
                    ),
                },
                _ => sql_error(url, e),
            });
        }
        conn.exec_drop("INSERT INTO spindle_hammer VALUES (?, 'done')", (format!("chunk:{chunk}"),))
            .await
            .map_err(sql)?;
        conn.query_drop("COMMIT").await.map_err(sql)?;
        committed.fetch_add(end - first, Ordering::Relaxed);
    }
    Ok(())
}
