//! Sizes and durations as users write them: `512`, `4K`, `8KiB`, `1MiB`, `10G` (binary
//! multiples, as DiskSpd and fio read them) and `500ms`, `30s`, `5m`, `1h`.

use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum UnitError {
    #[error("'{0}' is not a size: write a number with an optional unit (512, 4K, 8KiB, 1MiB, 10G)")]
    Size(String),
    #[error("'{0}' is not a duration: write a number with a unit (500ms, 30s, 5m, 1h)")]
    Duration(String),
    #[error("'{0}' is too large")]
    Overflow(String),
}

/// Parses a byte count. Suffixes K, M, G, T (with optional `B`, `iB`) are powers of 1024.
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    let s = text.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, suffix) = s.split_at(split);
    if digits.is_empty() {
        return Err(UnitError::Size(text.to_string()));
    }
    let number: u64 = digits.parse().map_err(|_| UnitError::Overflow(text.to_string()))?;
    let multiplier: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(UnitError::Size(text.to_string())),
    };
    number.checked_mul(multiplier).ok_or_else(|| UnitError::Overflow(text.to_string()))
}

/// Parses a duration into nanoseconds. A bare number is refused: `30` could mean seconds or
/// milliseconds, and a benchmark that silently runs 1000x too long is worse than an error.
pub fn parse_duration_ns(text: &str) -> Result<u64, UnitError> {
    let s = text.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (digits, suffix) = s.split_at(split);
    let number: f64 = digits.parse().map_err(|_| UnitError::Duration(text.to_string()))?;
    let unit_ns: f64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" | "sec" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        _ => return Err(UnitError::Duration(text.to_string())),
    };
    let ns = number * unit_ns;
    if !ns.is_finite() || ns > u64::MAX as f64 / 2.0 {
        return Err(UnitError::Overflow(text.to_string()));
    }
    Ok(ns.round() as u64)
}

/// A count with thousands separated (1,234,567).
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A signed percent change: `+8.20%` to `decimals` places below a thousand, and beyond it whole
/// with thousands separated (`+1,363%`, where the decimals say nothing more).
pub fn signed_pct(x: f64, decimals: usize) -> String {
    // An interval from two rounds can reach past any figure (its upper end is then clamped
    // to the largest float): said as what it means, not as u64's largest value in digits.
    const PAST_READING: f64 = 1e15;
    let sign = if x < 0.0 { "-" } else { "+" };
    if x.is_nan() {
        "unknown".to_string()
    } else if x.abs() >= PAST_READING {
        format!("{sign}unbounded")
    } else if x.abs() >= 1000.0 {
        format!("{sign}{}%", grouped(x.abs().round() as u64))
    } else {
        format!("{x:+.decimals$}%")
    }
}

/// Formats a byte count the way it would be typed: `8KiB`, `1MiB`, `512B`, `1536B`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (factor, unit) in UNITS {
        if bytes >= factor && bytes % factor == 0 {
            return format!("{}{}", bytes / factor, unit);
        }
    }
    format!("{bytes}B")
}

/// Formats an amount of memory or space for reading, not typing: `23.5 GiB`, `512 MiB`.
pub fn format_bytes_approx(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (factor, unit) in UNITS {
        if bytes >= factor {
            return format!("{:.1} {unit}", bytes as f64 / factor as f64);
        }
    }
    format!("{bytes} B")
}

/// How a figure is read: in a table, beside others of its kind, with the digits that tell
/// them apart (`180.00us`, `13,149`, `36.9`); or in a sentence, at a glance, with two or three
/// significant digits (`180 µs`, `49k`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    Table,
    Sentence,
}

/// A latency in nanoseconds, as `reading` wants it: in a table `850ns`, `180.00us`, `3.90ms`,
/// `1.20s`; in a sentence `850 ns`, `180 µs`, `3.9 ms`, `12 ms`, `1.2 s`.
pub fn format_latency(ns: f64, reading: Reading) -> String {
    match reading {
        Reading::Table if ns < 1e3 => format!("{ns:.0}ns"),
        Reading::Table if ns < 1e6 => format!("{:.2}us", ns / 1e3),
        Reading::Table if ns < 1e9 => format!("{:.2}ms", ns / 1e6),
        Reading::Table => format!("{:.2}s", ns / 1e9),
        Reading::Sentence => latency_at_a_glance(ns),
    }
}

fn latency_at_a_glance(ns: f64) -> String {
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

/// A latency in a table (`Reading::Table`): the form most views print.
pub fn format_latency_ns(ns: f64) -> String {
    format_latency(ns, Reading::Table)
}

/// A rate (I/Os, calls, commits or rows per second), as `reading` wants it: in a table
/// `12,345` for large rates, `123`, `12.3` and `1.23` for small ones, `-` for none; in a
/// sentence `450`, `4,900`, `49k`, `1.2M`.
pub fn format_rate(per_sec: f64, reading: Reading) -> String {
    match reading {
        Reading::Table => rate_in_a_table(per_sec),
        Reading::Sentence => rate_at_a_glance(per_sec),
    }
}

fn rate_in_a_table(v: f64) -> String {
    if !v.is_finite() {
        return NOT_RECORDED.into();
    }
    if v.abs() >= 1000.0 {
        let sign = if v < 0.0 { "-" } else { "" };
        format!("{sign}{}", grouped(v.abs().round() as u64))
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn rate_at_a_glance(per_sec: f64) -> String {
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

/// How every view shows a figure that was not recorded (a foreign tool's run without latency):
/// never as 0.
pub const NOT_RECORDED: &str = "-";

/// A latency, or `NOT_RECORDED` where there is none.
pub fn format_latency_opt(ns: Option<f64>) -> String {
    ns.map_or_else(|| NOT_RECORDED.to_string(), format_latency_ns)
}

/// Formats a span of time for reading: `48 s`, `4 min 05 s`, `1 h 02 min`.
pub fn format_elapsed(d: std::time::Duration) -> String {
    let secs = d.as_secs_f64().round() as u64;
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min {:02} s", secs / 60, secs % 60),
        _ => format!("{} h {:02} min", secs / 3600, secs % 3600 / 60),
    }
}

/// Formats nanoseconds as a duration a user would type back (`30s`, `500ms`).
pub fn format_duration_ns(ns: u64) -> String {
    if ns % 3_600_000_000_000 == 0 && ns > 0 {
        format!("{}h", ns / 3_600_000_000_000)
    } else if ns % 60_000_000_000 == 0 && ns > 0 {
        format!("{}m", ns / 60_000_000_000)
    } else if ns % 1_000_000_000 == 0 {
        format!("{}s", ns / 1_000_000_000)
    } else {
        format!("{}ms", ns / 1_000_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_in_a_table_keep_two_decimals() {
        assert_eq!(format_latency_ns(850.0), "850ns");
        assert_eq!(format_latency_ns(180_000.0), "180.00us");
        assert_eq!(format_latency_ns(3_900_000.0), "3.90ms");
        assert_eq!(format_latency_ns(1_200_000_000.0), "1.20s");
    }

    #[test]
    fn latencies_in_a_sentence_keep_two_or_three_significant_digits() {
        let latency = |ns| format_latency(ns, Reading::Sentence);
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
    fn rates_in_a_table_keep_the_digits_that_tell_them_apart() {
        let rate = |v| format_rate(v, Reading::Table);
        assert_eq!(rate(13149.4), "13,149");
        assert_eq!(rate(1234567.0), "1,234,567");
        assert_eq!(rate(-2048.0), "-2,048");
        assert_eq!(rate(512.4), "512");
        assert_eq!(rate(36.93), "36.9");
        assert_eq!(rate(0.8029), "0.80");
        assert_eq!(rate(f64::NAN), "-");
    }

    #[test]
    fn rates_in_a_sentence_read_in_thousands() {
        let rate = |v| format_rate(v, Reading::Sentence);
        assert_eq!(rate(450.4), "450");
        assert_eq!(rate(4_900.0), "4,900");
        assert_eq!(rate(49_123.0), "49k");
        assert_eq!(rate(999_700.0), "1.0M");
        assert_eq!(rate(f64::INFINITY), "an unknown number");
    }

    #[test]
    fn percent_changes_are_signed_and_grouped_beyond_a_thousand() {
        assert_eq!(signed_pct(8.2, 2), "+8.20%");
        assert_eq!(signed_pct(-49.95, 1), "-50.0%");
        assert_eq!(signed_pct(999.94, 1), "+999.9%");
        assert_eq!(signed_pct(1362.6, 1), "+1,363%");
        assert_eq!(signed_pct(-2248.0, 2), "-2,248%");
        assert_eq!(signed_pct(139_779_779.2, 1), "+139,779,779%");
        assert_eq!(signed_pct(f64::MAX, 1), "+unbounded", "an interval two rounds cannot bound");
        assert_eq!(signed_pct(f64::INFINITY, 1), "+unbounded");
        assert_eq!(signed_pct(f64::NAN, 1), "unknown");
    }

    #[test]
    fn elapsed_time_reads_in_the_largest_units_that_fit() {
        use std::time::Duration;
        assert_eq!(format_elapsed(Duration::from_millis(31_641)), "32 s");
        assert_eq!(format_elapsed(Duration::from_secs(245)), "4 min 05 s");
        assert_eq!(format_elapsed(Duration::from_secs(3_720)), "1 h 02 min");
    }

    #[test]
    fn sizes_use_binary_multiples() {
        assert_eq!(parse_size("512").unwrap(), 512);
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("8KiB").unwrap(), 8192);
        assert_eq!(parse_size("1MiB").unwrap(), 1 << 20);
        assert_eq!(parse_size("10G").unwrap(), 10 << 30);
        assert_eq!(parse_size("64kb").unwrap(), 65536);
    }

    #[test]
    fn bad_sizes_name_the_input() {
        assert_eq!(parse_size("10X"), Err(UnitError::Size("10X".into())));
        assert_eq!(parse_size(""), Err(UnitError::Size("".into())));
        assert_eq!(parse_size("K"), Err(UnitError::Size("K".into())));
        assert_eq!(parse_size("-4K"), Err(UnitError::Size("-4K".into())));
        assert!(matches!(parse_size("99999999999999T"), Err(UnitError::Overflow(_))));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("500ms").unwrap(), 500_000_000);
        assert_eq!(parse_duration_ns("30s").unwrap(), 30_000_000_000);
        assert_eq!(parse_duration_ns("5m").unwrap(), 300_000_000_000);
        assert_eq!(parse_duration_ns("1h").unwrap(), 3_600_000_000_000);
        assert_eq!(parse_duration_ns("1.5s").unwrap(), 1_500_000_000);
        assert!(parse_duration_ns("30").is_err());
        assert!(parse_duration_ns("s").is_err());
        assert!(parse_duration_ns("3x").is_err());
    }

    #[test]
    fn approximate_sizes_read_well() {
        assert_eq!(format_bytes_approx(25_275_424_768), "23.5 GiB");
        assert_eq!(format_bytes_approx(1536), "1.5 KiB");
        assert_eq!(format_bytes_approx(12), "12 B");
    }

    #[test]
    fn formatting_round_trips() {
        assert_eq!(format_size(8192), "8KiB");
        assert_eq!(format_size(1536), "1536B");
        assert_eq!(format_size(1 << 20), "1MiB");
        assert_eq!(format_duration_ns(30_000_000_000), "30s");
        assert_eq!(format_duration_ns(500_000_000), "500ms");
        assert_eq!(format_latency_ns(1500.0), "1.50us");
    }
}
