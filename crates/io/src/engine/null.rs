//! The null engine: every I/O completes at once without touching a device. It measures the
//! tool's own ceiling (as fio's `ioengine=null` does) and makes scheduler tests deterministic.

use super::{Completion, Engine, EngineError, Handoff, IoRequest};
use std::time::Duration;

#[derive(Default)]
pub struct NullEngine {
    done: Vec<Completion>,
}

impl NullEngine {
    pub fn new(depth: u32) -> NullEngine {
        NullEngine { done: Vec::with_capacity(depth as usize) }
    }
}

impl Engine for NullEngine {
    #[inline]
    fn submit(&mut self, requests: &[IoRequest]) -> Result<(), EngineError> {
        self.done.extend(requests.iter().map(|r| Completion { slot: r.slot, result: r.len as i32 }));
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
