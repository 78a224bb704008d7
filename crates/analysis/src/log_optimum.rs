//! The transaction size to recommend, read off the curves as the original article does from
//! its graphs: where log throughput stops paying for bigger transactions, and the write queue
//! starts to grow. That is the smallest size whose MB/s is within 10% of the best measured and
//! past which the log volume's queue grows: beyond it, batching more rows holds locks longer
//! and queues bigger writes for little more throughput. Where no size past the plateau's start
//! grows the queue, the plateau's start. Where no queue was
//! measured (the engine's counters lead), throughput alone decides, and the words say so.

/// Share of the best MB/s a size must reach to count as levelled off.
pub const OPTIMUM_SHARE: f64 = 0.9;

/// How much larger a bigger size's mean queue must be to count as grown: by a tenth, and by a
/// tenth of an I/O at least, so an idle volume's queue of 0.06 against 0.05 is no growth.
const QUEUE_GROWTH: f64 = 1.1;
const QUEUE_GROWTH_MIN: f64 = 0.1;

/// The rule in words, for a group's summary.
pub const RULE: &str = "the smallest transaction size whose log MB/s is within 10% of the best \
                        and past which the log volume's write queue grows";

/// One transaction size as the rule reads it. A size that did not run to the end is given a
/// MB/s of 0: it neither competes nor breaks the levelling of the others.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub size: u64,
    pub mb_per_sec: f64,
    /// The log volume's mean queue over the size's run, where measured.
    pub queue: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Optimum {
    /// Its index among the points given.
    pub index: usize,
    /// Why that size, in a sentence that starts with it.
    pub why: String,
}

/// The points that ran to the end, smallest size first, with their index among those given.
fn competing(points: &[Point]) -> Vec<(usize, Point)> {
    let mut competing: Vec<(usize, Point)> =
        points.iter().copied().enumerate().filter(|(_, p)| p.mb_per_sec.is_finite() && p.mb_per_sec > 0.0).collect();
    competing.sort_by_key(|(_, p)| p.size);
    competing
}

/// The indices (into `competing`) of the sizes within 10% of the best MB/s.
fn levelled(competing: &[(usize, Point)]) -> Vec<usize> {
    let best = competing.iter().map(|(_, p)| p.mb_per_sec).fold(0.0, f64::max);
    (0..competing.len()).filter(|&k| competing[k].1.mb_per_sec >= OPTIMUM_SHARE * best).collect()
}

/// The largest size tried, when it alone comes within 10% of the best: throughput was still
/// rising where the test stopped, so no size has levelled off yet (its index among `points`).
pub fn still_rising(points: &[Point]) -> Option<usize> {
    let competing = competing(points);
    match levelled(&competing)[..] {
        [only] if only + 1 == competing.len() && only > 0 => Some(competing[only].0),
        _ => None,
    }
}

/// The optimum among `points` (any order), or `None` when fewer than two sizes ran to the end
/// (one size shows no levelling) or the throughput was still rising at the largest size tried
/// ([`still_rising`]).
pub fn optimum(points: &[Point]) -> Option<Optimum> {
    let competing = competing(points);
    if competing.len() < 2 || still_rising(points).is_some() {
        return None;
    }
    let best = competing.iter().map(|(_, p)| p.mb_per_sec).fold(0.0, f64::max);
    let levelled = levelled(&competing);
    let first = *levelled.first()?;
    // Whether every bigger size keeps within 10% too, or the curve falls again past it.
    let levelled_at = |k: usize| {
        let (_, p) = competing[k];
        let kept = if competing[k + 1..].iter().all(|(_, b)| b.mb_per_sec >= OPTIMUM_SHARE * best) {
            " from here on".to_string()
        } else {
            format!(" ({:.1} of {best:.1} MB/s; some bigger sizes fall short of it)", p.mb_per_sec)
        };
        format!("{}: log MB/s within 10% of the best{kept}", per_transaction(p.size))
    };
    let chosen = |k: usize, why: String| Some(Optimum { index: competing[k].0, why });
    if competing.iter().all(|(_, p)| p.queue.is_none()) {
        return chosen(first, format!("{} (no write queue was measured)", levelled_at(first)));
    }
    for &k in &levelled {
        let Some(q) = competing[k].1.queue else { continue };
        // The largest queue of any bigger size, and the size it is at.
        let bigger =
            competing[k + 1..].iter().filter_map(|(_, b)| Some((b.queue?, b.size))).max_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((bq, bs)) = bigger.filter(|(bq, _)| *bq > q * QUEUE_GROWTH && *bq - q >= QUEUE_GROWTH_MIN) {
            return chosen(
                k,
                format!("{}, and the write queue grows past it ({q:.2} here, {bq:.2} at {bs})", levelled_at(k)),
            );
        }
    }
    chosen(first, format!("{}; the write queue does not grow past it", levelled_at(first)))
}

/// `1 row per transaction`, `100 rows per transaction`.
fn per_transaction(size: u64) -> String {
    format!("{size} row{} per transaction", if size == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(curve: &[(u64, f64, Option<f64>)]) -> Vec<Point> {
        curve.iter().map(|&(size, mb_per_sec, queue)| Point { size, mb_per_sec, queue }).collect()
    }

    #[test]
    fn the_smallest_size_levelled_off_for_good() {
        // The original's shape: MB/s climbs to a plateau around 100 rows.
        let curve =
            pts(&[(1, 3.0, None), (10, 14.0, None), (100, 40.0, None), (1000, 42.0, None), (10_000, 43.0, None)]);
        let o = optimum(&curve).unwrap();
        assert_eq!(o.index, 2);
        assert_eq!(
            o.why,
            "100 rows per transaction: log MB/s within 10% of the best from here on (no write queue was measured)"
        );
        // A curve that falls again past its peak: the peak, and the words say the rest falls.
        let dip = pts(&[(1, 5.7, None), (10, 7.4, None), (100, 15.2, None), (1000, 12.0, None), (10_000, 8.9, None)]);
        let o = optimum(&dip).unwrap();
        assert_eq!(o.index, 2);
        assert!(o.why.contains("(15.2 of 15.2 MB/s; some bigger sizes fall short of it)"), "{}", o.why);
        assert_eq!(optimum(&pts(&[(1, 0.0, None)])), None);
        assert_eq!(optimum(&pts(&[(1, 2.0, None)])), None, "one size shows no levelling");
        assert_eq!(still_rising(&pts(&[(1, 2.0, None)])), None, "nor any rise");
        assert_eq!(optimum(&[]), None);
        // Any order; a size cut short (0 MB/s) and a NaN neither compete nor break the plateau.
        let odd = pts(&[(100, 1.0, None), (10, f64::NAN, None), (1, 1.0, None), (1000, 0.0, None)]);
        assert!(optimum(&odd).unwrap().why.starts_with("1 row per transaction"));
        assert_eq!(optimum(&odd).unwrap().index, 2);
    }

    #[test]
    fn where_the_write_queue_grows_past_the_plateau() {
        // Levelled off from 10 rows; bigger transactions only queue bigger writes.
        let curve = pts(&[
            (1, 10.0, Some(0.9)),
            (10, 38.0, Some(1.0)),
            (100, 40.0, Some(1.0)),
            (1000, 41.0, Some(1.05)),
            (10_000, 40.0, Some(2.4)),
        ]);
        let o = optimum(&curve).unwrap();
        assert_eq!(o.index, 1, "{o:?}");
        assert_eq!(
            o.why,
            "10 rows per transaction: log MB/s within 10% of the best from here on, and the write queue grows \
             past it (1.00 here, 2.40 at 10000)"
        );
        // A queue already as long as it gets at the plateau's start: the next size it grows past.
        let late = pts(&[(1, 10.0, Some(0.5)), (10, 40.0, Some(3.0)), (100, 40.0, Some(1.0)), (1000, 40.0, Some(2.0))]);
        assert_eq!(optimum(&late).unwrap().index, 2);
        // Measured here: PostgreSQL's WAL on a loop device of its own, 100,000 rows of 4000
        // bytes at each size; bigger transactions leave the volume idler, not more queued.
        let pg = pts(&[
            (1, 3.161, Some(1.0059)),
            (10, 5.73, Some(0.4593)),
            (100, 3.553, Some(0.0677)),
            (1000, 17.539, Some(0.0551)),
            (10_000, 12.208, Some(0.0642)),
        ]);
        let o = optimum(&pg).unwrap();
        assert_eq!(o.index, 3);
        assert_eq!(
            o.why,
            "1000 rows per transaction: log MB/s within 10% of the best (17.5 of 17.5 MB/s; some bigger sizes fall \
             short of it); the write queue does not grow past it"
        );
        // A queue that never grows past the plateau: throughput decides, and the words say so.
        let flat = pts(&[(1, 10.0, Some(1.0)), (10, 40.0, Some(1.0)), (100, 40.0, Some(1.02))]);
        let o = optimum(&flat).unwrap();
        assert_eq!(o.index, 1);
        assert!(o.why.ends_with("; the write queue does not grow past it"), "{}", o.why);
    }

    #[test]
    fn throughput_still_rising_at_the_largest_size_has_no_optimum() {
        // The quick check's log test on this VM: 15.4, 23.0 and 78.2 MB/s at 1, 10 and 100 rows.
        let quick = pts(&[(1, 15.4, None), (10, 23.0, None), (100, 78.2, None)]);
        assert_eq!(still_rising(&quick), Some(2));
        assert_eq!(optimum(&quick), None);
        // The same, sizes in another order: the index is among the points given.
        let shuffled = pts(&[(100, 78.2, None), (1, 15.4, None), (10, 23.0, None)]);
        assert_eq!(still_rising(&shuffled), Some(0));
        // Two sizes within 10% of the best: a plateau, and no longer rising.
        let levelled = pts(&[(1, 15.4, None), (10, 71.0, None), (100, 78.2, None)]);
        assert_eq!((still_rising(&levelled), optimum(&levelled).map(|o| o.index)), (None, Some(1)));
        // A peak before the largest: the peak is the optimum.
        let peak = pts(&[(1, 15.4, None), (10, 78.2, None), (100, 23.0, None)]);
        assert_eq!((still_rising(&peak), optimum(&peak).map(|o| o.index)), (None, Some(1)));
    }
}
