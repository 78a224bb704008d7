//! The access pattern of a workload, precomputed: a shuffled table of (size, read/write,
//! random/sequential) whose proportions match the mix and percentages exactly over one cycle.
//! Workers walk it instead of rolling dice against the configuration for every I/O.

use crate::rng::Rng;
use spindle_model::spec::{Workload, gcd};

/// Largest table built; beyond it proportions are rounded (to within 1/65536).
const MAX_ENTRIES: u64 = 1 << 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub len: u32,
    pub read: bool,
    pub random: bool,
    /// Number of `len`-aligned positions in the target, for random offsets.
    pub positions: u64,
}

impl Access {
    /// A random offset for this access: uniform over its `len`-aligned positions, so the
    /// I/O starts aligned and ends inside the target.
    #[inline(always)]
    pub fn random_offset(&self, rng: &mut Rng) -> u64 {
        rng.below(self.positions) * self.len as u64
    }
}

#[derive(Clone, Debug)]
pub struct Pattern {
    entries: Vec<Access>,
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

/// Spreads `count` entries' worth of `true` over `n` slots in random order.
fn shuffled_flags(n: usize, count: usize, rng: &mut Rng) -> Vec<bool> {
    let mut flags: Vec<bool> = (0..n).map(|i| i < count).collect();
    shuffle(&mut flags, rng);
    flags
}

fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

impl Pattern {
    /// Builds the table for `workload` on a target of `target_size` bytes.
    pub fn new(workload: &Workload, target_size: u64, seed: u64) -> Pattern {
        let mut rng = Rng::new(seed);
        let total_weight: u64 = workload.mix.iter().map(|m| m.weight as u64).sum::<u64>().max(1);
        let weight_gcd = workload.mix.iter().fold(0, |g, m| gcd(g, m.weight as u64)).max(1);
        let period = |pct: u8| 100 / gcd(pct as u64, 100);
        let n = workload
            .mix
            .iter()
            .fold(total_weight / weight_gcd, |n, m| {
                lcm(lcm(n, period(m.read_pct)), period(m.random_pct)).min(MAX_ENTRIES)
            })
            .clamp(1, MAX_ENTRIES) as usize;

        // Each line gets its share of the table; within a line, reads and random offsets are
        // spread at random, independently of each other.
        let mut entries = Vec::with_capacity(n);
        let mut assigned = 0u64;
        for (i, m) in workload.mix.iter().enumerate() {
            let share = if i + 1 == workload.mix.len() {
                n as u64 - assigned
            } else {
                (m.weight as u64 * n as u64 + total_weight / 2) / total_weight
            };
            let share = share.min(n as u64 - assigned) as usize;
            assigned += share as u64;
            let count = |pct: u8| (pct as usize * share + 50) / 100;
            let reads = shuffled_flags(share, count(m.read_pct), &mut rng);
            let randoms = shuffled_flags(share, count(m.random_pct), &mut rng);
            let len = m.block as u32;
            let positions = (target_size.saturating_sub(m.block) / m.block.max(1) + 1).max(1);
            entries.extend((0..share).map(|j| Access { len, read: reads[j], random: randoms[j], positions }));
        }
        shuffle(&mut entries, &mut rng);
        Pattern { entries }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    #[inline(always)]
    pub fn get(&self, index: usize) -> Access {
        self.entries[index]
    }

    pub fn entries(&self) -> &[Access] {
        &self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::spec::MixEntry;

    fn workload(mix: &[(u64, u32)], read: u8, random: u8) -> Workload {
        Workload {
            mix: mix
                .iter()
                .map(|&(block, weight)| MixEntry { block, weight, read_pct: read, random_pct: random })
                .collect(),
            threads: 1,
            depth: 1,
            rate_iops: None,
            buffered: false,
            write_through: false,
            fsync_every: 0,
        }
    }

    #[test]
    fn single_pattern_is_one_entry() {
        let p = Pattern::new(&workload(&[(8192, 1)], 100, 100), 1 << 30, 1);
        assert_eq!(p.len(), 1);
        assert_eq!(p.get(0), Access { len: 8192, read: true, random: true, positions: (1 << 30) / 8192 });
    }

    #[test]
    fn proportions_are_exact_over_a_cycle() {
        let p = Pattern::new(&workload(&[(65536, 83), (512, 17)], 2, 100), 1 << 30, 3);
        assert_eq!(p.len(), 100);
        let big = p.entries().iter().filter(|a| a.len == 65536).count();
        let reads = p.entries().iter().filter(|a| a.read).count();
        assert_eq!((big, reads), (83, 2));
        let p = Pattern::new(&workload(&[(8192, 1)], 33, 50), 1 << 20, 3);
        assert_eq!(p.len(), 100);
        assert_eq!(p.entries().iter().filter(|a| a.read).count(), 33);
        assert_eq!(p.entries().iter().filter(|a| a.random).count(), 50);
    }

    #[test]
    fn lines_keep_their_own_directions() {
        let w = Workload {
            mix: vec![
                MixEntry { block: 65536, weight: 136, read_pct: 100, random_pct: 100 },
                MixEntry { block: 8192, weight: 64, read_pct: 100, random_pct: 100 },
                MixEntry { block: 65536, weight: 8134, read_pct: 0, random_pct: 100 },
                MixEntry { block: 512, weight: 1666, read_pct: 0, random_pct: 100 },
            ],
            ..workload(&[(1, 1)], 0, 0)
        };
        let p = Pattern::new(&w, 1 << 30, 9);
        let n = p.len() as f64;
        let share =
            |len: u32, read: bool| p.entries().iter().filter(|a| a.len == len && a.read == read).count() as f64 / n;
        assert!((share(65536, true) - 0.0136).abs() < 0.0005);
        assert!((share(8192, true) - 0.0064).abs() < 0.0005);
        assert!((share(512, false) - 0.1666).abs() < 0.0005);
        assert_eq!(share(512, true), 0.0);
    }

    #[test]
    fn positions_keep_io_inside_the_target() {
        let p = Pattern::new(&workload(&[(4096, 1)], 100, 100), 10_000, 1);
        assert_eq!(p.get(0).positions, 2);
    }

    /// For 300 random targets (up to 64 GiB, any multiple of 512 bytes) and mixes of one to
    /// three block sizes (512 bytes to 1 MiB, each no larger than the target): every random
    /// offset is aligned to its block and ends inside the target, the count of positions
    /// is every aligned place, and offsets fall evenly over the target (the tenths of 20,000 draws pass a
    /// chi-square test; the seeds are fixed, so the outcome is certain, not lucky).
    #[test]
    fn random_offsets_are_aligned_in_range_and_uniform() {
        let mut dice = Rng::new(99);
        for case in 0..300 {
            let size = (1 + dice.below(64 << 21)) * 512;
            let blocks: Vec<(u64, u32)> = (0..1 + dice.below(3))
                .map(|_| ((1 + dice.below(2048)) * 512, 1 + dice.below(5) as u32))
                .filter(|&(block, _)| block <= size)
                .collect();
            if blocks.is_empty() {
                continue;
            }
            let pattern = Pattern::new(&workload(&blocks, 50, 100), size, case);
            let mut rng = Rng::new(case ^ 7);
            for access in pattern.entries().iter().take(3) {
                let len = access.len as u64;
                assert_eq!(access.positions, (size - len) / len + 1, "case {case}: every aligned place, no more");
                let mut tenths = [0u32; 10];
                for _ in 0..20_000 {
                    let offset = access.random_offset(&mut rng);
                    assert!(offset % len == 0 && offset + len <= size, "case {case}: {offset} of {len} in {size}");
                    tenths[(offset * 10 / size) as usize] += 1;
                }
                if access.positions >= 1000 {
                    // Pearson's chi-square over the tenths (9 degrees of freedom): above 40 has
                    // a chance of about 1 in 70,000 for uniform offsets; a bias of a few percent
                    // in one tenth, or a tenth never reached, gives hundreds.
                    let chi2: f64 = tenths.iter().map(|&n| (n as f64 - 2_000.0).powi(2) / 2_000.0).sum();
                    assert!(chi2 < 40.0, "case {case}: chi-square {chi2:.1} over {tenths:?}");
                }
            }
        }
    }
}
