//! Engines that perform each I/O as it is submitted (null, sync): they differ only in how
//! one I/O is performed, so submitting and reaping are written once, here.

use super::{Completion, Engine, EngineError, Handoff, IoRequest};
use std::time::Duration;

/// How an engine performs one I/O there and then: the bytes transferred, or a negative errno.
pub trait Perform {
    fn perform(&self, r: &IoRequest) -> i32;
}

/// An engine whose I/Os are done by `submit`: `reap` only hands their completions over.
pub struct Performed<P> {
    how: P,
    done: Vec<Completion>,
}

impl<P> Performed<P> {
    pub(super) fn with(how: P, depth: u32) -> Performed<P> {
        Performed { how, done: Vec::with_capacity(depth as usize) }
    }
}

impl<P: Perform> Engine for Performed<P> {
    #[inline]
    fn submit(&mut self, requests: &[IoRequest]) -> Result<(), EngineError> {
        self.done.extend(requests.iter().map(|r| Completion { slot: r.slot, result: self.how.perform(r) }));
        Ok(())
    }

    #[inline]
    fn reap(
        &mut self,
        _min: usize,
        _timeout: Option<Duration>,
        out: &mut Vec<Completion>,
        mut handoff: impl Handoff,
    ) -> Result<(), EngineError> {
        // Every I/O was performed in `submit`, so the caller's kept work may run now; nothing is
        // left to hand over or wait for.
        while handoff.idle() {}
        out.append(&mut self.done);
        Ok(())
    }
}
