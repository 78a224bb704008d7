//! What a worker writes and what it does with what it reads, chosen once per job: the plain
//! payload (random bytes, made unique every 4 KiB so dedup cannot skip a write) or the
//! verifying one (every sector stamped, every sector read checked). The worker loop is generic
//! over it, so a plain run pays nothing for verification and there is no branch per I/O.

use crate::engine::{BufferPool, OpKind};
use crate::rng::Rng;
use crate::verify::check::{Verdicts, check_read};
use crate::verify::map::{GenerationMap, Release};
use crate::verify::stamp::{Stamp, stamp_block};
use spindle_model::verify::VerifySummary;
use std::path::Path;

/// An I/O that completed, as the payload needs it.
#[derive(Clone, Copy, Debug)]
pub struct Done {
    pub kind: OpKind,
    pub slot: u32,
    pub offset: u64,
    pub len: u32,
    /// It transferred all its bytes.
    pub ok: bool,
}

pub trait Payload {
    /// Takes `[offset, offset + len)` for one I/O; false when another I/O in flight holds
    /// part of it, and the worker picks another place.
    fn claim(&mut self, offset: u64, len: u32) -> bool;
    /// Fills a write's buffer (the slot is free) for `offset`.
    fn fill_write(&mut self, buf: &mut [u8], slot: u32, offset: u64, rng: &mut Rng);
    /// A read or write completed; returns the buffer slot that is free now (its own, or a
    /// spare standing in while its data waits to be checked).
    fn completed(&mut self, done: Done, buffers: &BufferPool) -> u32;
    /// The device has been handed its next batch: work kept for this moment is done now.
    fn submitted(&mut self, buffers: &BufferPool);
}

/// Bytes between dedup-defeating stamps in a plain write: the smallest block arrays dedup on.
const DEDUP_STRIDE: usize = 4096;

/// Random bytes, never checked.
pub struct Plain;

impl Payload for Plain {
    #[inline(always)]
    fn claim(&mut self, _offset: u64, _len: u32) -> bool {
        true
    }

    /// Makes every 4 KiB of a write unique, so deduplicating arrays cannot skip the write.
    #[inline(always)]
    fn fill_write(&mut self, buf: &mut [u8], _slot: u32, _offset: u64, rng: &mut Rng) {
        let mut at = 0;
        while at + 8 <= buf.len() {
            buf[at..at + 8].copy_from_slice(&rng.next_u64().to_ne_bytes());
            at += DEDUP_STRIDE;
        }
    }

    #[inline(always)]
    fn completed(&mut self, done: Done, _buffers: &BufferPool) -> u32 {
        done.slot
    }

    #[inline(always)]
    fn submitted(&mut self, _buffers: &BufferPool) {}
}

/// Stamps every written sector with the run, its offset and its write's generation, and
/// checks every sector read against the target's generation map.
pub struct Verifying<'a> {
    map: &'a GenerationMap,
    run: u64,
    target: &'a Path,
    /// The generation of the write in each slot.
    generations: Vec<u64>,
    verdicts: Verdicts,
    /// Reads completed since the last submission, checked once the device has its next batch
    /// (a 4 KiB read's check, eight checksums of memory the device just wrote, costs about a
    /// microsecond: done before resubmitting, it stretched every cycle of a disk-bound run).
    unchecked: Vec<Done>,
    /// Buffers beyond the depth, standing in for those of reads waiting to be checked.
    spare: Vec<u32>,
    pub summary: VerifySummary,
}

impl<'a> Verifying<'a> {
    /// For a worker of `depth` whose pool has `slots` buffers (twice the depth: one spare for
    /// each read that may wait for its check).
    pub fn new(map: &'a GenerationMap, run: u64, target: &'a Path, depth: usize, slots: usize) -> Verifying<'a> {
        let summary = VerifySummary { id: format!("{run:016x}"), ..VerifySummary::default() };
        Verifying {
            map,
            run,
            target,
            generations: vec![0; slots],
            verdicts: Verdicts::default(),
            unchecked: Vec::with_capacity(depth),
            spare: (depth as u32..slots as u32).collect(),
            summary,
        }
    }

    /// Checks a completed read's sectors against the map, and lets go of its place.
    fn check(&mut self, done: Done, buffers: &BufferPool) {
        if done.ok {
            // SAFETY: the read completed, so the kernel is done with the slot, and nothing
            // reuses it until it is handed back as a spare below.
            let data = unsafe { buffers.slot(done.slot) };
            let map = self.map;
            let (block, expected, first) =
                (&data[..done.len as usize], |at| map.expected(at), |at| map.first_report(at));
            check_read(
                block,
                done.offset,
                self.run,
                self.target,
                expected,
                first,
                &mut self.verdicts,
                &mut self.summary,
            );
        }
        self.map.release(done.offset, done.len, Release::Read);
    }
}

impl Payload for Verifying<'_> {
    fn claim(&mut self, offset: u64, len: u32) -> bool {
        self.map.claim(offset, len)
    }

    fn fill_write(&mut self, buf: &mut [u8], slot: u32, offset: u64, _rng: &mut Rng) {
        let generation = self.map.next_generation();
        self.generations[slot as usize] = generation;
        let stamp = Stamp { run: self.run, offset, generation, write_start: offset, write_len: buf.len() as u32 };
        stamp_block(buf, stamp);
    }

    fn completed(&mut self, done: Done, _buffers: &BufferPool) -> u32 {
        match (done.kind, done.ok) {
            (OpKind::Read, _) => {
                self.unchecked.push(done);
                self.spare.pop().expect("a spare buffer for each read waiting for its check")
            }
            (OpKind::Write, ok) => {
                let release = if ok { Release::Written(self.generations[done.slot as usize]) } else { Release::Failed };
                self.map.release(done.offset, done.len, release);
                done.slot
            }
            (OpKind::Flush, _) => done.slot,
        }
    }

    fn submitted(&mut self, buffers: &BufferPool) {
        while let Some(done) = self.unchecked.pop() {
            self.check(done, buffers);
            self.spare.push(done.slot);
        }
    }
}
