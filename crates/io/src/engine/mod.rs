//! The engine contract: a small ops table in the manner of fio's `ioengine_ops`. The worker
//! loop is generic over [`Engine`], so the engine is chosen once per job and every call in the
//! hot loop is static.

mod buffers;
pub mod null;
mod performed;
pub mod sync;
#[cfg(target_os = "linux")]
pub mod uring;

pub use buffers::BufferPool;

use std::os::fd::RawFd;
use std::time::Duration;
use thiserror::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    /// fdatasync of the whole file.
    Flush,
}

/// One I/O handed to an engine. `slot` names both the buffer the I/O uses and the worker's
/// bookkeeping entry for it; a slot is never reused before its completion is reaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRequest {
    pub slot: u32,
    pub kind: OpKind,
    pub offset: u64,
    pub len: u32,
}

/// A finished I/O: bytes transferred, or a negative errno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub result: i32,
}

#[derive(Debug, Error)]
pub enum EngineError {
    #[error("io_uring is not available: {0}")]
    Unavailable(String),
    #[error("{op} failed: {source}")]
    Os { op: &'static str, source: std::io::Error },
}

/// What every engine does: queue I/Os, then reap their completions.
pub trait Engine {
    /// Queues `requests`. They are all in flight by the time the next [`Engine::reap`] returns;
    /// a synchronous engine performs them here.
    fn submit(&mut self, requests: &[IoRequest]) -> Result<(), EngineError>;

    /// Submits anything queued, waits until at least `min` completions are available or
    /// `timeout` has passed, and appends every available completion to `out`. A timeout that
    /// passes is not an error (`out` then holds fewer than `min`, perhaps none): a rate-limited
    /// worker passes one when its next I/O falls due before the next completion may arrive.
    ///
    /// The caller hears of the hand-off through `handoff` (see [`Handoff`]).
    fn reap(
        &mut self,
        min: usize,
        timeout: Option<Duration>,
        out: &mut Vec<Completion>,
        handoff: impl Handoff,
    ) -> Result<(), EngineError>;
}

/// What the caller of [`Engine::reap`] hears while the engine hands its queued I/Os over.
pub trait Handoff {
    /// `slots` go to the kernel next: an engine that hands queued I/Os over in `reap` calls
    /// this just before each hand-off, so the caller can stamp each I/O when it really starts
    /// rather than when it was queued; engines that perform I/O in `submit` never call it.
    fn handing(&mut self, slots: &[u32]);

    /// Whether the caller keeps CPU work for [`Handoff::idle`] moments now. When it does, an
    /// engine that waits hands every I/O over before it waits (one more system call per reap),
    /// so that the work is done while the device holds them all.
    fn keeps_work(&self) -> bool;

    /// The device holds every queued I/O and no completion is waiting to be reaped: the
    /// caller does one piece of the work it kept for such a moment, and says whether it did
    /// any (false: nothing is kept). Engines call it until it returns false or a completion
    /// arrives, so the work fills time the thread would spend waiting instead of holding up
    /// the completions behind it; an engine that performs I/O in `submit` calls it until it
    /// returns false.
    fn idle(&mut self) -> bool;
}

/// A caller that needs to hear nothing.
impl Handoff for () {
    #[inline(always)]
    fn handing(&mut self, _slots: &[u32]) {}

    #[inline(always)]
    fn keeps_work(&self) -> bool {
        false
    }

    #[inline(always)]
    fn idle(&mut self) -> bool {
        false
    }
}

/// What an engine is opened on: one file descriptor (opened by the worker with the job's
/// direct/write-through flags) and the worker's buffers, `depth` slots deep.
pub struct EngineTarget<'a> {
    pub fd: RawFd,
    pub buffers: &'a BufferPool,
    pub depth: u32,
}
