//! What each granule of a target should hold during a verified run: the generation of the
//! last write to it that completed, and whether an I/O on it is in flight. An I/O claims its
//! granules before it is issued, so no two I/Os overlap: a read finds exactly the last
//! completed write, and writes to one place complete in the order they were numbered.

use super::cells::Cells;
use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// An I/O is in flight on the granule.
const BUSY: u32 = 1 << 31;
/// A write to the granule failed: what it holds now is anyone's guess.
const UNKNOWN: u32 = BUSY - 1;
/// Generations are kept modulo this in the map (the stamps carry all 64 bits).
const GENERATION_MASK: u64 = (BUSY - 1) as u64;

/// What a granule should hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Nothing written by this run: whatever was there before.
    Never,
    /// A write failed there; nothing can be said.
    Unknown,
    /// The last completed write's generation (modulo 2^31).
    Written(u32),
}

impl Expected {
    /// What a cell's raw value (as `GenerationMap::snapshot` copies it) says: the expectation,
    /// and whether an I/O held the granule at that moment.
    #[inline(always)]
    pub fn of_cell(raw: u32) -> (Expected, bool) {
        let expected = match raw & !BUSY {
            0 => Expected::Never,
            UNKNOWN => Expected::Unknown,
            g => Expected::Written(g),
        };
        (expected, raw & BUSY != 0)
    }

    /// Whether a stamp's generation is the one expected.
    pub fn is(self, generation: u64) -> bool {
        self == Expected::Written((generation & GENERATION_MASK) as u32)
    }
}

pub struct GenerationMap {
    granule: u64,
    /// log2 of `granule` when it is a power of two (every block size of the common cases):
    /// a cell's index is then a shift, not a 64-bit division (tens of cycles, and a verified
    /// 4 KiB read looks up its granule once per sector).
    granule_shift: Option<u32>,
    cells: Cells,
    next: AtomicU64,
    /// Sectors already reported faulty, so a sector read again (by any thread) is one fault,
    /// not one per read. Touched only when a fault is found.
    reported: Mutex<HashSet<u64>>,
}

impl GenerationMap {
    /// A map of a target of `size` bytes whose I/Os all start and end on `granule` bytes.
    pub fn new(size: u64, granule: u64) -> GenerationMap {
        let granule = granule.max(1);
        let cells = size.div_ceil(granule) as usize;
        GenerationMap {
            granule,
            granule_shift: granule.is_power_of_two().then(|| granule.trailing_zeros()),
            cells: Cells::zeroed(cells),
            next: AtomicU64::new(1),
            reported: Mutex::new(HashSet::new()),
        }
    }

    /// Whether the faulty sector at `offset` is reported for the first time.
    pub fn first_report(&self, offset: u64) -> bool {
        match self.reported.lock() {
            Ok(mut seen) => seen.insert(offset),
            // A thread panicked holding it: report rather than lose a fault.
            Err(_) => true,
        }
    }

    /// Bytes the map takes for a target of `size` bytes.
    pub fn bytes_for(size: u64, granule: u64) -> u64 {
        size.div_ceil(granule.max(1)) * 4
    }

    /// The index of the cell holding `offset`.
    #[inline(always)]
    fn index(&self, offset: u64) -> usize {
        match self.granule_shift {
            Some(shift) => (offset >> shift) as usize,
            None => (offset / self.granule) as usize,
        }
    }

    #[inline(always)]
    fn cells(&self, offset: u64, len: u32) -> std::ops::Range<usize> {
        // The cell after the last byte's: `index` of the end rounded up to a granule.
        let last = self.index(offset + u64::from(len) + self.granule - 1);
        self.index(offset)..last.min(self.cells.len())
    }

    /// Starts bringing the cell holding `offset` into the cache, for a claim coming soon: a
    /// claim reads a cell at a random place, and the miss stalled the worker between a
    /// completion and its next hand-off (the slowest instruction of a verified run).
    #[inline(always)]
    pub fn prefetch(&self, offset: u64) {
        #[cfg(target_arch = "x86_64")]
        if let Some(cell) = self.cells.get(self.index(offset)) {
            // SAFETY: a prefetch only hints; the address is inside the map.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(cell.as_ptr().cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = offset;
    }

    /// Claims `[offset, offset + len)` for one I/O; false (and nothing claimed) when another
    /// I/O holds any of it.
    pub fn claim(&self, offset: u64, len: u32) -> bool {
        let range = self.cells(offset, len);
        for i in range.clone() {
            let cell = &self.cells[i];
            let mut current = cell.load(Ordering::Relaxed);
            loop {
                if current & BUSY != 0 {
                    for held in &self.cells[range.start..i] {
                        held.fetch_and(!BUSY, Ordering::Release);
                    }
                    return false;
                }
                match cell.compare_exchange_weak(current, current | BUSY, Ordering::Acquire, Ordering::Relaxed) {
                    Ok(_) => break,
                    Err(seen) => current = seen,
                }
            }
        }
        true
    }

    /// What the granule holding `offset` should hold (its claim is ours).
    pub fn expected(&self, offset: u64) -> Expected {
        self.cells.get(self.index(offset)).map_or(Expected::Never, |c| Expected::of_cell(c.load(Ordering::Acquire)).0)
    }

    /// The granule size the map was made with.
    pub fn granule(&self) -> u64 {
        self.granule
    }

    /// Copies every cell's raw value into `into` (see `Expected::of_cell`), while I/O goes on,
    /// and returns the generation counter as it was before the copy began: a write numbered
    /// below it had claimed its granules by then, so the copy shows it done or in flight;
    /// writes numbered from it on may be missing from the copy.
    pub fn snapshot(&self, into: &mut Vec<u32>) -> u64 {
        // Acquire pairs with next_generation's Release: the claims made before the numbers
        // read here are seen by the loads below.
        let next = self.next.load(Ordering::Acquire);
        into.clear();
        into.extend(self.cells.iter().map(|c| c.load(Ordering::Relaxed)));
        next
    }

    /// The next write's generation: never one the map would read as `Never` or `Unknown`.
    pub fn next_generation(&self) -> u64 {
        loop {
            // Release (the same instruction as Relaxed on x86-64): the claim made before
            // numbering the write is seen by a snapshot that sees the number taken.
            let g = self.next.fetch_add(1, Ordering::Release);
            if !matches!((g & GENERATION_MASK) as u32, 0 | UNKNOWN) {
                return g;
            }
        }
    }

    /// Ends a claim: a completed write leaves its generation, a failed one leaves the
    /// granules unknown, a read leaves them as they were.
    pub fn release(&self, offset: u64, len: u32, outcome: Release) {
        for cell in &self.cells[self.cells(offset, len)] {
            match outcome {
                Release::Written(g) => cell.store((g & GENERATION_MASK) as u32, Ordering::Release),
                Release::Failed => cell.store(UNKNOWN, Ordering::Release),
                Release::Read => {
                    cell.fetch_and(!BUSY, Ordering::Release);
                }
            }
        }
    }

    /// Bytes of the target written by this run (granules a completed write left).
    pub fn written_bytes(&self) -> u64 {
        let written = self.cells.iter().filter(|c| !matches!(c.load(Ordering::Relaxed) & !BUSY, 0 | UNKNOWN)).count();
        written as u64 * self.granule
    }
}

/// How an I/O's claim ends.
#[derive(Clone, Copy, Debug)]
pub enum Release {
    Written(u64),
    Failed,
    Read,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_ios_cannot_both_hold_a_granule() {
        let map = GenerationMap::new(64 * 1024, 4096);
        assert!(map.claim(8192, 8192));
        assert!(!map.claim(12288, 4096), "inside the first claim");
        assert!(!map.claim(4096, 8192), "overlaps its start");
        assert!(map.claim(4096, 4096), "the failed claim let go of what it took");
        map.release(8192, 8192, Release::Written(7));
        assert!(map.claim(12288, 4096));
        assert_eq!(map.expected(12288), Expected::Written(7));
        assert!(map.expected(12288).is(7) && !map.expected(12288).is(6));
        map.release(12288, 4096, Release::Read);
        map.release(4096, 4096, Release::Failed);
        assert_eq!(map.expected(4096), Expected::Unknown);
        assert_eq!(map.expected(0), Expected::Never);
        assert_eq!(map.written_bytes(), 8192);
        assert_eq!(GenerationMap::bytes_for(1 << 30, 4096), 1 << 20);
    }

    #[test]
    fn granules_of_any_size_are_found_by_shift_or_division_alike() {
        // 1536 bytes (60 KiB and 8 KiB blocks share 4 KiB; three sectors share no power of two).
        for granule in [512, 1536, 4096] {
            let map = GenerationMap::new(granule * 10, granule);
            assert_eq!(map.granule_shift.is_some(), granule != 1536);
            assert!(map.claim(granule * 2, granule as u32 * 3));
            assert!(!map.claim(granule * 4, granule as u32), "granule {granule}: the claim's last");
            assert!(map.claim(granule, granule as u32), "granule {granule}: the one before it");
            assert!(map.claim(granule * 5, granule as u32), "granule {granule}: the one after it");
            map.release(granule * 2, granule as u32 * 3, Release::Written(4));
            assert_eq!(map.expected(granule * 4 + 511), Expected::Written(4));
            assert_eq!(map.expected(granule * 5), Expected::Never);
            assert_eq!(map.written_bytes(), granule * 3);
            // The last granule, and a claim running past the end, stay inside the map.
            assert!(map.claim(granule * 9, granule as u32 * 2));
            map.prefetch(granule * 12);
        }
    }

    #[test]
    fn threads_sharing_a_map_never_hold_one_granule_at_once() {
        let map = GenerationMap::new(16 * 4096, 4096);
        let holders: Vec<AtomicU64> = (0..16).map(|_| AtomicU64::new(0)).collect();
        std::thread::scope(|scope| {
            for seed in 0..2 {
                let (map, holders) = (&map, &holders);
                scope.spawn(move || {
                    let mut rng = spindle_model::rng::Rng::new(seed);
                    for _ in 0..200_000 {
                        let (first, n) = (rng.below(15), 1 + rng.below(2));
                        if !map.claim(first * 4096, n as u32 * 4096) {
                            continue;
                        }
                        for h in &holders[first as usize..][..n as usize] {
                            assert_eq!(h.fetch_add(1, Ordering::SeqCst), 0, "two claims hold a granule");
                        }
                        for h in &holders[first as usize..][..n as usize] {
                            h.fetch_sub(1, Ordering::SeqCst);
                        }
                        map.release(first * 4096, n as u32 * 4096, Release::Read);
                    }
                });
            }
        });
        assert!((0..16).all(|i| map.claim(i * 4096, 4096)), "every claim was let go");
    }

    #[test]
    fn generations_skip_the_values_the_map_reserves() {
        let map = GenerationMap::new(4096, 4096);
        map.next.store(u64::from(UNKNOWN), Ordering::Relaxed);
        assert_eq!(map.next_generation(), u64::from(UNKNOWN) + 2, "UNKNOWN and then 0 (mod 2^31) are skipped");
    }
}
