//! A server load's chunks sent by several connections at once, with progress and a per-second
//! count: what the PostgreSQL and MariaDB loads share.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// Loads `chunks` with `workers` tasks made by `worker(chunks, next, loaded)` (each takes the
/// next chunk index from `next` and adds the rows it sent to `loaded`), reporting progress
/// five times a second. Returns the rows sent in each whole second and in all; a worker's
/// failure is returned once every worker has stopped.
pub(crate) async fn drive_chunks<W, Fut>(
    chunks: Vec<u64>,
    workers: usize,
    rows_before: u64,
    total: u64,
    progress: &mut (dyn FnMut(u64, u64) + Send),
    worker: W,
) -> Result<(Vec<u64>, u64), crate::DbError>
where
    W: Fn(Arc<Vec<u64>>, Arc<AtomicUsize>, Arc<AtomicU64>) -> Fut,
    Fut: std::future::Future<Output = Result<(), crate::DbError>> + Send + 'static,
{
    let start = std::time::Instant::now();
    let loaded = Arc::new(AtomicU64::new(0));
    let next = Arc::new(AtomicUsize::new(0));
    let chunks = Arc::new(chunks);
    let handles: Vec<_> = (0..workers.min(chunks.len()))
        .map(|_| tokio::spawn(worker(chunks.clone(), next.clone(), loaded.clone())))
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
    crate::join::join_all(handles).await?;
    Ok((per_second, reported))
}
