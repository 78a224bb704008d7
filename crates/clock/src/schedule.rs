//! A rate's schedule: intended starts `next`, then one every `interval`. What a rate-limited
//! worker or session still owed when its window closed is how many of them fall inside it.

/// How many of a schedule's starts (`next`, then one every `interval` > 0) fall in
/// `[from, to)`: what a rate-limited worker or session still owed when its window closed at
/// `to`, not counting starts owed from before `from` (the warm-up).
pub fn starts_between(next: u64, interval: u64, from: u64, to: u64) -> u64 {
    let first = if next >= from { next } else { next + (from - next).div_ceil(interval) * interval };
    if first >= to { 0 } else { (to - first - 1) / interval + 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owed_starts_are_those_left_in_the_window() {
        // Next start at 100, one every 10, window [0, 150): 100, 110, ..., 140.
        assert_eq!(starts_between(100, 10, 0, 150), 5);
        // A start exactly at the window's end is outside it.
        assert_eq!(starts_between(100, 10, 0, 140), 4);
        assert_eq!(starts_between(150, 10, 0, 150), 0, "on schedule: nothing owed");
        assert_eq!(starts_between(200, 10, 0, 150), 0, "ahead of schedule");
        // Starts still owed from the warm-up do not count: 55 is the first inside [55, 95).
        assert_eq!(starts_between(5, 10, 55, 95), 4);
        assert_eq!(starts_between(5, 10, 56, 95), 3);
    }
}
