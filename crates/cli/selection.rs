//! Selecting stored runs from the command line: labels (`raid=10`), run ids (`12`) and
//! ranges (`12-14`), kinds, statuses and times. Every mistake names the flag and the value.

use crate::args::SelectArgs;
use crate::usage::UsageError;
use spindle_store::{Filter, TimeBound};
use std::time::SystemTime;

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

/// The filter of `runs list`'s selection flags.
pub fn filter_of(select: &SelectArgs, now: SystemTime) -> Result<Filter, UsageError> {
    let labels = select.labels.iter().map(|l| parse_label("--label", l)).collect::<Result<_, _>>()?;
    let bound = |flag: &'static str, v: &Option<String>, upper: bool| {
        v.as_deref().map(|t| TimeBound::parse(t, upper, now).map_err(|why| UsageError::flag(flag, t, why))).transpose()
    };
    const STATUSES: [&str; 3] = ["complete", "interrupted", "failed"];
    if let Some(s) = select.status.as_deref().filter(|s| !STATUSES.contains(s)) {
        return Err(UsageError::flag("--status", s, format_args!("write one of {}", STATUSES.join(", "))));
    }
    let group = select
        .group
        .as_deref()
        .map(|g| g.trim().parse::<i64>().map_err(|_| UsageError::flag("--group", g, "not a group id")))
        .transpose()?;
    Ok(Filter {
        labels,
        kind: select.kind.clone(),
        status: select.status.clone(),
        since: bound("--since", &select.since, false)?,
        until: bound("--until", &select.until, true)?,
        group,
        ids: Vec::new(),
        limit: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_mix_ids_ranges_and_labels() {
        let f = parse_selection("--a", &["12".into(), "14-16".into(), "raid=5".into()]).unwrap();
        assert_eq!(f.ids, [(12, 12), (14, 16)]);
        assert_eq!(f.labels, [("raid".to_string(), "5".to_string())]);
        for bad in ["16-14", "raid", "0", "=5", "a b=1"] {
            let e = parse_selection("--b", &[bad.into()]).err().unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(e.to_string().starts_with(&format!("--b {bad}")), "{e}");
        }
        assert!(parse_ids("run", &["x".into()]).is_err());
    }

    #[test]
    fn list_flags_are_checked() {
        let now = SystemTime::now();
        let ok = SelectArgs { since: Some("7d".into()), status: Some("complete".into()), ..SelectArgs::default() };
        assert!(filter_of(&ok, now).unwrap().since.is_some());
        for bad in [
            SelectArgs { since: Some("last week".into()), ..SelectArgs::default() },
            SelectArgs { status: Some("done".into()), ..SelectArgs::default() },
            SelectArgs { group: Some("x".into()), ..SelectArgs::default() },
            SelectArgs { labels: vec!["raid".into()], ..SelectArgs::default() },
        ] {
            assert!(filter_of(&bad, now).is_err(), "{bad:?}");
        }
    }
}
