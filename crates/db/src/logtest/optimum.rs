//! The transaction size to recommend, read off the MB/s curve as the original article does
//! from its graph: where log throughput stops paying for bigger transactions. That is the
//! smallest size whose MB/s is within 10% of the best measured: beyond it, batching more rows
//! holds locks longer for little more throughput.

/// Share of the best MB/s a size must reach to count as the optimum.
pub const OPTIMUM_SHARE: f64 = 0.9;

/// The index of the optimum among `(transaction size, MB/s)` points (any order), or `None`
/// when no point has a positive MB/s.
pub fn optimum(points: &[(u64, f64)]) -> Option<usize> {
    let best = points.iter().map(|p| p.1).filter(|v| v.is_finite()).fold(0.0, f64::max);
    if best <= 0.0 {
        return None;
    }
    points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.1.is_finite() && p.1 >= OPTIMUM_SHARE * best)
        .min_by_key(|(_, p)| p.0)
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_size_near_the_best() {
        // The original's shape: MB/s climbs to a plateau around 100 rows.
        let pts = [(1, 3.0), (10, 14.0), (100, 40.0), (1000, 42.0), (10_000, 43.0), (100_000, 41.0)];
        assert_eq!(optimum(&pts), Some(2));
        assert_eq!(optimum(&[(1, 0.0)]), None);
        assert_eq!(optimum(&[]), None);
        assert_eq!(optimum(&[(10, f64::NAN), (5, 1.0)]), Some(1));
    }
}
