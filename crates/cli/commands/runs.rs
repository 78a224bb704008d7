//! `spindle runs list|show|rm`: the results store from the command line.

use crate::args::{RunsAction, RunsArgs, RunsListArgs, RunsRmArgs, RunsShowArgs};
use crate::listing::{Listed, listed};
use crate::usage::UsageError;
use crate::{Outcome, output, selection, store};
use anyhow::bail;
use spindle_model::RunKind;
use spindle_model::db::Counts;
use spindle_model::record::LatencyOf;
use spindle_model::units::format_latency_opt;
use spindle_store::{Filter, RunSummary, StoreError};
use std::fmt::Write;

/// How many runs `runs list` shows without --limit or --all.
const DEFAULT_LIMIT: u64 = 50;

/// The widest line `runs list` prints: a terminal's 100 columns.
const LIST_WIDTH: usize = 100;

/// Where a run's second line (what it ran, its group and labels) starts.
const ABOUT_INDENT: &str = "       ";

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
        Some(s) => {
            let runs = s.list(&filter)?;
            (listed(runs), s.count(&Filter { limit: None, ..filter.clone() })?)
        }
        None => (Vec::new(), 0),
    };
    if args.print.json {
        let mut text = serde_json::to_string_pretty(&runs)?;
        text.push('\n');
        output::write_stdout(text.as_bytes())?;
    } else {
        output::write_text(list_text(&runs, total).as_bytes())?;
    }
    Ok(Outcome::Success)
}

/// A run in two lines that fit a terminal's 100 columns: its figures, then what it ran, its
/// group and labels (wrapped, however long they are). `avg` and `p99` are the lead latency's;
/// where a run commits, its second line says so and each I/O's mean has a column of its own.
fn list_text(runs: &[Listed], total: u64) -> String {
    let mut out = String::new();
    if runs.is_empty() {
        out.push_str("no runs\n");
        return out;
    }
    // Rates are named by what the runs count, when they all count the same.
    let counts: Vec<Counts> =
        runs.iter().map(|r| RunKind::parse(&r.summary.kind).map_or(Counts::Ios, RunKind::counts)).collect();
    let rate = if counts.iter().all(|c| *c == counts[0]) { counts[0].per_sec() } else { "ops/sec" };
    let commits = runs.iter().any(|r| r.latency_of == LatencyOf::Commit);
    // The last column: empty where a run's lead is each I/O's already.
    let beside = |text: String| if commits && !text.is_empty() { format!(" {text:>8}") } else { String::new() };
    let _ = writeln!(
        out,
        "{:>5}  {:<19}  {:<11} {:<11} {:>9} {:>8} {:>8} {:>8}{}",
        "id",
        "started (UTC)",
        "kind",
        "status",
        rate,
        "MB/s",
        "avg",
        "p99",
        beside("I/O avg".into())
    );
    let _ = writeln!(out, "{ABOUT_INDENT}what it ran; group; labels");
    for listed in runs {
        let r = &listed.summary;
        let io_mean = match listed.latency_of {
            LatencyOf::Commit => format_latency_opt(r.latency_mean_ns),
            LatencyOf::Io => String::new(),
        };
        let _ = writeln!(
            out,
            "{:>5}  {:<19}  {:<11} {:<11} {:>9} {:>8} {:>8} {:>8}{}",
            r.id,
            r.started_at.replace('T', " ").trim_end_matches('Z'),
            r.kind,
            r.status,
            rate_of(r),
            // MB/s only where the run moves bytes of its own (not Hammer's calls, a load's rows).
            match RunKind::parse(&r.kind) {
                Some(k) if !k.moves_bytes() => "-".to_string(),
                _ => format!("{:.2}", r.mb_per_sec),
            },
            format_latency_opt(listed.lead_latency_mean_ns),
            format_latency_opt(listed.lead_latency_p99_ns.map(|p| p as f64)),
            beside(io_mean),
        );
        let mut about = vec![r.workload.clone()];
        if listed.latency_of == LatencyOf::Commit {
            about.insert(0, "avg and p99 of commits".to_string());
        }
        match (&r.group, &r.point) {
            (Some(g), Some(p)) => about.push(format!("group {g} {p}")),
            (Some(g), None) => about.push(format!("group {g} #{}", r.repeat)),
            _ => {}
        }
        if !r.labels.is_empty() {
            about.push(r.labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","));
        }
        // Escaped before it is measured, so an escaped control character counts as wide as
        // it is printed.
        out.push_str(&wrap(&crate::style::printable(&about.join("; ")), ABOUT_INDENT, LIST_WIDTH));
    }
    if (runs.len() as u64) < total {
        let _ = writeln!(out, "(the newest {} of {total} runs; --limit N or --all for more)", runs.len());
    }
    out
}

/// A run's rate as `runs list` shows it: "-" where a rate means nothing (a large operation's
/// checkpoint processes no rows, and is never a rate of I/Os).
fn rate_of(r: &RunSummary) -> String {
    r.rate().map_or("-".to_string(), |v| format!("{v:.0}"))
}

/// `text` in lines of at most `width` columns, each after `indent`, broken at spaces; a word
/// longer than a line is cut, so no line is ever wider.
fn wrap(text: &str, indent: &str, width: usize) -> String {
    let room = width.saturating_sub(indent.len()).max(1);
    let mut lines: Vec<String> = vec![String::new()];
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let line = lines.last_mut().expect("never empty");
            let used = line.chars().count();
            let needed = if used == 0 { word.len() } else { used + 1 + word.len() };
            if needed <= room {
                if used > 0 {
                    line.push(' ');
                }
                line.extend(word);
                break;
            }
            if used == 0 {
                // A word wider than a line on its own: as much as fits, the rest on the next.
                line.extend(&word[..room]);
                word.drain(..room);
            }
            lines.push(String::new());
        }
    }
    lines.iter().map(|l| format!("{indent}{l}\n")).collect()
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
        output::write_stdout(&spindle_report::render_csv(&store::document_of(vec![run])))?;
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
        output::write_stdout(&spindle_report::render_csv(&store::document_of(runs)))?;
    } else {
        output::write_text(&spindle_report::render_group(&view))?;
    }
    Ok(Outcome::Success)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A run that commits nothing: it leads with each I/O's latency, the summary's.
    fn plain(summary: RunSummary) -> Listed {
        listed(vec![summary]).remove(0)
    }

    fn summary(id: i64, kind: &str, labels: &[(&str, &str)], workload: &str) -> RunSummary {
        RunSummary {
            id,
            started_at: "2026-11-26T07:53:27Z".into(),
            kind: kind.into(),
            status: "interrupted".into(),
            workload: workload.into(),
            labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            group: Some(5),
            point: Some(spindle_model::group::Point::sweep("op", "checkpoint")),
            repeat: 1,
            hostname: "db01".into(),
            measured_seconds: 1.0,
            iops: 81_300_000.0,
            mb_per_sec: 332_999.99,
            latency_mean_ns: Some(271_710.0),
            latency_p99_ns: Some(21_000_000),
            errors: 0,
            commit_latency_ns: None,
        }
    }

    /// `runs list` fits 100 columns whatever the runs hold, and loses none of it: long labels
    /// and workloads wrap onto the run's second line.
    #[test]
    fn the_run_list_fits_100_columns_and_keeps_everything() {
        let long = "a".repeat(150);
        let runs = [
            summary(
                12345,
                "hammer-load",
                &[("array", "raid10"), ("note", &long)],
                "Hammer load: 1000 rows into TestTransaction (sqlite)",
            ),
            summary(
                7,
                "io",
                &[("ab", "a"), ("case", "ab"), ("round", "1")],
                "8KiB random read, 64 threads x 8 outstanding",
            ),
        ];
        let runs = runs.map(plain);
        let text = list_text(&runs, 3);
        for line in text.lines() {
            assert!(line.chars().count() <= LIST_WIDTH, "{} columns: {line}\n{text}", line.chars().count());
        }
        let joined: String = text.lines().map(str::trim).collect();
        for part in ["raid10", &long, "group 5 op=checkpoint", "TestTransaction (sqlite)", "ab=a,case=ab,round=1"] {
            assert!(joined.contains(part), "{part} in\n{text}");
        }
        assert!(text.starts_with("   id  started (UTC)") && text.contains("ops/sec"), "mixed kinds: {text}");
        assert!(text.contains("(the newest 2 of 3 runs"), "{text}");
        let io = list_text(&runs[1..], 1);
        assert!(io.contains("IOs/sec") && !io.contains("ops/sec"), "{io}");
    }

    /// A large operation's rate is of rows; a checkpoint has none, and neither is IOs/sec.
    #[test]
    fn a_checkpoint_is_listed_without_a_rate() {
        let mut load = summary(1, "largeops", &[], "large operations: load of 1000 TPC-C customer rows");
        load.point = Some(spindle_model::group::Point::sweep("op", "load"));
        load.iops = 48_543.0;
        let checkpoint = summary(2, "largeops", &[], "large operations: checkpoint of 1000 TPC-C customer rows");
        let text = list_text(&[plain(load), plain(checkpoint)], 2);
        assert!(text.contains("rows/sec") && !text.contains("IOs/sec"), "{text}");
        let figures = |id: &str| -> Vec<String> {
            let line = text.lines().find(|l| l.trim_start().starts_with(id)).unwrap();
            line.split_whitespace().map(str::to_string).collect()
        };
        assert_eq!(figures("1 ")[5], "48543", "{text}");
        assert_eq!(figures("2 ")[5], "-", "{text}");
    }

    /// A run that commits leads with its commits' latency (ten times its writes' here), says
    /// so on its second line and shows each I/O's beside; a run that does not is as before.
    #[test]
    fn a_run_that_commits_is_listed_with_its_commit_latency_and_its_writes_beside() {
        let read = plain(summary(1, "io", &[], "8KiB random read"));
        let unchanged = list_text(std::slice::from_ref(&read), 1);
        let wal = listed(vec![RunSummary {
            latency_mean_ns: Some(25_200.0),
            commit_latency_ns: Some((252_000.0, 1_200_000)),
            ..summary(2, "io", &[], "8KiB sequential write")
        }])
        .remove(0);
        assert_eq!(wal.latency_of, LatencyOf::Commit);
        let text = list_text(&[read, wal], 2);
        let figures = |id: &str| -> Vec<String> {
            let line = text.lines().find(|l| l.trim_start().starts_with(id)).unwrap();
            line.split_whitespace().map(str::to_string).collect()
        };
        assert!(text.lines().next().unwrap().ends_with("avg      p99  I/O avg"), "{text}");
        assert_eq!(figures("2 ")[7..], ["252.00us", "1.20ms", "25.20us"], "{text}");
        assert_eq!(figures("1 ")[7..], ["271.71us", "21.00ms"], "{text}");
        assert!(text.contains("avg and p99 of commits; 8KiB sequential write"), "{text}");
        assert!(!unchanged.contains("I/O avg") && !unchanged.contains("commits"), "{unchanged}");
        let json = serde_json::to_value(&[plain(summary(3, "io", &[], "x"))]).unwrap();
        assert_eq!(json[0]["latency_of"], "io");
        assert_eq!(json[0]["lead_latency_mean_ns"], json[0]["latency_mean_ns"], "added beside, never renamed");
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_cuts_only_words_wider_than_a_line() {
        assert_eq!(wrap("ab cd ef", "  ", 7), "  ab cd\n  ef\n");
        assert_eq!(wrap("abcdefgh", "  ", 5), "  abc\n  def\n  gh\n");
        assert_eq!(wrap("", "  ", 5), "  \n");
    }
}
