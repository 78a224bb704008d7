//! `spindle compare`: B against A, where each side is runs picked by id or label.

use crate::args::{CompareArgs, VerdictArgs};
use crate::usage::UsageError;
use crate::{Outcome, output, selection, store};
use spindle_analysis::compare::{DEFAULT_THRESHOLD_PCT, Settings};
use spindle_model::RunRecord;
use spindle_store::{Filter, GroupKind, Store, StoredRun};

pub fn run(args: &CompareArgs) -> anyhow::Result<Outcome> {
    let (a_items, b_items) = match (args.runs.as_slice(), args.a.is_empty() && args.b.is_empty()) {
        ([a, b], true) => (vec![a.clone()], vec![b.clone()]),
        ([], false) if !args.a.is_empty() && !args.b.is_empty() => (args.a.clone(), args.b.clone()),
        _ => {
            return Err(UsageError::request(
                "say what to compare: two runs (spindle compare 12 15) or two selections (--a raid=5 --b raid=10)",
            )
            .into());
        }
    };
    let (flag_a, flag_b) = if args.runs.is_empty() { ("--a", "--b") } else { ("run", "run") };
    let fa = selection::parse_selection(flag_a, &a_items)?;
    let fb = selection::parse_selection(flag_b, &b_items)?;
    let store = store::open_existing(&args.store)?;
    let load = |f: &Filter, flag: &'static str, items: &[String]| -> anyhow::Result<Vec<StoredRun>> {
        let runs = match &store {
            Some(s) => s.load_all(f)?,
            None => Vec::new(),
        };
        if runs.is_empty() {
            return Err(UsageError::NoRuns { selection: format!("{flag} {}", items.join(" ")) }.into());
        }
        Ok(runs)
    };
    let a = load(&fa, flag_a, &a_items)?;
    let b = load(&fb, flag_b, &b_items)?;
    // A run that measured nothing (stopped in its warm-up) has no figures to compare: its
    // zeros are not a result.
    if let Some(empty) = a.iter().chain(&b).find(|r| r.record.summary.ios == 0) {
        return Err(UsageError::request(format!(
            "run {} measured nothing ({}, {:.1} s measured): leave it out of the selection",
            empty.summary.id,
            empty.record.status.name(),
            empty.record.measured_seconds
        ))
        .into());
    }
    if let Some(shared) = a.iter().find(|r| b.iter().any(|x| x.summary.id == r.summary.id)).map(|r| r.summary.id) {
        if a.len() > 1 || b.len() > 1 {
            return Err(
                UsageError::request(format!("run {shared} is in both A and B; make the selections disjoint")).into()
            );
        }
    }
    // Labels that picked the sides are what is being compared, not a confounder.
    let selected_by: Vec<String> = fa.labels.iter().chain(fb.labels.iter()).map(|(k, _)| k.clone()).collect();
    let threshold_pct = threshold_of(&args.verdict)?;
    let history = match &store {
        Some(s) => history(s, &a, &b)?,
        None => Vec::new(),
    };
    let history: Vec<Vec<&RunRecord>> = history.iter().map(|g| g.iter().map(|r| &r.record).collect()).collect();
    let settings = Settings { selected_by: &selected_by, threshold_pct, history: &history };
    let (a_name, b_name) = (a_items.join(" "), b_items.join(" "));
    let parts = parts_of(&a, &b);
    if let [(None, a, b)] = parts.as_slice() {
        let comparison = spindle_analysis::compare::compare(a, b, &settings);
        if args.json {
            output::write_stdout(format!("{}\n", serde_json::to_string_pretty(&comparison)?).as_bytes())?;
        } else {
            output::write_report(&spindle_report::render_compare(&comparison, &a_name, &b_name))?;
        }
        return Ok(Outcome::Success);
    }
    // Large operations: each operation compared with the same operation only.
    let mut json = serde_json::Map::new();
    let mut text = Vec::new();
    for (part, a, b) in &parts {
        let part = part.as_deref().unwrap_or("other");
        if a.is_empty() || b.is_empty() {
            let (has, lacks) = if a.is_empty() { (&b_name, &a_name) } else { (&a_name, &b_name) };
            text.extend(format!("\n{part}: only in {has}, not in {lacks}; not compared\n").into_bytes());
            continue;
        }
        let comparison = spindle_analysis::compare::compare(a, b, &settings);
        text.extend(format!("\n{part}:\n").into_bytes());
        text.extend(spindle_report::render_compare(&comparison, &a_name, &b_name));
        json.insert(part.to_string(), serde_json::to_value(&comparison)?);
    }
    if args.json {
        output::write_stdout(format!("{}\n", serde_json::to_string_pretty(&json)?).as_bytes())?;
    } else {
        output::write_report(&text)?;
    }
    Ok(Outcome::Success)
}

/// A and B by part: one part for most runs; a large operation's runs by operation (a scan is
/// compared with a scan, never with a load), in the order the operations run.
type Part<'r> = (Option<String>, Vec<(i64, &'r RunRecord)>, Vec<(i64, &'r RunRecord)>);

fn parts_of<'r>(a: &'r [StoredRun], b: &'r [StoredRun]) -> Vec<Part<'r>> {
    let part = |r: &RunRecord| r.details.large_op().map(|op| op.operation.clone());
    let mut parts: Vec<Part<'r>> = Vec::new();
    for (side, runs) in [(0, a), (1, b)] {
        for r in runs {
            let key = part(&r.record);
            let i = match parts.iter().position(|p| p.0 == key) {
                Some(i) => i,
                None => {
                    parts.push((key, Vec::new(), Vec::new()));
                    parts.len() - 1
                }
            };
            let sided = if side == 0 { &mut parts[i].1 } else { &mut parts[i].2 };
            sided.push((r.summary.id, &r.record));
        }
    }
    parts
}

/// `--threshold PERCENT`: above 0, below 100.
pub fn threshold_of(args: &VerdictArgs) -> Result<f64, UsageError> {
    let Some(t) = &args.threshold else { return Ok(DEFAULT_THRESHOLD_PCT) };
    t.trim()
        .trim_end_matches('%')
        .parse::<f64>()
        .ok()
        .filter(|x| *x > 0.0 && *x < 100.0)
        .ok_or_else(|| UsageError::flag("--threshold", t, "a percentage above 0 and below 100, e.g. 5"))
}

/// Stored repeat groups of the compared workloads on the compared hosts, other than the
/// compared runs: what says how much this host drifts between groups.
fn history(store: &Store, a: &[StoredRun], b: &[StoredRun]) -> anyhow::Result<Vec<Vec<StoredRun>>> {
    let compared: Vec<i64> = a.iter().chain(b).map(|r| r.summary.id).collect();
    let mut hosts: Vec<&str> = a.iter().chain(b).map(|r| r.summary.hostname.as_str()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let mut workloads: Vec<String> = a.iter().chain(b).map(|r| r.summary.workload.clone()).collect();
    workloads.sort_unstable();
    workloads.dedup();
    let mut groups = Vec::new();
    for host in hosts {
        for group in store.groups_like(GroupKind::Repeat, host, &workloads)? {
            let others: Vec<StoredRun> = group.into_iter().filter(|r| !compared.contains(&r.summary.id)).collect();
            if !others.is_empty() {
                groups.push(others);
            }
        }
    }
    Ok(groups)
}
