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
    /// Whether checks of completed reads wait until the next batch is submitted, so the device
    /// works on it while the CPU checks; the worker then keeps a second buffer per slot of
    /// depth, for the reads waiting to be checked.
    const DEFERS_READ_CHECKS: bool = false;
    /// Takes `[offset, offset + len)` for one I/O; false when another I/O in flight holds
    /// part of it, and the worker picks another place.
    fn claim(&mut self, offset: u64, len: u32) -> bool;
    /// Fills a write's buffer (the slot is free) for `offset`.
    fn fill_write(&mut self, buf: &mut [u8], slot: u32, offset: u64, rng: &mut Rng);
    /// A read or write completed (its slot is free again).
    fn completed(&mut self, done: Done, buffers: &BufferPool);
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
    fn completed(&mut self, _done: Done, _buffers: &BufferPool) {}
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
    pub summary: VerifySummary,
}

impl<'a> Verifying<'a> {
    pub fn new(map: &'a GenerationMap, run: u64, target: &'a Path, slots: usize) -> Verifying<'a> {
        let summary = VerifySummary { id: format!("{run:016x}"), ..VerifySummary::default() };
        Verifying { map, run, target, generations: vec![0; slots], verdicts: Verdicts::default(), summary }
    }
}

impl Payload for Verifying<'_> {
    // A 4 KiB read's check (eight checksums from memory the device just wrote) costs about a
    // microsecond: done before resubmitting, it stretched every cycle of a disk-bound run.
    const DEFERS_READ_CHECKS: bool = true;

    fn claim(&mut self, offset: u64, len: u32) -> bool {
        self.map.claim(offset, len)
    }

    fn fill_write(&mut self, buf: &mut [u8], slot: u32, offset: u64, _rng: &mut Rng) {
        let generation = self.map.next_generation();
        self.generations[slot as usize] = generation;
        let stamp = Stamp { run: self.run, offset, generation, write_start: offset, write_len: buf.len() as u32 };
        stamp_block(buf, stamp);
    }

    fn completed(&mut self, done: Done, buffers: &BufferPool) {
        let release = match (done.kind, done.ok) {
            (OpKind::Write, true) => Release::Written(self.generations[done.slot as usize]),
            (OpKind::Write, false) => Release::Failed,
            (OpKind::Read, true) => {
                // SAFETY: the read completed, so the kernel is done with the slot.
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
                Release::Read
            }
            (OpKind::Read, false) | (OpKind::Flush, _) => Release::Read,
        };
        self.map.release(done.offset, done.len, release);
    }
}
