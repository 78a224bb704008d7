//! Figures as a reader takes them in at a glance: two or three significant digits with µs or
//! ms (`180 µs`, `3.9 ms`), rates in thousands (`49k`). `units::format_latency_ns` keeps two
//! decimals (`180.00us`) for tables; a sentence wants fewer.

use spindle_model::units::grouped;

/// A duration in nanoseconds: `850 ns`, `180 µs`, `3.9 ms`, `12 ms`, `1.2 s`.
pub(crate) fn latency(ns: f64) -> String {
    if !ns.is_finite() || ns < 0.0 {
        return "an unknown time".into();
    }
    const UNITS: [(f64, &str); 4] = [(1.0, "ns"), (1e3, "µs"), (1e6, "ms"), (1e9, "s")];
    // The unit is chosen on the rounded value, so 999.6 µs reads `1.0 ms`, not `1000 µs`.
    let (scale, unit) = UNITS.iter().copied().find(|(scale, _)| (ns / scale).round() < 1000.0).unwrap_or(UNITS[3]);
    let value = ns / scale;
    // One decimal below 10 (`3.9 ms`), none where it is a zero (`5 ms`, as guidance writes it).
    let tenths = format!("{value:.1}");
    match tenths.strip_suffix(".0") {
        Some(whole) if value < 9.95 => format!("{whole} {unit}"),
        None if value < 9.95 && unit != "ns" => format!("{tenths} {unit}"),
        _ => format!("{value:.0} {unit}"),
    }
}

/// A rate (IOPS, commits or rows per second): `450`, `4,900`, `49k`, `1.2M`.
pub(crate) fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec < 0.0 {
        return "an unknown number".into();
    }
    if per_sec.round() < 10_000.0 {
        grouped(per_sec.round() as u64)
    } else if (per_sec / 1e3).round() < 1000.0 {
        format!("{:.0}k", per_sec / 1e3)
    } else {
        format!("{:.1}M", per_sec / 1e6)
    }
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
    fn latencies_keep_two_or_three_significant_digits() {
        assert_eq!(latency(850.0), "850 ns");
        assert_eq!(latency(180_000.0), "180 µs");
        assert_eq!(latency(3_900_000.0), "3.9 ms");
        assert_eq!(latency(12_300_000.0), "12 ms");
        assert_eq!(latency(999_600.0), "1 ms");
        assert_eq!(latency(5e6), "5 ms");
        assert_eq!(latency(1_200_000_000.0), "1.2 s");
        assert_eq!(latency(5e12), "5000 s");
        assert_eq!(latency(f64::NAN), "an unknown time");
        assert_eq!(latency(-1.0), "an unknown time");
    }

    #[test]
    fn rates_read_in_thousands() {
        assert_eq!(rate(450.4), "450");
        assert_eq!(rate(4_900.0), "4,900");
        assert_eq!(rate(49_123.0), "49k");
        assert_eq!(rate(999_700.0), "1.0M");
        assert_eq!(rate(f64::INFINITY), "an unknown number");
        assert_eq!(mb_per_sec(480.2), "480 MB/s");
        assert_eq!(mb_per_sec(2.46), "2.5 MB/s");
        assert_eq!(mb_per_sec(f64::NAN), "an unknown number of MB/s");
    }
}
