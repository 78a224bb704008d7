//! Log-linear latency histogram, laid out like fio's: values below 128 ns are exact, above that
//! each power of two is split into 64 linear sub-buckets, so a bucket's midpoint is within 1/128
//! (0.78%) of any value in it. Insertion is O(1) (one leading-zeros count), histograms merge by
//! adding buckets, and they serialize sparsely as `[bucket, count]` pairs.
//!
//! Exact min, max, sum and sum of squares ride along, so mean and standard deviation are exact
//! and only percentiles carry the bucket error.
//!
//! Buckets are kept a power of two (64 buckets) at a time, allocated when a value first falls
//! in it: latencies span a few powers of two, so a histogram holds a few KB instead of 30.
//!
//! `CompactHistogram` keeps the same buckets and exact sums for recorders that are many and
//! small (a thousand Hammer sessions, each recording tens to thousands of calls): only the
//! buckets in use, 8 bytes each. Their values spread thinly over many powers of two, where a
//! dense group of 512 bytes per power held one or two counts, 4.6 KB per session in all.

use serde::{Deserialize, Serialize};

const SUB_BITS: u32 = 6;
/// Linear sub-buckets per power of two.
pub const SUB_BUCKETS: usize = 1 << SUB_BITS;
/// Two exact groups (0..128) plus one group per remaining power of two up to 2^63.
pub const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * SUB_BUCKETS;
/// Groups of `SUB_BUCKETS` buckets: one per power of two (the first two are the exact values).
const GROUPS: usize = BUCKETS / SUB_BUCKETS;

type Group = Box<[u64; SUB_BUCKETS]>;

#[derive(Clone, Debug)]
pub struct Histogram {
    /// Bucket `b` is `groups[b / SUB_BUCKETS][b % SUB_BUCKETS]`; a group never written is
    /// `None`, and groups above the highest written are not there at all.
    groups: Vec<Option<Group>>,
    moments: Moments,
}

/// What a histogram knows exactly, whatever its buckets: how many values, their extremes, sum
/// and sum of squares.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Moments {
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
    sum_squares: u128,
}

impl Default for Moments {
    fn default() -> Self {
        Moments { count: 0, min: u64::MAX, max: 0, sum: 0, sum_squares: 0 }
    }
}

impl Moments {
    /// `n` values of `value`.
    #[inline(always)]
    fn add(&mut self, value: u64, n: u64) {
        self.count += n;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        self.sum += value as u128 * n as u128;
        self.sum_squares += value as u128 * value as u128 * n as u128;
    }

    fn merge(&mut self, other: &Moments) {
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
        self.sum_squares += other.sum_squares;
    }
}

/// Equal when they hold the same values, whichever groups happen to be allocated.
impl PartialEq for Histogram {
    fn eq(&self, other: &Self) -> bool {
        self.moments == other.moments && self.nonzero_buckets().eq(other.nonzero_buckets())
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

/// The bucket a value falls in.
#[inline(always)]
pub fn bucket_of(value: u64) -> usize {
    if value < 2 * SUB_BUCKETS as u64 {
        return value as usize;
    }
    let msb = 63 - value.leading_zeros();
    let shift = msb - SUB_BITS;
    let group = (msb - SUB_BITS + 1) as usize;
    group * SUB_BUCKETS + ((value >> shift) as usize - SUB_BUCKETS)
}

/// The lowest value a bucket holds.
pub fn bucket_low(bucket: usize) -> u64 {
    if bucket < 2 * SUB_BUCKETS {
        return bucket as u64;
    }
    let group = bucket / SUB_BUCKETS;
    let shift = group as u32 - 1;
    ((bucket % SUB_BUCKETS + SUB_BUCKETS) as u64) << shift
}

/// The value reported for a bucket: its midpoint (its only value while buckets are exact).
pub fn bucket_value(bucket: usize) -> u64 {
    if bucket < 2 * SUB_BUCKETS {
        return bucket as u64;
    }
    let width = 1u64 << (bucket / SUB_BUCKETS - 1);
    bucket_low(bucket) + (width - 1) / 2
}

impl Histogram {
    pub fn new() -> Self {
        Histogram { groups: Vec::new(), moments: Moments::default() }
    }

    /// The count of `bucket`, allocating its group on first use (`None` past the last bucket).
    #[inline(always)]
    fn slot(&mut self, bucket: usize) -> Option<&mut u64> {
        let g = bucket >> SUB_BITS;
        if g >= self.groups.len() {
            if g >= GROUPS {
                return None;
            }
            self.groups.resize_with(g + 1, || None);
        }
        Some(&mut self.groups[g].get_or_insert_with(|| Box::new([0; SUB_BUCKETS]))[bucket & (SUB_BUCKETS - 1)])
    }

    /// Every bucket of the groups in use, in order, as `(bucket, count)` (zeros included).
    fn buckets(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.groups
            .iter()
            .enumerate()
            .filter_map(|(g, group)| Some((g, group.as_ref()?)))
            .flat_map(|(g, group)| group.iter().enumerate().map(move |(i, &n)| (g * SUB_BUCKETS + i, n)))
    }

    #[inline(always)]
    pub fn record(&mut self, value: u64) {
        if let Some(n) = self.slot(bucket_of(value)) {
            *n += 1;
        }
        self.moments.add(value, 1);
    }

    /// `n` values of `value` at once (a foreign tool's histogram bin).
    pub fn record_n(&mut self, value: u64, n: u64) {
        if n == 0 {
            return;
        }
        if let Some(slot) = self.slot(bucket_of(value)) {
            *slot += n;
        }
        self.moments.add(value, n);
    }

    pub fn merge(&mut self, other: &Histogram) {
        if self.groups.len() < other.groups.len() {
            self.groups.resize_with(other.groups.len(), || None);
        }
        for (mine, theirs) in self.groups.iter_mut().zip(&other.groups) {
            if let Some(theirs) = theirs {
                let mine = mine.get_or_insert_with(|| Box::new([0; SUB_BUCKETS]));
                for (m, t) in mine.iter_mut().zip(theirs.iter()) {
                    *m += t;
                }
            }
        }
        self.moments.merge(&other.moments);
    }

    pub fn count(&self) -> u64 {
        self.moments.count
    }

    pub fn is_empty(&self) -> bool {
        self.moments.count == 0
    }

    pub fn min(&self) -> u64 {
        if self.moments.count == 0 { 0 } else { self.moments.min }
    }

    pub fn max(&self) -> u64 {
        self.moments.max
    }

    pub fn sum(&self) -> u128 {
        self.moments.sum
    }

    pub fn sum_squares(&self) -> u128 {
        self.moments.sum_squares
    }

    pub fn mean(&self) -> f64 {
        let m = &self.moments;
        if m.count == 0 { 0.0 } else { m.sum as f64 / m.count as f64 }
    }

    /// Population standard deviation, exact (from the running sums, not the buckets).
    pub fn stddev(&self) -> f64 {
        let m = &self.moments;
        if m.count == 0 {
            return 0.0;
        }
        let n = m.count as f64;
        let mean = m.sum as f64 / n;
        let variance = m.sum_squares as f64 / n - mean * mean;
        variance.max(0.0).sqrt()
    }

    /// The value at percentile `p` (0..=100): the midpoint of the bucket holding the
    /// ceil(p% * count)-th smallest value, clamped to the exact min and max.
    pub fn percentile(&self, p: f64) -> u64 {
        let m = &self.moments;
        if m.count == 0 {
            return 0;
        }
        let rank = ((p / 100.0) * m.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (bucket, n) in self.buckets() {
            seen += n;
            if seen >= rank {
                return bucket_value(bucket).clamp(m.min, m.max);
            }
        }
        m.max
    }

    /// Share of values (0..=1) below `limit`, counting a bucket that straddles the limit by the
    /// part of its range that lies below it.
    pub fn fraction_below(&self, limit: u64) -> f64 {
        if self.moments.count == 0 {
            return 0.0;
        }
        let mut below = 0.0;
        for (bucket, n) in self.buckets() {
            if n == 0 {
                continue;
            }
            let low = bucket_low(bucket);
            if low >= limit {
                break;
            }
            let high = if bucket + 1 < BUCKETS { bucket_low(bucket + 1) } else { u64::MAX };
            if high <= limit {
                below += n as f64;
            } else {
                below += n as f64 * (limit - low) as f64 / (high - low) as f64;
            }
        }
        below / self.moments.count as f64
    }

    /// The non-empty buckets as `(bucket, count)`, for sparse serialization.
    pub fn nonzero_buckets(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.buckets().filter(|(_, n)| *n > 0)
    }
}

/// The serialized form: exact summary values plus the non-empty buckets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SparseHistogram {
    pub count: u64,
    pub min: u64,
    pub max: u64,
    /// Sums as decimal strings: they overflow u64 (and JSON numbers) on long runs.
    pub sum: String,
    pub sum_squares: String,
    /// `[bucket index, count]` pairs; bucket layout: 64 linear sub-buckets per power of two.
    pub buckets: Vec<(u32, u64)>,
}

/// An empty histogram's form (sums of nothing are "0", as the schema has them).
impl Default for SparseHistogram {
    fn default() -> Self {
        SparseHistogram::from(&Histogram::new())
    }
}

impl From<&Histogram> for SparseHistogram {
    fn from(h: &Histogram) -> Self {
        SparseHistogram {
            count: h.count(),
            min: h.min(),
            max: h.max(),
            sum: h.moments.sum.to_string(),
            sum_squares: h.moments.sum_squares.to_string(),
            buckets: h.nonzero_buckets().map(|(b, n)| (b as u32, n)).collect(),
        }
    }
}

impl TryFrom<&SparseHistogram> for Histogram {
    type Error = String;

    fn try_from(s: &SparseHistogram) -> Result<Self, String> {
        if s.count > 0 && s.buckets.is_empty() {
            return Err(format!(
                "a histogram of {} values without their buckets (a session's row keeps only its summary)",
                s.count
            ));
        }
        let mut h = Histogram::new();
        for &(bucket, n) in &s.buckets {
            let slot = h.slot(bucket as usize).ok_or_else(|| format!("histogram bucket {bucket} out of range"))?;
            *slot = slot.checked_add(n).ok_or_else(|| format!("histogram bucket {bucket}'s count overflows"))?;
        }
        h.moments = Moments {
            count: s.count,
            min: if s.count == 0 { u64::MAX } else { s.min },
            max: s.max,
            sum: s.sum.parse().map_err(|_| format!("histogram sum '{}' is not a number", s.sum))?,
            sum_squares: s
                .sum_squares
                .parse()
                .map_err(|_| format!("histogram sum_squares '{}' is not a number", s.sum_squares))?,
        };
        Ok(h)
    }
}

/// Bits of a `CompactHistogram` entry that hold the count; the bucket (below 2^12) sits above
/// them, so entries sort by bucket. A count reaches 2^52 only after 52 days at a value a
/// nanosecond.
const COUNT_BITS: u32 = 52;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
const _: () = assert!(BUCKETS <= 1 << (64 - COUNT_BITS));

/// A histogram that keeps only the buckets in use: for recorders that are many and hold few
/// values each. Its buckets, min, max and sums are `Histogram`'s exactly (it converts without
/// loss); recording is a binary search over the buckets in use (plus an insertion for a new
/// one) instead of `Histogram`'s indexing, which is why the I/O engine keeps the dense form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompactHistogram {
    /// `bucket << COUNT_BITS | count` for each bucket in use, in bucket order.
    entries: Vec<u64>,
    moments: Moments,
}

impl CompactHistogram {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn record(&mut self, value: u64) {
        let key = (bucket_of(value) as u64) << COUNT_BITS;
        match self.entries.binary_search_by(|e| (e & !COUNT_MASK).cmp(&key)) {
            Ok(i) => self.entries[i] += 1,
            Err(i) => self.entries.insert(i, key | 1),
        }
        self.moments.add(value, 1);
    }

    pub fn count(&self) -> u64 {
        self.moments.count
    }
}

impl From<&CompactHistogram> for Histogram {
    fn from(c: &CompactHistogram) -> Self {
        let mut h = Histogram::new();
        for e in &c.entries {
            let slot = h.slot((e >> COUNT_BITS) as usize).expect("a compact bucket is a bucket");
            *slot += e & COUNT_MASK;
        }
        h.moments = c.moments;
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact() {
        for v in 0..128 {
            assert_eq!(bucket_value(bucket_of(v)), v);
        }
    }

    #[test]
    fn buckets_are_contiguous_and_ordered() {
        assert_eq!(bucket_of(128), 128);
        assert_eq!(bucket_of(255), 191);
        assert_eq!(bucket_of(256), 192);
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
        for b in 1..BUCKETS {
            assert!(bucket_low(b) > bucket_low(b - 1), "bucket {b}");
            assert_eq!(bucket_of(bucket_low(b)), b);
            assert_eq!(bucket_of(bucket_low(b) - 1), b - 1);
        }
    }

    #[test]
    fn relative_error_is_under_one_percent() {
        let mut v = 1u64;
        while v < u64::MAX / 3 {
            let reported = bucket_value(bucket_of(v)) as f64;
            let err = (reported - v as f64).abs() / v as f64;
            assert!(err < 0.008, "value {v} reported {reported}");
            v = v * 3 / 2 + 1;
        }
    }

    #[test]
    fn percentiles_of_a_uniform_range() {
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for (p, expect) in [(50.0, 50_000_000.0), (99.0, 99_000_000.0), (99.9, 99_900_000.0)] {
            let got = h.percentile(p) as f64;
            assert!((got - expect).abs() / expect < 0.01, "p{p}: {got}");
        }
        assert_eq!(h.percentile(100.0), 100_000_000);
        assert_eq!(h.min(), 1000);
        assert!((h.mean() - 50_000_500.0).abs() < 1.0);
        let expected_sd = ((100_000f64.powi(2) - 1.0) / 12.0).sqrt() * 1000.0;
        assert!((h.stddev() - expected_sd).abs() / expected_sd < 1e-6);
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let (mut a, mut b, mut all) = (Histogram::new(), Histogram::new(), Histogram::new());
        for v in 0..5000u64 {
            let x = v * v % 100_003;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            all.record(x);
        }
        a.merge(&b);
        assert_eq!(a, all);
    }

    /// Over many random samples spread log-uniformly from nanoseconds to seconds: every
    /// percentile within 1% of the exact one, merging in any split is exact, and `record_n`
    /// is `record` n times.
    #[test]
    fn random_samples_keep_their_percentiles_and_merge_exactly() {
        let mut rng = crate::rng::Rng::new(7);
        for trial in 0..20 {
            let n = 1000 + rng.below(20_000) as usize;
            let values: Vec<u64> = (0..n)
                .map(|_| {
                    let power = 1u64 << rng.below(34);
                    power + rng.below(power)
                })
                .collect();
            let (mut all, mut a, mut b, mut counted) =
                (Histogram::new(), Histogram::new(), Histogram::new(), Histogram::new());
            let split = rng.below(100);
            for &v in &values {
                all.record(v);
                if rng.below(100) < split { a.record(v) } else { b.record(v) }
            }
            a.merge(&b);
            assert_eq!(a, all, "trial {trial}");
            let mut sorted = values.clone();
            sorted.sort_unstable();
            for p in [1.0, 25.0, 50.0, 90.0, 99.0, 99.9] {
                let exact = sorted[((p / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1] as f64;
                let got = all.percentile(p) as f64;
                assert!((got - exact).abs() / exact < 0.01, "trial {trial} p{p}: {got} vs {exact}");
            }
            for chunk in sorted.chunk_by(|x, y| x == y) {
                counted.record_n(chunk[0], chunk.len() as u64);
            }
            assert_eq!(counted, all, "trial {trial}");
        }
    }

    /// A compact histogram converts to the histogram of the same values, buckets and exact sums
    /// alike, so its percentiles are the dense one's; it holds 8 bytes a bucket in use.
    #[test]
    fn compact_histograms_convert_to_the_same_histogram() {
        let mut rng = crate::rng::Rng::new(11);
        for trial in 0..20 {
            let n = rng.below(5_000) as usize;
            let (mut dense, mut compact) = (Histogram::new(), CompactHistogram::new());
            for _ in 0..n {
                let power = 1u64 << rng.below(40);
                let v = power + rng.below(power);
                dense.record(v);
                compact.record(v);
            }
            let converted = Histogram::from(&compact);
            assert_eq!(converted, dense, "trial {trial}");
            assert_eq!(compact.count(), n as u64);
            for p in [0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0] {
                assert_eq!(converted.percentile(p), dense.percentile(p), "trial {trial} p{p}");
            }
            assert_eq!(
                (converted.min(), converted.max(), converted.stddev()),
                (dense.min(), dense.max(), dense.stddev())
            );
            assert_eq!(compact.entries.len(), dense.nonzero_buckets().count(), "one entry a bucket in use");
        }
        // The first buckets and the last: (u64::MAX)^2 fills the sum of squares, so it comes once.
        let mut extremes = CompactHistogram::new();
        for v in [0, 1, 127, 128, u64::MAX, 0] {
            extremes.record(v);
        }
        let h = Histogram::from(&extremes);
        assert_eq!(h.nonzero_buckets().collect::<Vec<_>>(), [(0, 2), (1, 1), (127, 1), (128, 1), (BUCKETS - 1, 1)]);
        assert_eq!(Histogram::from(&CompactHistogram::new()), Histogram::new());
    }

    #[test]
    fn sparse_round_trip() {
        let mut h = Histogram::new();
        for v in [5u64, 900, 900, 123_456_789, u64::MAX / 2] {
            h.record(v);
        }
        let sparse = SparseHistogram::from(&h);
        assert_eq!(sparse.buckets.len(), 4);
        let back = Histogram::try_from(&sparse).unwrap();
        assert_eq!(back, h);
        let summary_only = SparseHistogram { buckets: Vec::new(), ..sparse.clone() };
        assert!(Histogram::try_from(&summary_only).is_err(), "a count without buckets is no histogram");
        let bad = SparseHistogram { buckets: vec![(BUCKETS as u32, 1)], ..sparse };
        assert!(Histogram::try_from(&bad).is_err());
    }

    #[test]
    fn fraction_below_splits_straddling_buckets() {
        let mut h = Histogram::new();
        for _ in 0..3 {
            h.record(500_000);
        }
        h.record(2_500_000);
        assert!((h.fraction_below(1_000_000) - 0.75).abs() < 1e-9);
        assert!((h.fraction_below(3_000_000) - 1.0).abs() < 1e-9);
        assert_eq!(Histogram::new().fraction_below(10), 0.0);
    }
}
