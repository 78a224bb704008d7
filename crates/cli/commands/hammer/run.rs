//! `spindle hammer run`: one run per session count, grouped, each measured once every session
//! is connected; per session and overall calls, errors and latency for reads (GetAccount)
//! and writes (UpdateAccount), with counters sampled beside.

use super::url_of;
use crate::args::HammerRunArgs;
use crate::commands::agents;
use crate::console::{Console, Shown};
use crate::flags::{read_pct_of, sessions_of};
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
    let settings = Settings::of(args)?;
    let labels = output::labels(&args.output.labels)?;
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    if let Some(request) = agents::request_of(&args.agents)? {
        return via_agents(args, &settings, url, request);
    }
    let sessions = &settings.sessions;
    if let Some((n, why)) = crate::database::beyond_room(&url, sessions)? {
        return Err(UsageError::flag("--sessions", n.to_string(), why).into());
    }
    let quiet = args.output.quiet;
    let group = (sessions.len() > 1).then(|| (GroupKind::Sweep, format!("hammer --sessions {}", list(sessions))));
    // As sweeps do: a line per session count as it ends, the curve at the end (`-v`, or a
    // single session count, prints each run's full report).
    let console = Console::new(&args.output, store::location(&args.store)?, Shown::Line);
    let mut runner = runner::new(&console, &args.store, labels, interval)?;
    let mut hammer = Hammer::new(Database::at(url, None), None, settings.plans(), settings.rate);
    let result = series::run(&mut runner, &mut [&mut hammer as &mut dyn Workload], &settings.steps(), group);
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
        say_failed(&e, sessions, records.len());
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

/// The run's flags, checked.
struct Settings {
    sessions: Vec<u32>,
    read_pct: u8,
    duration: Duration,
    warmup: Duration,
    think: Duration,
    rate: Option<f64>,
}

impl Settings {
    fn of(args: &HammerRunArgs) -> Result<Settings, UsageError> {
        let sessions = sessions_of(&args.sessions)?;
        let read_pct = read_pct_of(&args.read_ratio)?;
        let duration = plan::optional_duration_of("--duration", &args.timing.duration, Duration::from_millis(1))?
            .unwrap_or(Duration::from_secs(60));
        let warmup = plan::optional_duration_of("--warmup", &args.timing.warmup, Duration::ZERO)?
            .unwrap_or(Duration::from_secs(10));
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
        Ok(Settings { sessions, read_pct, duration, warmup, think, rate })
    }

    /// A run per session count.
    fn plans(&self) -> Vec<RunPlan> {
        self.sessions
            .iter()
            .map(|&n| RunPlan {
                sessions: n,
                read_pct: self.read_pct,
                rows: 0,
                warmup: self.warmup,
                duration: self.duration,
                think: self.think,
                rate_per_session: None,
                start: None,
            })
            .collect()
    }

    /// The series' steps, a point per session count (named when there are several).
    fn steps(&self) -> Vec<Step> {
        let many = self.sessions.len() > 1;
        self.sessions
            .iter()
            .enumerate()
            .map(|(i, n)| Step {
                workload: 0,
                point: i,
                point_name: many.then(|| Point::sweep("sessions", n.to_string())),
                repeat: 1,
            })
            .collect()
    }
}

/// `--agents N`: one session count, shared among agents that run it together.
fn via_agents(
    args: &HammerRunArgs,
    settings: &Settings,
    url: spindle_db::DbUrl,
    request: spindle_agents::Request,
) -> anyhow::Result<Outcome> {
    let [total] = settings.sessions[..] else {
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
        read_pct: settings.read_pct,
        warmup_ns: settings.warmup.as_nanos() as u64,
        duration_ns: settings.duration.as_nanos() as u64,
        think_ns: settings.think.as_nanos() as u64,
        rate: settings.rate,
    };
    let asked = agents::Asked { store: &args.store, output: &args.output, db: Some(&url) };
    agents::run(asked, request, work)
}

/// A session count failed after `done` runs were measured and saved.
fn say_failed(e: &anyhow::Error, sessions: &[u32], done: usize) {
    eprintln!(
        "spindle: error: sessions={}: {}; the {done} run{} before it {} saved",
        sessions[done.min(sessions.len() - 1)],
        crate::error_text(e),
        if done == 1 { "" } else { "s" },
        if done == 1 { "is" } else { "are" }
    );
}

fn list(sessions: &[u32]) -> String {
    sessions.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}
