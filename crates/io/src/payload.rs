//! What a worker writes and what it does with what it reads, chosen once per job: the plain
//! payload (random bytes, made unique every 4 KiB so dedup cannot skip a write) or the
//! verifying one (every sector stamped, every sector read checked). The worker loop is generic
//! over it, so a plain run pays nothing for verification and there is no branch per I/O.

use crate::engine::{BufferPool, OpKind};
use crate::rng::Rng;
use crate::verify::check::{Verdicts, check_read};
use crate::verify::map::{GenerationMap, Release};
use crate::verify::stamp::{SECTOR, Stamp, body_hash, stamp_block_with_bodies};
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
    /// Whether [`Payload::anticipate`] does anything: the worker looks ahead only for a
    /// payload that uses it, so the plain loop computes nothing it would throw away.
    const ANTICIPATES: bool;
    /// An I/O will probably claim a place starting at `offset` soon: a hint, to start bringing
    /// what the claim reads into the cache.
    fn anticipate(&self, offset: u64);
    /// Takes `[offset, offset + len)` for one I/O; false when another I/O in flight holds
    /// part of it, and the worker picks another place.
    fn claim(&mut self, offset: u64, len: u32) -> bool;
    /// Fills a write's buffer (the slot is free) for `offset`.
    fn fill_write(&mut self, buf: &mut [u8], slot: u32, offset: u64, rng: &mut Rng);
    /// A read or write completed; returns the buffer slot that is free now (its own, or a
    /// spare standing in while its data waits to be checked).
    fn completed(&mut self, done: Done, buffers: &BufferPool) -> u32;
    /// Whether work is kept for an idle moment (see [`Payload::idle`]).
    fn keeps_work(&self) -> bool;
    /// The device holds every I/O and no completion waits (see `Handoff::idle`): one piece of
    /// the kept work is done now; false when none is kept.
    fn idle(&mut self, buffers: &BufferPool) -> bool;
}

/// Bytes between dedup-defeating stamps in a plain write: the smallest block arrays dedup on.
const DEDUP_STRIDE: usize = 4096;

/// Random bytes, never checked.
pub struct Plain;

impl Payload for Plain {
    const ANTICIPATES: bool = false;

    #[inline(always)]
    fn anticipate(&self, _offset: u64) {}

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
    fn keeps_work(&self) -> bool {
        false
    }

    #[inline(always)]
    fn idle(&mut self, _buffers: &BufferPool) -> bool {
        false
    }
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
    /// Completed reads waiting for their check, done in idle moments: a 4 KiB read's check
    /// (eight sectors of memory the device just wrote, hashed) costs a few hundred
    /// nanoseconds, and done between a completion and the next hand-off it cost a disk-bound
    /// run several times that share of its IOPS.
    unchecked: Vec<Done>,
    /// Buffers beyond the depth, standing in for those of reads waiting to be checked.
    spare: Vec<u32>,
    /// The body hash of each sector of each buffer (`sectors` a buffer), of which the first
    /// `known[slot]` are current. Stamping changes only headers and only reads change bodies,
    /// so a write stamps with these instead of hashing its whole buffer again; a read's check
    /// hashes the bodies it brought anyway, and leaves them here.
    bodies: Vec<u64>,
    known: Vec<usize>,
    sectors: usize,
    pub summary: VerifySummary,
}

impl<'a> Verifying<'a> {
    /// For a worker of `depth` whose pool is `buffers` (twice the depth: one spare for each
    /// read that may wait for its check).
    pub fn new(
        map: &'a GenerationMap,
        run: u64,
        target: &'a Path,
        depth: usize,
        buffers: &BufferPool,
    ) -> Verifying<'a> {
        let summary = VerifySummary { id: format!("{run:016x}"), ..VerifySummary::default() };
        let (slots, sectors) = (buffers.slots(), buffers.slot_size() / SECTOR);
        Verifying {
            map,
            run,
            target,
            generations: vec![0; slots],
            verdicts: Verdicts::default(),
            unchecked: Vec::with_capacity(depth),
            spare: (depth as u32..slots as u32).collect(),
            bodies: vec![0; slots * sectors],
            known: vec![0; slots],
            sectors,
            summary,
        }
    }

    /// Checks a completed read's sectors against the map, and lets go of its place.
    fn check(&mut self, done: Done, buffers: &BufferPool) {
        let slot = done.slot as usize;
        // Only what was checked below is known: a failed read may have changed any of it.
        let mut known = 0;
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
            let read = self.verdicts.bodies();
            self.bodies[slot * self.sectors..][..read.len()].copy_from_slice(read);
            known = self.known[slot].max(read.len());
        }
        self.known[slot] = known;
        self.map.release(done.offset, done.len, Release::Read);
    }
}

impl Payload for Verifying<'_> {
    const ANTICIPATES: bool = true;

    #[inline(always)]
    fn anticipate(&self, offset: u64) {
        self.map.prefetch(offset);
    }

    fn claim(&mut self, offset: u64, len: u32) -> bool {
        self.map.claim(offset, len)
    }

    fn fill_write(&mut self, buf: &mut [u8], slot: u32, offset: u64, _rng: &mut Rng) {
        let generation = self.map.next_generation();
        let slot = slot as usize;
        self.generations[slot] = generation;
        let sectors = buf.len() / SECTOR;
        let bodies = &mut self.bodies[slot * self.sectors..][..sectors];
        for (i, body) in bodies.iter_mut().enumerate().skip(self.known[slot]) {
            *body = body_hash(&buf[i * SECTOR..][..SECTOR]);
        }
        self.known[slot] = self.known[slot].max(sectors);
        let stamp = Stamp { run: self.run, offset, generation, write_start: offset, write_len: buf.len() as u32 };
        stamp_block_with_bodies(buf, stamp, bodies);
    }

    fn completed(&mut self, done: Done, buffers: &BufferPool) -> u32 {
        match (done.kind, done.ok) {
            (OpKind::Read, _) => {
                if self.spare.is_empty() {
                    // Every spare holds a read still unchecked (no idle moment came): one
                    // check now frees one.
                    self.idle(buffers);
                }
                self.unchecked.push(done);
                self.spare.pop().expect("a spare buffer once a read is checked")
            }
            (OpKind::Write, ok) => {
                let release = if ok { Release::Written(self.generations[done.slot as usize]) } else { Release::Failed };
                self.map.release(done.offset, done.len, release);
                done.slot
            }
            (OpKind::Flush, _) => done.slot,
        }
    }

    fn keeps_work(&self) -> bool {
        !self.unchecked.is_empty()
    }

    fn idle(&mut self, buffers: &BufferPool) -> bool {
        let Some(done) = self.unchecked.pop() else { return false };
        self.check(done, buffers);
        self.spare.push(done.slot);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::stamp;
    use spindle_model::verify::FindingKind;

    const RUN: u64 = 0xfeed;
    const BLOCK: usize = 4096;
    const BLOCKS: u64 = 64;
    const DEPTH: usize = 4;

    /// Every block written (stamped) and read back as a worker of depth 4 would, a bit
    /// flipped in every seventh read: each cycle the device fills the free slots with the next
    /// reads, then (every third cycle only, so spares run out and completions must check
    /// reads themselves) an idle moment comes, then the reads complete. A slot handed out
    /// while its read still waited for its check would be checked holding the next read's
    /// block and found misdirected, so the faults counted are exactly the flipped bits.
    #[test]
    fn reads_wait_for_their_check_in_buffers_nobody_reuses() {
        let (slots, map) = (DEPTH * 2, GenerationMap::new(BLOCKS * BLOCK as u64, BLOCK as u64));
        let buffers = BufferPool::new(slots, BLOCK);
        let mut payload = Verifying::new(&map, RUN, Path::new("t"), DEPTH, &buffers);
        let mut written = Vec::new();
        for b in 0..BLOCKS {
            let offset = b * BLOCK as u64;
            assert!(payload.claim(offset, BLOCK as u32));
            // SAFETY: nothing is in flight.
            let block = unsafe { &mut buffers.slot_mut(0)[..BLOCK] };
            payload.fill_write(block, 0, offset, &mut Rng::new(1));
            payload.completed(Done { kind: OpKind::Write, slot: 0, offset, len: BLOCK as u32, ok: true }, &buffers);
            written.push(block.to_vec());
        }
        let mut free: Vec<u32> = (0..DEPTH as u32).collect();
        let mut in_flight: Vec<(u32, usize)> = Vec::new();
        let (mut next, mut cycle) = (0, 0);
        loop {
            cycle += 1;
            while next < written.len()
                && let Some(slot) = free.pop()
            {
                assert!(payload.claim((next * BLOCK) as u64, BLOCK as u32));
                // SAFETY: the slot is free: neither in flight nor waiting for its check.
                let data = unsafe { buffers.slot_mut(slot) };
                data[..BLOCK].copy_from_slice(&written[next]);
                if next % 7 == 3 {
                    data[100] ^= 1;
                }
                in_flight.push((slot, next));
                next += 1;
            }
            if in_flight.is_empty() {
                while payload.idle(&buffers) {}
                break;
            }
            if cycle % 3 == 0 {
                while payload.idle(&buffers) {}
            }
            for (slot, b) in in_flight.drain(..) {
                let done = Done { kind: OpKind::Read, slot, offset: (b * BLOCK) as u64, len: BLOCK as u32, ok: true };
                free.push(payload.completed(done, &buffers));
            }
        }
        let summary = &payload.summary;
        let flipped = (0..BLOCKS).filter(|b| b % 7 == 3).count() as u64;
        assert_eq!(summary.sectors_checked, BLOCKS * 8);
        assert_eq!(summary.faults.get(&FindingKind::Corrupt), Some(&flipped), "{:?}", summary.faults);
        assert_eq!(summary.faulty_sectors(), flipped, "{:?}", summary.faults);
        // Every read let go of its place: the whole target can be claimed again.
        assert!((0..BLOCKS).all(|b| map.claim(b * BLOCK as u64, BLOCK as u32)));
    }

    /// A write stamps with the body hashes its buffer's last read left, so they must be the
    /// hashes of what that read brought, and forgotten when a read fails (the kernel may have
    /// changed any of the buffer): every stamp below must read back intact.
    #[test]
    fn writes_stamp_correctly_whatever_was_last_read_into_their_buffer() {
        let (slots, map) = (2, GenerationMap::new(BLOCKS * BLOCK as u64, BLOCK as u64));
        let mut buffers = BufferPool::new(slots, BLOCK);
        buffers.fill_random(&mut Rng::new(3));
        let mut payload = Verifying::new(&map, RUN, Path::new("t"), 1, &buffers);
        let mut foreign = Rng::new(4);
        // The worker's one free buffer: a read hands it over and gets a spare back.
        let mut slot = 0;
        let write = |payload: &mut Verifying, slot: u32, offset: u64| {
            assert!(payload.claim(offset, BLOCK as u32));
            // SAFETY: nothing is in flight.
            let block = unsafe { &mut buffers.slot_mut(slot)[..BLOCK] };
            payload.fill_write(block, slot, offset, &mut Rng::new(1));
            for (i, sector) in block.chunks(SECTOR).enumerate() {
                assert!(matches!(stamp::read(sector, RUN), stamp::Sector::Stamped(_)), "offset {offset} sector {i}");
            }
            payload.completed(Done { kind: OpKind::Write, slot, offset, len: BLOCK as u32, ok: true }, &buffers);
        };
        let mut read = |payload: &mut Verifying, slot: u32, offset: u64, ok: bool| {
            assert!(payload.claim(offset, BLOCK as u32));
            // SAFETY: nothing is in flight: the "kernel" brings another program's bytes.
            foreign.fill(unsafe { &mut buffers.slot_mut(slot)[..BLOCK] });
            let spare = payload.completed(Done { kind: OpKind::Read, slot, offset, len: BLOCK as u32, ok }, &buffers);
            while payload.idle(&buffers) {}
            spare
        };
        for (b, ok) in [(0, true), (2, false), (4, true), (6, false)] {
            write(&mut payload, slot, b * BLOCK as u64);
            // The read's buffer becomes the spare, and the next write gets it after the next read.
            slot = read(&mut payload, slot, (b + 1) * BLOCK as u64, ok);
            write(&mut payload, slot, (b + 8) * BLOCK as u64);
            slot = read(&mut payload, slot, (b + 9) * BLOCK as u64, true);
        }
    }
}
