//! Selecting stored runs from the command line's selection flags: labels, kinds, statuses,
//! times and groups (ids, ranges and labels are parsed by the store's selection). Every
//! mistake names the flag and the value.

use crate::args::SelectArgs;
use crate::usage::UsageError;
pub use spindle_store::selection::{parse_ids, parse_label, parse_selection};
use spindle_store::{Filter, TimeBound};
use std::time::SystemTime;

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
