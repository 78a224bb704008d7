//! Figures as a reader takes them in at a glance: two or three significant digits with µs or
//! ms (`180 µs`, `3.9 ms`), rates in thousands (`49k`). Both come from `units`,
//! which also keeps the two decimals of a table (`180.00us`); a sentence wants fewer.

use spindle_model::units::{Reading, format_latency, format_rate, grouped};

/// A duration in nanoseconds: `850 ns`, `180 µs`, `3.9 ms`, `12 ms`, `1.2 s`.
pub(crate) fn latency(ns: f64) -> String {
    format_latency(ns, Reading::Sentence)
}

/// A rate (IOPS, commits or rows per second): `450`, `4,900`, `49k`, `1.2M`.
pub(crate) fn rate(per_sec: f64) -> String {
    format_rate(per_sec, Reading::Sentence)
}

/// Megabytes per second: `480 MB/s`, `2.5 MB/s`.
pub(crate) fn mb_per_sec(mb: f64) -> String {
    if !mb.is_finite() || mb < 0.0 {
        "an unknown number of MB/s".into()
    } else if mb < 9.95 {
        format!("{mb:.1} MB/s")
    } else {
        format!("{} MB/s", grouped(mb.round() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_read_rates_and_latencies_at_a_glance() {
        assert_eq!(rate(49_123.0), "49k");
        assert_eq!(latency(3_900_000.0), "3.9 ms");
        assert_eq!(mb_per_sec(480.2), "480 MB/s");
        assert_eq!(mb_per_sec(2.46), "2.5 MB/s");
        assert_eq!(mb_per_sec(f64::NAN), "an unknown number of MB/s");
    }
}
