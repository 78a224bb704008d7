//! `spindle runs list|show|rm`: the results store from the command line.

use crate::args::{RunsAction, RunsArgs, RunsListArgs, RunsRmArgs, RunsShowArgs};
use crate::usage::UsageError;
use crate::{Outcome, output, selection, store};
use anyhow::bail;
use spindle_model::units::format_latency_ns;
use spindle_store::{Filter, RunSummary, StoreError};
use std::fmt::Write;

/// How many runs `runs list` shows without --limit or --all.
const DEFAULT_LIMIT: u64 = 50;

pub fn run(args: &RunsArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        RunsAction::List(a) => list(a),
        RunsAction::Show(a) => show(a),
        RunsAction::Rm(a) => rm(a),
    }
}

fn list(args: &RunsListArgs) -> anyhow::Result<Outcome> {
    let mut filter = selection::filter_of(&args.select, std::time::SystemTime::now())?;
    filter.limit = match (&args.limit, args.all) {
        (_, true) => None,
        (Some(n), false) => Some(
            n.trim()
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| UsageError::flag("--limit", n, "write a number of runs, at least 1"))?,
        ),
        (None, false) => Some(DEFAULT_LIMIT),
    };
    let (runs, total) = match store::open_existing(&args.store)? {
        Some(s) => (s.list(&filter)?, s.count(&Filter { limit: None, ..filter.clone() })?),
        None => (Vec::new(), 0),
    };
    if args.json {
        let mut text = serde_json::to_string_pretty(&runs)?;
        text.push('\n');
        output::write_stdout(text.as_bytes())?;
    } else {
        output::write_text(list_text(&runs, total).as_bytes())?;
    }
    Ok(Outcome::Success)
}

fn list_text(runs: &[RunSummary], total: u64) -> String {
    let mut out = String::new();
    if runs.is_empty() {
        out.push_str("no runs\n");
        return out;
    }
    let _ = writeln!(
        out,
        "{:>6}  {:<20} {:<11} {:<11} {:>12} {:>9} {:>9} {:>9}  {:<14} {:<20} workload",
        "id", "started (UTC)", "kind", "status", "IOs/sec", "MB/s", "avg", "p99", "group", "labels"
    );
    for r in runs {
        let group = match (&r.group, &r.point) {
            (Some(g), Some(p)) => format!("{g} {p}"),
            (Some(g), None) => format!("{g} #{}", r.repeat),
            _ => "-".into(),
        };
        let labels: Vec<String> = r.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let labels = if labels.is_empty() { "-".to_string() } else { labels.join(",") };
        let _ = writeln!(
            out,
            "{:>6}  {:<20} {:<11} {:<11} {:>12.0} {:>9.2} {:>9} {:>9}  {:<14} {:<20} {}",
            r.id,
            r.started_at.replace('T', " ").trim_end_matches('Z'),
            r.kind,
            r.status,
            r.iops,
            r.mb_per_sec,
            format_latency_ns(r.latency_mean_ns),
            format_latency_ns(r.latency_p99_ns as f64),
            group,
            labels,
            r.workload
        );
    }
    if (runs.len() as u64) < total {
        let _ = writeln!(out, "(the newest {} of {total} runs; --limit N or --all for more)", runs.len());
    }
    out
}

fn one_id(flag: &'static str, text: &str) -> Result<i64, UsageError> {
    match selection::parse_ids(flag, &[text.to_string()])?.as_slice() {
        [(a, b)] if a == b => Ok(*a),
        _ => Err(UsageError::flag(flag, text, "give one run id")),
    }
}

fn show(args: &RunsShowArgs) -> anyhow::Result<Outcome> {
    if let Some(group) = &args.group {
        return show_group(args, group);
    }
    let id = one_id("runs show", args.id.as_deref().unwrap_or_default())?;
    let Some(store) = store::open_existing(&args.store)? else { return Err(StoreError::NoSuchRun(id).into()) };
    let run = store.load(id)?;
    if args.json {
        output::write_stdout(&spindle_report::render_json(&run.record))?;
    } else if args.csv {
        output::write_stdout(&spindle_report::render_csv(&document_of(vec![run])))?;
    } else {
        let mut head = format!("run {id}");
        if let Some(g) = run.summary.group {
            let _ = write!(head, ", group {g}");
        }
        if let Some(p) = &run.summary.point {
            let _ = write!(head, ", {p}");
        }
        if run.summary.repeat > 1 {
            let _ = write!(head, ", repeat {}", run.summary.repeat);
        }
        let mut bytes = format!("{head}\n").into_bytes();
        bytes.extend(spindle_report::render_text(std::slice::from_ref(&run.record)));
        output::write_report(&bytes)?;
    }
    Ok(Outcome::Success)
}

/// `runs show --group N`: the group's view, derived from its stored records.
fn show_group(args: &RunsShowArgs, text: &str) -> anyhow::Result<Outcome> {
    let id: i64 = text.trim().parse().map_err(|_| UsageError::flag("--group", text, "not a group id"))?;
    let Some(store) = store::open_existing(&args.store)? else { return Err(StoreError::NoSuchGroup(id).into()) };
    let group = store.group(id)?;
    let runs = store.load_all(&Filter { group: Some(id), ..Filter::default() })?;
    let input = spindle_report::GroupInput {
        id,
        kind: group.kind,
        name: &group.name,
        created_at: &group.created_at,
        summary: group.summary.as_ref(),
        runs: runs.iter().map(|r| (r.summary.id, r.summary.point.as_ref(), r.summary.repeat, &r.record)).collect(),
    };
    let view = spindle_report::group_view(&input);
    if args.json {
        let mut text = serde_json::to_string_pretty(&view)?;
        text.push('\n');
        output::write_stdout(text.as_bytes())?;
    } else if args.csv {
        output::write_stdout(&spindle_report::render_csv(&document_of(runs)))?;
    } else {
        output::write_text(&spindle_report::render_group(&view))?;
    }
    Ok(Outcome::Success)
}

/// Stored runs as exporters take them, with their ids and places in groups.
pub fn document_of(runs: Vec<spindle_store::StoredRun>) -> spindle_report::Document {
    spindle_report::Document {
        runs: runs
            .into_iter()
            .map(|r| spindle_report::ReportRun {
                id: Some(r.summary.id),
                group: r.summary.group,
                point: r.summary.point,
                repeat: r.summary.repeat,
                record: r.record,
            })
            .collect(),
        ..spindle_report::Document::default()
    }
}

fn rm(args: &RunsRmArgs) -> anyhow::Result<Outcome> {
    let ranges = selection::parse_ids("runs rm", &args.ids)?;
    let Some(mut store) = store::open_existing(&args.store)? else {
        return Err(StoreError::NoSuchRun(ranges[0].0).into());
    };
    let mut ids = Vec::new();
    for (a, b) in ranges {
        if b - a > 1_000_000 {
            bail!(UsageError::flag("runs rm", format!("{a}-{b}"), "too wide a range"));
        }
        ids.extend(a..=b);
    }
    // A run named twice (`runs rm 6 6`, `5-7 6`) is removed once.
    ids.sort_unstable();
    ids.dedup();
    store.remove(&ids)?;
    let shown: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
    eprintln!("spindle: removed run{} {}", if ids.len() == 1 { "" } else { "s" }, shown.join(", "));
    Ok(Outcome::Success)
}
