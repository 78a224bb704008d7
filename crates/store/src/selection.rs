//! Selecting stored runs as a user writes them: labels (`raid=10`), run ids (`12`) and ranges
//! (`12-14`). Every mistake names the flag and the value.

use crate::Filter;
use spindle_model::usage::UsageError;

/// `KEY=VALUE`, as labels are attached (`--label`) and selected (`--label`, `--a`, `--b`).
pub fn parse_label(flag: &'static str, item: &str) -> Result<(String, String), UsageError> {
    let (key, value) = item
        .split_once('=')
        .ok_or_else(|| UsageError::flag(flag, item, format_args!("write KEY=VALUE, e.g. {flag} raid=10")))?;
    let key = key.trim();
    let valid = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    if !valid {
        return Err(UsageError::flag(flag, item, "the key must be letters, digits, '_', '-' or '.'"));
    }
    // A line break in a value would print as a line of its own wherever the run is listed
    // (other control characters are written out by every text view).
    if value.contains(['\n', '\r']) {
        return Err(UsageError::flag(
            flag,
            item.escape_debug().to_string(),
            "the value holds a line break: write it on one line",
        ));
    }
    Ok((key.to_string(), value.trim().to_string()))
}

/// `12` or `12-14`, when `item` is one.
fn parse_id_range(item: &str) -> Option<(i64, i64)> {
    let id = |s: &str| s.trim().parse::<i64>().ok().filter(|n| *n > 0);
    match item.split_once('-') {
        Some((a, b)) => Some((id(a)?, id(b)?)).filter(|(a, b)| a <= b),
        None => id(item).map(|n| (n, n)),
    }
}

/// Run ids as `runs rm` and `runs show` take them.
pub fn parse_ids(flag: &'static str, items: &[String]) -> Result<Vec<(i64, i64)>, UsageError> {
    items
        .iter()
        .map(|item| {
            parse_id_range(item).ok_or_else(|| UsageError::flag(flag, item, "not a run id; write 12 or a range 12-14"))
        })
        .collect()
}

/// `--a` / `--b` items: each a run id, a range or a label; all must hold.
pub fn parse_selection(flag: &'static str, items: &[String]) -> Result<Filter, UsageError> {
    let mut filter = Filter::default();
    for item in items {
        if let Some(range) = parse_id_range(item) {
            filter.ids.push(range);
        } else if item.contains('=') {
            filter.labels.push(parse_label(flag, item)?);
        } else {
            return Err(UsageError::flag(flag, item, "write a run id (12), a range (12-14) or a label (raid=10)"));
        }
    }
    Ok(filter)
}
