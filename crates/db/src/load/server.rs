//! A server's chunked Hammer load, written once: what the database holds decides how it begins
//! (`start`), the chunks not yet marked done are loaded by several connections at once
//! (`drive_chunks`), the table's rows are counted, and the load is completed (PostgreSQL builds
//! its primary key, MariaDB marks the load complete), timed with it. Each engine says only its
//! statements (`ChunkedLoad`, on the connection that leads) and how a worker connection loads a
//! chunk (`ChunkWorker`).

use super::{Contents, LoadFailure, LoadOptions, LoadOutcome, Start, chunked_outcome, drive_chunks, start};
use crate::{DbError, DbUrl};
use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// Rows per chunk: each is loaded and committed with its marker row in one transaction.
pub(crate) const CHUNK_ROWS: u64 = 1_000_000;
/// Connections loading at once: the server parses and writes each one's rows on a backend or
/// thread of its own, so two keep both of this machine's cores busy.
const CONNECTIONS: usize = 2;

/// What a worker connection is handed: the chunks, the index of the next one to take, the
/// rows asked for, and the counts of rows sent and committed it adds to.
pub(crate) struct Share {
    pub chunks: Arc<Vec<u64>>,
    pub next: Arc<AtomicUsize>,
    pub total: u64,
    pub loaded: Arc<AtomicU64>,
    pub committed: Arc<AtomicU64>,
}

impl Share {
    /// The next chunk's first row and end, until none is left.
    pub fn take(&self) -> Option<(u64, u64, u64)> {
        let &chunk = self.chunks.get(self.next.fetch_add(1, Ordering::Relaxed))?;
        Some((chunk, chunk * CHUNK_ROWS, ((chunk + 1) * CHUNK_ROWS).min(self.total)))
    }
}

/// The connection that leads a load (an engine's own, `C`), to the database at `url`.
pub(crate) struct Lead<'a, C> {
    pub conn: C,
    pub url: &'a DbUrl,
}

/// One server engine's statements in a chunked load, on the connection that leads it.
pub(crate) trait ChunkedLoad {
    /// What the database holds: nothing, spindle's tables (with their rows), or another's.
    async fn contents(&mut self) -> Result<Contents, DbError>;
    /// Drops spindle's tables, for a fresh load.
    async fn drop_tables(&mut self) -> Result<(), DbError>;
    /// Creates the tables and procedures, records the rows asked for, and returns the chunks
    /// an earlier load marked done.
    async fn prepare(&mut self, rows: u64) -> Result<HashSet<u64>, DbError>;
    /// The rows in the table.
    async fn count(&mut self) -> Result<u64, DbError>;
    /// What follows a load of every row, timed with it.
    async fn complete(&mut self) -> Result<(), DbError>;
}

/// An engine's connection, of which each worker loading chunks has one of its own.
pub(crate) trait ChunkWorker {
    /// A connection of its own loading chunks taken from `share` until none is left or a stop.
    fn worker(
        url: DbUrl,
        share: Share,
        stop: &'static AtomicBool,
    ) -> impl Future<Output = Result<(), DbError>> + Send + 'static;
}

/// Loads Hammer's table through `lead` and `CONNECTIONS` workers.
pub(crate) async fn load_chunked<'a, C>(
    mut lead: Lead<'a, C>,
    opts: &LoadOptions,
    progress: &mut (dyn FnMut(u64, u64) + Send),
    stop: &'static AtomicBool,
) -> Result<LoadOutcome, DbError>
where
    Lead<'a, C>: ChunkedLoad,
    C: ChunkWorker,
{
    let url = lead.url;
    let found = lead.contents().await?;
    let rows_before = match start(found, opts.mode, &url.to_string())? {
        Start::Resume(rows) => rows,
        Start::Replace => {
            lead.drop_tables().await?;
            0
        }
        Start::Create => 0,
    };
    let done = lead.prepare(opts.rows).await?;
    let chunks: Vec<u64> = (0..opts.rows.div_ceil(CHUNK_ROWS)).filter(|c| !done.contains(c)).collect();

    let started = Instant::now();
    let total = opts.rows;
    let sent = drive_chunks(chunks, CONNECTIONS, rows_before, total, progress, |chunks, next, loaded, committed| {
        C::worker(url.clone(), Share { chunks, next, total, loaded, committed }, stop)
    })
    .await;
    // From here on rows are committed, so whatever fails (the server gone away, its disk full)
    // cuts the load short rather than erasing it: the outcome keeps the rows and the failure,
    // and is saved as an interrupted run, as a worker's failure is.
    let mut failure = sent.error.as_ref().map(LoadFailure::of);
    let committed = match lead.count().await {
        Ok(rows) => rows,
        // A server that cannot be asked: the chunks seen committed are known.
        Err(e) => {
            failure.get_or_insert_with(|| LoadFailure::of(&e));
            rows_before + sent.committed
        }
    };
    let sent_rows = (sent.per_second, sent.reported);
    let stopped = stop.load(Ordering::Relaxed);
    let mut outcome = chunked_outcome(rows_before, total, committed, sent_rows, started.elapsed(), stopped, failure);
    if outcome.failure.is_some() {
        return Ok(outcome);
    }
    if !outcome.interrupted {
        // Every row is in; the load is not complete until this is done (PostgreSQL's primary
        // key), and `--resume` does it when it is cut.
        if let Err(e) = lead.complete().await {
            outcome.failure = Some(LoadFailure::completing(&e));
            outcome.interrupted = true;
            return Ok(outcome);
        }
        outcome.elapsed = started.elapsed();
    }
    progress(committed, total);
    Ok(outcome)
}
