//! `spindle hammer run`: one run per session count, grouped, each measured once every session
//! is connected; per session and overall calls, errors and latency for reads (GetAccount)
//! and writes (UpdateAccount), with counters sampled beside.

use super::url_of;
use crate::args::HammerRunArgs;
use crate::commands::agents;
use crate::console::{Console, Shown};
use crate::origin::Setting;
use crate::usage::UsageError;
use crate::{Outcome, output, plan, runner, store};
use spindle_db::hammer::RunPlan;
use spindle_model::RunRecord;
use spindle_model::db::Counts;
use spindle_model::group::Point;
use spindle_runner::experiment::series::{self, Step};
use spindle_runner::workload::Workload;
use spindle_runner::workload::database::Database;
use spindle_runner::workload::hammer::Hammer;
use spindle_store::GroupKind;
use std::time::Duration;

pub(super) fn run(args: &HammerRunArgs) -> anyhow::Result<Outcome> {
    let url = url_of(&args.database.db)?;
    let sessions = sessions_of(&args.sessions)?;
    let read_pct = read_pct_of(&args.read_ratio)?;
    let duration = plan::optional_duration_of("--duration", &args.timing.duration, Duration::from_millis(1))?
        .unwrap_or(Duration::from_secs(60));
    let warmup =
        plan::optional_duration_of("--warmup", &args.timing.warmup, Duration::ZERO)?.unwrap_or(Duration::from_secs(10));
    let think = plan::optional_duration_of("--think-time", &args.think_time, Duration::ZERO)?.unwrap_or_default();
    let rate = match &args.rate {
        None => None,
        Some(t) => Some(
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|r| r.is_finite() && *r > 0.0)
                .ok_or_else(|| UsageError::flag("--rate", t, "calls per second, above 0"))?,
        ),
    };
    let labels = output::labels(&args.output.labels)?;
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    if let Some(request) = agents::Request::of(&args.agents)? {
        let [total] = sessions[..] else {
            return Err(UsageError::request(
                "--agents measures one session count: run it once per count of --sessions instead",
            )
            .into());
        };
        if let Some((n, why)) = crate::database::beyond_room(&url, &[total])? {
            return Err(UsageError::flag("--sessions", n.to_string(), why).into());
        }
        let work = agents::Work::Hammer {
            db: agents::Work::db_without_password(&url),
            sessions: total,
            read_pct,
            warmup_ns: warmup.as_nanos() as u64,
            duration_ns: duration.as_nanos() as u64,
            think_ns: think.as_nanos() as u64,
            rate,
        };
        let asked = agents::Asked { store: &args.store, output: &args.output, db: Some(&url) };
        return agents::run(asked, request, work);
    }
    if let Some((n, why)) = crate::database::beyond_room(&url, &sessions)? {
        return Err(UsageError::flag("--sessions", n.to_string(), why).into());
    }
    let quiet = args.output.quiet;
    let group = (sessions.len() > 1).then(|| (GroupKind::Sweep, format!("hammer --sessions {}", list(&sessions))));
    let plans = sessions
        .iter()
        .map(|&n| RunPlan {
            sessions: n,
            read_pct,
            rows: 0,
            warmup,
            duration,
            think,
            rate_per_session: None,
            start: None,
        })
        .collect();
    let steps: Vec<Step> = sessions
        .iter()
        .enumerate()
        .map(|(i, n)| Step {
            workload: 0,
            point: i,
            point_name: (sessions.len() > 1).then(|| Point::sweep("sessions", n.to_string())),
            repeat: 1,
        })
        .collect();
    // As sweeps do: a line per session count as it ends, the curve at the end (`-v`, or a
    // single session count, prints each run's full report).
    let console = Console::new(&args.output, store::location(&args.store)?, Shown::Line);
    let mut runner = runner::new(&console, &args.store, labels, interval)?;
    let mut hammer = Hammer::new(Database::at(url, None), None, plans, rate);
    let result = series::run(&mut runner, &mut [&mut hammer as &mut dyn Workload], &steps, group);
    // Moved out, not copied: a thousand sessions' record is megabytes, and the document for
    // --json copies it once more.
    let records: Vec<RunRecord> = std::mem::take(&mut runner.runs).into_iter().map(|f| f.record).collect();
    let mut outcome = runner.outcome;
    if let Err(e) = result {
        // The runs before it are measured and saved: say what failed, show them, and end as a
        // run whose operations failed, not as a command that ran nothing.
        if records.is_empty() {
            return Err(e);
        }
        let n = records.len();
        eprintln!(
            "spindle: error: sessions={}: {}; the {n} run{} before it {} saved",
            sessions[n.min(sessions.len() - 1)],
            crate::error_text(&e),
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" }
        );
        outcome = Outcome::OperationsFailed;
    }
    let points: Vec<(String, Vec<&RunRecord>)> =
        sessions.iter().zip(&records).map(|(n, r)| (n.to_string(), vec![r])).collect();
    let curve = runner::sweep_curve(&runner, "sessions", &points)?;
    let many = records.len() > 1;
    if args.output.json || args.output.csv {
        let document = runner.saver.document(&records);
        // Written from the document's copy alone.
        drop(records);
        output::print_document(&document, &args.output)?;
    } else if !quiet && many {
        output::write_text(&spindle_report::render_sweep("sessions", &curve, Counts::Calls))?;
    }
    Ok(outcome)
}

/// `--read-ratio`: the percent of calls that are GetAccount [default: 50].
pub(crate) fn read_pct_of(text: &Option<String>) -> Result<u8, UsageError> {
    match text {
        None => Ok(50),
        Some(t) => t
            .trim()
            .parse::<u8>()
            .ok()
            .filter(|p| *p <= 100)
            .ok_or_else(|| UsageError::flag("--read-ratio", t, "a percentage from 0 to 100")),
    }
}

fn list(sessions: &[u32]) -> String {
    sessions.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// `--sessions 100,500,800` [default: 8].
pub(crate) fn sessions_of(text: &Option<String>) -> Result<Vec<u32>, UsageError> {
    Setting::flag("--sessions", text).map_or(Ok(vec![8]), |s| plan::sessions_of(&s))
}
