//! wyrand: a 64-bit PRNG that costs about a nanosecond per number, so random offsets and
//! buffer stamps stay out of the way of the I/O being measured. Not for cryptography.

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x2d35_8dcc_aa6c_78a5)
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (self.0 as u128).wrapping_mul((self.0 ^ 0xe703_7ed1_a0b4_28db) as u128);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; the bias for n far below 2^64 is nil).
    #[inline(always)]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Fills `buf` with random bytes: incompressible data for test files and write buffers.
    pub fn fill(&mut self, buf: &mut [u8]) {
        let mut chunks = buf.chunks_exact_mut(8);
        for chunk in &mut chunks {
            chunk.copy_from_slice(&self.next_u64().to_ne_bytes());
        }
        let tail = chunks.into_remainder();
        let last = self.next_u64().to_ne_bytes();
        tail.copy_from_slice(&last[..tail.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut rng = Rng::new(1);
        let mut seen = [0u32; 10];
        for _ in 0..100_000 {
            seen[rng.below(10) as usize] += 1;
        }
        for n in seen {
            assert!((9_000..11_000).contains(&n), "{seen:?}");
        }
    }

    #[test]
    fn fill_leaves_no_zero_runs() {
        let mut buf = vec![0u8; 4099];
        Rng::new(7).fill(&mut buf);
        assert!(buf.windows(8).all(|w| w != [0u8; 8]));
        let distinct = buf.iter().collect::<std::collections::HashSet<_>>().len();
        assert!(distinct > 250);
    }
}
