//! Loading Hammer's table into PostgreSQL: binary COPY from parallel connections, one
//! million rows a chunk, each chunk committed together with a marker row, then the primary key
//! built once at the end (as `pgbench -i -I dtgp`). An interrupted load keeps whole chunks,
//! and `--resume` loads only the chunks not marked done.

use super::{CREATE_FUNCTIONS, CREATE_MARKER, CREATE_TABLE, connect, sql_error};
use crate::keys::CardNo;
use crate::load::{Contents, LoadFailure, LoadOptions, LoadOutcome, Start, chunked_outcome, drive_chunks, start};
use crate::{DbError, DbUrl};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{ToSql, Type};

/// Rows per COPY (and per commit).
const CHUNK_ROWS: u64 = 1_000_000;
/// Connections copying at once: the server parses and writes each COPY stream on its own
/// backend, so two keep both of this machine's cores busy.
const COPY_WORKERS: usize = 2;
/// Rows between checks of the stop flag and the progress count.
const ROWS_PER_CHECK: u64 = 50_000;

pub async fn load(
    url: &DbUrl,
    opts: &LoadOptions,
    progress: &mut (dyn FnMut(u64, u64) + Send),
    stop: &'static AtomicBool,
) -> Result<LoadOutcome, DbError> {
    let client = connect(url).await?;
    let sql = |e| sql_error(url, e);
    let flags = client
        .query_one("SELECT to_regclass('testtransaction') IS NOT NULL, to_regclass('spindle_hammer') IS NOT NULL", &[])
        .await
        .map_err(sql)?;
    let found = match (flags.get::<_, bool>(0), flags.get::<_, bool>(1)) {
        (false, _) => Contents::Empty,
        (true, false) => Contents::Other,
        (true, true) => {
            let rows: i64 = client.query_one("SELECT count(*) FROM testtransaction", &[]).await.map_err(sql)?.get(0);
            Contents::Hammer { rows: rows.max(0) as u64 }
        }
    };
    let rows_before = match start(found, opts.mode, &url.to_string())? {
        Start::Resume(rows) => rows,
        Start::Replace => {
            client.batch_execute("DROP TABLE testtransaction, spindle_hammer CASCADE").await.map_err(sql)?;
            0
        }
        Start::Create => 0,
    };
    client.batch_execute(&format!("{CREATE_TABLE}; {CREATE_MARKER}; {CREATE_FUNCTIONS}")).await.map_err(sql)?;
    client
        .execute(
            "INSERT INTO spindle_hammer VALUES ('rows', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[&opts.rows.to_string()],
        )
        .await
        .map_err(sql)?;
    let done_chunks: HashSet<u64> = client
        .query("SELECT key FROM spindle_hammer WHERE key LIKE 'chunk:%'", &[])
        .await
        .map_err(sql)?
        .iter()
        .filter_map(|r| r.get::<_, String>(0).strip_prefix("chunk:").and_then(|c| c.parse().ok()))
        .collect();
    let chunks: Vec<u64> = (0..opts.rows.div_ceil(CHUNK_ROWS)).filter(|c| !done_chunks.contains(c)).collect();

    let start = Instant::now();
    let total = opts.rows;
    let sent = drive_chunks(chunks, COPY_WORKERS, rows_before, total, progress, |chunks, next, loaded, committed| {
        let url = url.clone();
        async move { copy_worker(&url, &chunks, &next, total, &loaded, &committed, stop).await }
    })
    .await;
    let failure = sent.error.as_ref().map(LoadFailure::of);
    let committed = match client.query_one("SELECT count(*) FROM testtransaction", &[]).await {
        Ok(row) => row.get::<_, i64>(0).max(0) as u64,
        // The server that failed a worker cannot be asked: the chunks seen committed are known.
        Err(_) if failure.is_some() => rows_before + sent.committed,
        Err(e) => return Err(sql(e)),
    };
    let sent_rows = (sent.per_second, sent.reported);
    let stopped = stop.load(Ordering::Relaxed);
    let mut outcome = chunked_outcome(rows_before, opts.rows, committed, sent_rows, start.elapsed(), stopped, failure);
    if !outcome.interrupted {
        let has_key: bool = client
            .query_one(
                "SELECT count(*) > 0 FROM pg_constraint WHERE conrelid = 'testtransaction'::regclass AND contype = 'p'",
                &[],
            )
            .await
            .map_err(sql)?
            .get(0);
        if !has_key {
            // One sort for the whole table, with room to do it in memory.
            client
                .batch_execute(
                    "SET maintenance_work_mem = '512MB'; ALTER TABLE testtransaction ADD PRIMARY KEY (cardno)",
                )
                .await
                .map_err(sql)?;
        }
    }
    if outcome.failure.is_some() {
        outcome.elapsed = start.elapsed();
        return Ok(outcome);
    }
    progress(committed, opts.rows);
    // The key build is part of the load's time.
    outcome.elapsed = start.elapsed();
    Ok(outcome)
}

/// Copies chunks taken from `chunks` (through `next`) until none is left or a stop.
async fn copy_worker(
    url: &DbUrl,
    chunks: &[u64],
    next: &AtomicUsize,
    total: u64,
    loaded: &AtomicU64,
    committed: &AtomicU64,
    stop: &AtomicBool,
) -> Result<(), DbError> {
    let mut client = connect(url).await?;
    let sql = |e| sql_error(url, e);
    // Rows of one load share a charge date; the runs stamp their own.
    let charged = SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_225_600); // 2026-01-01
    while let Some(&chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
        let (first, end) = (chunk * CHUNK_ROWS, ((chunk + 1) * CHUNK_ROWS).min(total));
        let tx = client.transaction().await.map_err(sql)?;
        let sink = tx
            .copy_in("COPY testtransaction (cardno, chargedate, amount) FROM STDIN (FORMAT binary)")
            .await
            .map_err(sql)?;
        let writer = BinaryCopyInWriter::new(sink, &[Type::BPCHAR, Type::TIMESTAMP, Type::INT8]);
        let mut writer = std::pin::pin!(writer);
        let mut i = first;
        while i < end {
            let upto = (i + ROWS_PER_CHECK).min(end);
            for row in i..upto {
                let card = CardNo::of_row(row);
                let card = card.as_str();
                let amount = (row.wrapping_mul(7919) % 1_000_000) as i64;
                let values: [&(dyn ToSql + Sync); 3] = [&card, &charged, &amount];
                writer.as_mut().write(&values).await.map_err(sql)?;
            }
            loaded.fetch_add(upto - i, Ordering::Relaxed);
            i = upto;
            if stop.load(Ordering::Relaxed) {
                // Dropping the unfinished COPY and the transaction rolls the chunk back.
                loaded.fetch_sub(i - first, Ordering::Relaxed);
                return Ok(());
            }
        }
        writer.finish().await.map_err(sql)?;
        tx.execute("INSERT INTO spindle_hammer VALUES ($1, 'done')", &[&format!("chunk:{chunk}")])
            .await
            .map_err(sql)?;
        tx.commit().await.map_err(sql)?;
        committed.fetch_add(end - first, Ordering::Relaxed);
    }
    Ok(())
}
