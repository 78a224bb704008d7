//! Wall-clock timestamps for run records, in RFC 3339 UTC, without a date-time dependency.

use std::time::{SystemTime, UNIX_EPOCH};

/// `2026-11-22T23:35:29Z` for a system time (times before 1970 clamp to the epoch).
pub fn rfc3339_utc(at: SystemTime) -> String {
    let secs = at.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// `2026-11-22T23:35:29.250Z`: as [`rfc3339_utc`], to the millisecond.
pub fn rfc3339_utc_ms(at: SystemTime) -> String {
    let millis = at.duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_millis());
    let secs = rfc3339_utc(at);
    format!("{}.{millis:03}Z", &secs[..secs.len() - 1])
}

/// Milliseconds since 1970 of a time as [`rfc3339_utc_ms`] or [`rfc3339_utc`] write it
/// (`2026-11-22T23:35:29.250Z`, `2026-11-22T23:35:29Z`); `None` for any other text.
pub fn parse_rfc3339_utc_ms(text: &str) -> Option<i64> {
    let text = text.strip_suffix('Z')?;
    let (date, time) = text.split_once('T')?;
    let num = |s: &str| s.bytes().all(|b| b.is_ascii_digit()).then(|| s.parse::<i64>().ok()).flatten();
    let mut ymd = date.splitn(3, '-').map(num);
    let (y, m, d) = (ymd.next()??, ymd.next()??, ymd.next()??);
    let (hms, millis) = match time.split_once('.') {
        Some((hms, ms)) if ms.len() == 3 => (hms, num(ms)?),
        Some(_) => return None,
        None => (time, 0),
    };
    let mut parts = hms.splitn(3, ':').map(num);
    let (h, min, sec) = (parts.next()??, parts.next()??, parts.next()??);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || h > 23 || min > 59 || sec > 60 {
        return None;
    }
    Some(((days_from_civil(y, m, d) * 24 + h) * 60 + min) * 60_000 + sec * 1000 + millis)
}

/// (year, month, day) to days since 1970-01-01: the inverse of `civil_from_days` (Howard
/// Hinnant's days_from_civil).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `11/23/2026 06:00:01.250`: UTC in the form perfmon logs timestamps.
pub fn perfmon_utc(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{m:02}/{d:02}/{y:04} {:02}:{:02}:{:02}.{:03}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's civil_from_days).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_written_time_reads_back() {
        for ms in [0, 951_782_400_000, 1_795_390_529_250, 4_102_444_799_999] {
            let at = UNIX_EPOCH + Duration::from_millis(ms as u64);
            assert_eq!(parse_rfc3339_utc_ms(&rfc3339_utc_ms(at)), Some(ms));
        }
        assert_eq!(parse_rfc3339_utc_ms("2026-11-22T23:35:29Z"), Some(1_795_390_529_000));
        for bad in ["", "2026-11-22", "2026-13-01T00:00:00Z", "2026-11-22T23:35:29.25Z", "2026-11-22T+3:35:29Z"] {
            assert_eq!(parse_rfc3339_utc_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn known_dates() {
        assert_eq!(rfc3339_utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(UNIX_EPOCH + Duration::from_secs(1_795_390_529)), "2026-11-22T23:35:29Z");
        assert_eq!(rfc3339_utc_ms(UNIX_EPOCH + Duration::from_millis(1_795_390_529_250)), "2026-11-22T23:35:29.250Z");
        assert_eq!(rfc3339_utc_ms(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        assert_eq!(perfmon_utc(UNIX_EPOCH + Duration::from_millis(1_795_390_529_250)), "11/22/2026 23:35:29.250");
    }
}
