//! One direction's transfer sizes as a counter log gives them: a mean a sample (Avg. Disk
//! Bytes/Read or /Write), weighted by its I/Os. A mean at a size class is that size; a mean
//! between classes is a mix of sizes within the sample (64K and 512B writes in one second make
//! a mean of 32.3K), or one size that is no power of two, and the mean alone cannot tell which.
//! The method still buckets it into the nearest class, so a replay would issue a size that may
//! never have been written: those samples are counted apart, to be said.

use super::{MIN_CLASS, SizeShare, covering, size_class, weigh};
use serde::Serialize;

/// A mean within this fraction of its size class is taken for that size: counters print a
/// mean to three significant digits or more (iostat's 64.00 kB, perfmon's 65536.000), and a
/// sample of one size gives exactly its size.
const SAME_SIZE: f64 = 0.005;

/// I/Os of samples whose mean size is none of the sizes the profile names (and the replay
/// issues): mixed sizes within each sample, or one size between the classes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeanBetween {
    /// Their share of the direction's I/Os, percent.
    pub pct: f64,
    /// Their mean size over all of them, bytes (each sample's mean weighted by its I/Os).
    pub mean_bytes: f64,
    /// The smallest and largest of their samples' means, bytes.
    pub low_bytes: f64,
    pub high_bytes: f64,
    /// Two sizes a mix of which makes `mean_bytes`: the nearest sizes other samples saw on
    /// their own on either side of it, else the powers of two around it; absent below a sector.
    pub mix_of: Option<[u64; 2]>,
    /// Of that mix, the larger size's share of the I/Os, percent.
    pub larger_pct: f64,
    /// Sizes other samples saw on their own (their mean at a size class), smallest first.
    pub alone: Vec<u64>,
    /// What the replay issues for them: the classes their means fell in, most I/Os first.
    pub replayed_as: Vec<u64>,
}

/// A direction's samples folded as they come, in the order a whole table would sum them.
pub(super) struct Sizes {
    /// I/Os by size class, every sample: the profile's shares.
    weights: Vec<(u64, f64)>,
    /// By class, samples whose mean is the class's size.
    alone: Vec<(u64, f64)>,
    /// By class, samples whose mean lies between classes, with their bytes and range.
    between: Vec<(u64, f64)>,
    between_bytes: f64,
    low: f64,
    high: f64,
}

impl Default for Sizes {
    fn default() -> Sizes {
        Sizes {
            weights: Vec::new(),
            alone: Vec::new(),
            between: Vec::new(),
            between_bytes: super::zero(),
            low: f64::INFINITY,
            high: f64::NEG_INFINITY,
        }
    }
}

impl Sizes {
    /// One sample: its mean size and its I/Os a second.
    pub(super) fn add(&mut self, size: f64, ios: f64) {
        weigh(&mut self.weights, size, ios);
        if ios <= 0.0 || size <= 0.0 {
            return;
        }
        let class = size_class(size) as f64;
        if (size - class).abs() <= SAME_SIZE * class {
            weigh(&mut self.alone, size, ios);
        } else {
            weigh(&mut self.between, size, ios);
            self.between_bytes += size * ios;
            self.low = self.low.min(size);
            self.high = self.high.max(size);
        }
    }

    /// The classes covering `coverage_pct` of the I/Os, and what of them lay between classes.
    pub(super) fn finish(self, coverage_pct: f64) -> (Vec<SizeShare>, Option<MeanBetween>) {
        let total: f64 = self.weights.iter().map(|(_, w)| w).sum();
        let between_ios: f64 = self.between.iter().map(|(_, w)| w).sum();
        let shares = covering(self.weights, coverage_pct);
        if between_ios <= 0.0 || total <= 0.0 {
            return (shares, None);
        }
        let mean = self.between_bytes / between_ios;
        let mut alone: Vec<u64> = self.alone.iter().map(|(c, _)| *c).collect();
        alone.sort_unstable();
        let mix_of = mix_of(mean, &alone);
        let larger_pct = mix_of.map_or(0.0, |[s, l]| 100.0 * (mean - s as f64) / (l - s) as f64);
        let mut between = self.between;
        between.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let between = MeanBetween {
            pct: 100.0 * between_ios / total,
            mean_bytes: mean,
            low_bytes: self.low,
            high_bytes: self.high,
            mix_of,
            larger_pct,
            alone,
            replayed_as: between.into_iter().map(|(c, _)| c).collect(),
        };
        (shares, Some(between))
    }
}

/// Two sizes on either side of `mean`: the nearest of `alone` (sizes seen on their own), else
/// the powers of two around it; `None` below a sector, which no size makes.
fn mix_of(mean: f64, alone: &[u64]) -> Option<[u64; 2]> {
    if mean <= MIN_CLASS as f64 {
        return None;
    }
    let exp = mean.log2();
    let below = alone.iter().copied().filter(|&s| (s as f64) < mean).max().unwrap_or(1 << exp.floor() as u32);
    let above = alone.iter().copied().filter(|&s| (s as f64) > mean).min().unwrap_or(1 << exp.ceil().min(40.0) as u32);
    (below < above).then_some([below, above])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(samples: &[(f64, f64)]) -> (Vec<SizeShare>, Option<MeanBetween>) {
        let mut sizes = Sizes::default();
        for &(size, ios) in samples {
            sizes.add(size, ios);
        }
        sizes.finish(80.0)
    }

    #[test]
    fn means_at_a_size_are_that_size_and_means_between_are_said() {
        // Samples of 64K writes alone, of 512B alone, and samples of both half and half
        // (a mean of 33,024 bytes, 32.25K): the method names 64K and 32K.
        let (shares, between) = folded(&[(65536.0, 600.0), (512.0, 10.0), (33024.0, 200.0), (33024.0, 190.0)]);
        assert_eq!(shares.iter().map(|s| s.bytes).collect::<Vec<_>>(), [65536, 32768]);
        let b = between.expect("the 32K share is of means no one size makes");
        assert!((b.pct - 39.0).abs() < 1e-9, "390 of 1,000 I/Os: {b:?}");
        assert_eq!((b.mean_bytes, b.low_bytes, b.high_bytes), (33024.0, 33024.0, 33024.0));
        // Made by the sizes seen alone, half and half; replayed as 32K.
        assert_eq!(
            (b.mix_of, b.alone.clone(), b.replayed_as.clone()),
            (Some([512, 65536]), vec![512, 65536], vec![32768])
        );
        assert!((b.larger_pct - 50.0).abs() < 1e-9, "{b:?}");
        // With no size seen alone, the powers of two around the mean.
        let (_, b) = folded(&[(42475.52, 100.0)]);
        let b = b.unwrap();
        assert_eq!((b.mix_of, b.alone.is_empty()), (Some([32768, 65536]), true));
        assert!((b.larger_pct - 100.0 * (42475.52 - 32768.0) / 32768.0).abs() < 1e-9);
        // Means at a size (to the digits a counter prints) are that size: nothing to say.
        let (_, none) = folded(&[(65536.0, 10.0), (8192.4, 10.0), (4096.0, 0.0), (0.0, 5.0)]);
        assert_eq!(none, None);
    }
}
