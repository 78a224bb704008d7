//! Loading Hammer's table into PostgreSQL: binary COPY from parallel connections, one
//! million rows a chunk, each chunk committed together with a marker row, then the primary key
//! built once at the end (as `pgbench -i -I dtgp`). An interrupted load keeps whole chunks,
//! and `--resume` loads only the chunks not marked done. The load's course is
//! `load::server`'s; here are PostgreSQL's statements.

use super::{CREATE_FUNCTIONS, CREATE_MARKER, CREATE_TABLE, connect, sql_error};
use crate::keys::CardNo;
use crate::load::server::{ChunkWorker, ChunkedLoad, Lead, Share, load_chunked};
use crate::load::{Contents, LoadOptions, LoadOutcome};
use crate::{DbError, DbUrl};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};
use tokio_postgres::Client;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{ToSql, Type};

/// Rows between checks of the stop flag and the progress count.
const ROWS_PER_CHECK: u64 = 50_000;

pub async fn load(
    url: &DbUrl,
    opts: &LoadOptions,
    progress: &mut (dyn FnMut(u64, u64) + Send),
    stop: &'static AtomicBool,
) -> Result<LoadOutcome, DbError> {
    load_chunked(Lead { conn: connect(url).await?, url }, opts, progress, stop).await
}

impl Lead<'_, Client> {
    fn sql(&self) -> impl Fn(tokio_postgres::Error) -> DbError + '_ {
        |e| sql_error(self.url, e)
    }
}

impl ChunkedLoad for Lead<'_, Client> {
    async fn contents(&mut self) -> Result<Contents, DbError> {
        let flags = self
            .conn
            .query_one(
                "SELECT to_regclass('testtransaction') IS NOT NULL, to_regclass('spindle_hammer') IS NOT NULL",
                &[],
            )
            .await
            .map_err(self.sql())?;
        Ok(match (flags.get::<_, bool>(0), flags.get::<_, bool>(1)) {
            (false, _) => Contents::Empty,
            (true, false) => Contents::Other,
            (true, true) => Contents::Hammer { rows: self.count().await? },
        })
    }

    async fn drop_tables(&mut self) -> Result<(), DbError> {
        self.conn.batch_execute("DROP TABLE testtransaction, spindle_hammer CASCADE").await.map_err(self.sql())
    }

    async fn prepare(&mut self, rows: u64) -> Result<HashSet<u64>, DbError> {
        let sql = self.sql();
        let client = &self.conn;
        client.batch_execute(&format!("{CREATE_TABLE}; {CREATE_MARKER}; {CREATE_FUNCTIONS}")).await.map_err(&sql)?;
        client
            .execute(
                "INSERT INTO spindle_hammer VALUES ('rows', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                &[&rows.to_string()],
            )
            .await
            .map_err(&sql)?;
        Ok(client
            .query("SELECT key FROM spindle_hammer WHERE key LIKE 'chunk:%'", &[])
            .await
            .map_err(&sql)?
            .iter()
            .filter_map(|r| r.get::<_, String>(0).strip_prefix("chunk:").and_then(|c| c.parse().ok()))
            .collect())
    }

    async fn count(&mut self) -> Result<u64, DbError> {
        let row = self.conn.query_one("SELECT count(*) FROM testtransaction", &[]).await.map_err(self.sql())?;
        Ok(row.get::<_, i64>(0).max(0) as u64)
    }

    /// The primary key, built once for the whole table (one sort, with room to do it in memory):
    /// part of the load's time.
    async fn complete(&mut self) -> Result<(), DbError> {
        let sql = self.sql();
        let has_key: bool = self
            .conn
            .query_one(
                "SELECT count(*) > 0 FROM pg_constraint WHERE conrelid = 'testtransaction'::regclass AND contype = 'p'",
                &[],
            )
            .await
            .map_err(&sql)?
            .get(0);
        if !has_key {
            self.conn
                .batch_execute(
                    "SET maintenance_work_mem = '512MB'; ALTER TABLE testtransaction ADD PRIMARY KEY (cardno)",
                )
                .await
                .map_err(&sql)?;
        }
        Ok(())
    }
}

impl ChunkWorker for Client {
    /// Copies chunks taken from `share` until none is left or a stop.
    async fn worker(url: DbUrl, share: Share, stop: &'static AtomicBool) -> Result<(), DbError> {
        let mut client = connect(&url).await?;
        let sql = |e| sql_error(&url, e);
        // Rows of one load share a charge date; the runs stamp their own.
        let charged = SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_225_600); // 2026-01-01
        while let Some((chunk, first, end)) = share.take() {
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
                share.loaded.fetch_add(upto - i, Ordering::Relaxed);
                i = upto;
                if stop.load(Ordering::Relaxed) {
                    // Dropping the unfinished COPY and the transaction rolls the chunk back.
                    share.loaded.fetch_sub(i - first, Ordering::Relaxed);
                    return Ok(());
                }
            }
            writer.finish().await.map_err(sql)?;
            tx.execute("INSERT INTO spindle_hammer VALUES ($1, 'done')", &[&format!("chunk:{chunk}")])
                .await
                .map_err(sql)?;
            tx.commit().await.map_err(sql)?;
            share.committed.fetch_add(end - first, Ordering::Relaxed);
        }
        Ok(())
    }
}
