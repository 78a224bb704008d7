//! Counts of rows as DBAs write them: `10M`, `100000`, `3M`, and lists of them (`--batch
//! 1,10,100`). K, M and G are powers of 1000, as row counts are said.

use crate::usage::UsageError;

/// `10M` rows: a count with an optional K, M or G, from 1 to `max`; `default` when absent.
pub fn rows_of(flag: &'static str, text: &Option<String>, default: u64, max: u64) -> Result<u64, UsageError> {
    let Some(t) = text else { return Ok(default) };
    one(t).filter(|n| (1..=max).contains(n)).ok_or_else(|| {
        UsageError::flag(flag, t, format_args!("write a number of rows from 1 to {max}, e.g. 10M (10,000,000)"))
    })
}

/// `1,10,100,1K`: each from 1 to `max`, each once, in the order given.
pub fn row_list_of(
    flag: &'static str,
    text: &Option<String>,
    default: &[u64],
    max: u64,
) -> Result<Vec<u64>, UsageError> {
    let Some(t) = text else { return Ok(default.to_vec()) };
    let mut out: Vec<u64> = Vec::new();
    for part in t.split(',') {
        let n = one(part).filter(|n| (1..=max).contains(n)).ok_or_else(|| {
            UsageError::flag(flag, t, format_args!("'{}' is not a count from 1 to {max}", part.trim()))
        })?;
        if out.contains(&n) {
            return Err(UsageError::flag(flag, t, format_args!("{n} appears twice")));
        }
        out.push(n);
    }
    Ok(out)
}

fn one(text: &str) -> Option<u64> {
    let s = text.trim();
    let (digits, factor) = match s.char_indices().last() {
        Some((i, 'K' | 'k')) => (&s[..i], 1_000),
        Some((i, 'M' | 'm')) => (&s[..i], 1_000_000),
        Some((i, 'G' | 'g')) => (&s[..i], 1_000_000_000),
        _ => (s, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_lists() {
        assert_eq!(rows_of("--rows", &Some("3M".into()), 1, u64::MAX).unwrap(), 3_000_000);
        assert_eq!(rows_of("--rows", &None, 7, 10).unwrap(), 7);
        for bad in ["0", "x", "11", "-1", "99999999999999999999G"] {
            let e = rows_of("--rows", &Some(bad.into()), 1, 10).unwrap_err().to_string();
            assert!(e.contains("--rows"), "{e}");
        }
        assert_eq!(row_list_of("--batch", &Some("1, 10,1K".into()), &[], 1000).unwrap(), vec![1, 10, 1000]);
        let dup = row_list_of("--batch", &Some("10,10".into()), &[], 100).unwrap_err().to_string();
        assert!(dup.contains("appears twice"), "{dup}");
        assert!(row_list_of("--batch", &Some("1,,2".into()), &[], 100).is_err());
    }
}
