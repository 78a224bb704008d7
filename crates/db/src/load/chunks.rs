//! A server load's chunks sent by several connections at once, with progress and a per-second
//! count: what the PostgreSQL and MariaDB loads share.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// What the chunks' workers did.
pub(crate) struct Chunked {
    /// Rows sent in each whole second.
    pub per_second: Vec<u64>,
    /// Rows sent in all.
    pub reported: u64,
    /// Rows in chunks the workers saw committed: what is known to be in the table when the
    /// server can no longer be asked.
    pub committed: u64,
    /// The first worker's failure, once every worker has stopped.
    pub error: Option<crate::DbError>,
}

/// Loads `chunks` with `workers` tasks made by `worker(chunks, next, loaded, committed)` (each
/// takes the next chunk index from `next`, adds the rows it sent to `loaded` and those of each
/// chunk it committed to `committed`), reporting progress five times a second.
pub(crate) async fn drive_chunks<W, Fut>(
    chunks: Vec<u64>,
    workers: usize,
    rows_before: u64,
    total: u64,
    progress: &mut (dyn FnMut(u64, u64) + Send),
    worker: W,
) -> Chunked
where
    W: Fn(Arc<Vec<u64>>, Arc<AtomicUsize>, Arc<AtomicU64>, Arc<AtomicU64>) -> Fut,
    Fut: std::future::Future<Output = Result<(), crate::DbError>> + Send + 'static,
{
    let start = std::time::Instant::now();
    let loaded = Arc::new(AtomicU64::new(0));
    let committed = Arc::new(AtomicU64::new(0));
    let next = Arc::new(AtomicUsize::new(0));
    let chunks = Arc::new(chunks);
    let handles: Vec<_> = (0..workers.min(chunks.len()))
        .map(|_| tokio::spawn(worker(chunks.clone(), next.clone(), loaded.clone(), committed.clone())))
        .collect();
    let mut per_second: Vec<u64> = Vec::new();
    let mut reported = 0;
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    while !handles.iter().all(|w| w.is_finished()) {
        tick.tick().await;
        let now = loaded.load(Ordering::Relaxed);
        let second = start.elapsed().as_secs() as usize;
        if per_second.len() <= second {
            per_second.resize(second + 1, 0);
        }
        per_second[second] += now.saturating_sub(reported);
        reported = now;
        progress(rows_before + now, total);
    }
    let error = crate::join::join_all(handles).await.err();
    Chunked { per_second, reported, committed: committed.load(Ordering::Relaxed), error }
}
