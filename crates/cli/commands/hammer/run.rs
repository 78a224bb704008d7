//! `spindle hammer run`: one run per session count, grouped, each measured once every session
//! is connected; per session and overall calls, errors and latency for reads (GetAccount)
//! and writes (UpdateAccount), with counters sampled beside.

use super::{Target, target_of, url_of};
use crate::args::HammerRunArgs;
use crate::commands::batch::Saver;
use crate::measure::Measure;
use crate::plan;
use crate::progress::{Display, note};
use crate::usage::UsageError;
use crate::{Outcome, interrupt, output};
use spindle_counters::{CounterSource, volumes_under};
use spindle_db::counters::{MySqlCounters, PgCounters, SqliteCounters};
use spindle_db::hammer::{Live, RunPlan};
use spindle_db::mysql::MySqlSession;
use spindle_db::postgres::PgSession;
use spindle_db::sqlite::{SqliteSession, loaded_rows};
use spindle_db::{ConnectionRoom, DbUrl};
use spindle_io::live::LiveSnapshot;
use spindle_io::run::Progress;
use spindle_model::RunRecord;
use spindle_store::{GroupKind, Point};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// More sessions than this in one process is a typo.
const MAX_SESSIONS: u64 = 100_000;

pub(super) fn run(args: &HammerRunArgs) -> anyhow::Result<Outcome> {
    let url = url_of(&args.db)?;
    let sessions = sessions_of(&args.sessions)?;
    let read_pct = read_pct_of(&args.read_ratio)?;
    let duration = plan::optional_duration_of("--duration", &args.duration, Duration::from_millis(1))?
        .unwrap_or(Duration::from_secs(60));
    let warmup =
        plan::optional_duration_of("--warmup", &args.warmup, Duration::ZERO)?.unwrap_or(Duration::from_secs(10));
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
    let prepared = prepare(&url, &sessions)?;
    let quiet = args.output.quiet;
    let group = (sessions.len() > 1).then(|| (GroupKind::Sweep, format!("hammer --sessions {}", list(&sessions))));
    let mut saver = Saver::new(&args.store, group)?;
    let stop = interrupt::stop_flag();

    let mut records = Vec::new();
    let mut outcome = Outcome::Success;
    for &n in &sessions {
        let run_plan = RunPlan {
            sessions: n,
            read_pct,
            rows: prepared.rows,
            warmup,
            duration,
            think,
            rate_per_session: rate.map(|r| r / f64::from(n)),
        };
        let hammered = match hammer_once(&prepared, &run_plan, interval, quiet, stop) {
            Ok(h) => h,
            // The runs before it are measured and saved: say what failed, show them, and end
            // as a run whose operations failed, not as a command that ran nothing.
            Err(e) if !records.is_empty() => {
                eprintln!(
                    "spindle: error: sessions={n}: {}; the {} run{} before it {} saved",
                    crate::error_text(&e),
                    records.len(),
                    if records.len() == 1 { "" } else { "s" },
                    if records.len() == 1 { "is" } else { "are" }
                );
                outcome = Outcome::OperationsFailed;
                break;
            }
            Err(e) => return Err(e),
        };
        let mut record = hammered.record;
        record.labels = labels.clone();
        record.command_line = output::command_line();
        let point = (sessions.len() > 1).then(|| Point::sweep("sessions", n.to_string()));
        let id = saver.save(&record, point, 1)?;
        if !args.output.json && !args.output.csv && !quiet {
            output::write_stdout(&spindle_report::render_text(std::slice::from_ref(&record)))?;
        }
        note(quiet, &format!("saved as run {id} in {}", saver.path.display()));
        if !record.errors.is_empty() {
            outcome = Outcome::OperationsFailed;
        }
        records.push(record);
        if hammered.interrupted {
            outcome = Outcome::Interrupted;
            break;
        }
    }
    if args.output.json || args.output.csv {
        output::print_document(&saver.document(&records), &args.output)?;
    } else if !quiet && records.len() > 1 {
        let rows: Vec<(String, &RunRecord)> =
            sessions.iter().zip(&records).map(|(n, r)| (format!("sessions={n}"), r)).collect();
        output::write_stdout(&spindle_report::render_overview(&rows))?;
    }
    Ok(outcome)
}

/// A database ready to hammer: its driver, the rows loaded, and where its files are.
pub(crate) struct Prepared {
    url: DbUrl,
    target: Target,
    pub rows: u64,
    watched: Vec<PathBuf>,
    /// The volumes its log and data sit on, counted exactly and sampled as themselves.
    volumes: Vec<String>,
    /// Whether a commit waits for its log, in words (the record's spec keeps them).
    durability: String,
}

/// Checks before anything runs: the database must hold a loaded Hammer table, and a server
/// must have room for the largest session count.
pub(crate) fn prepare(url: &DbUrl, sessions: &[u32]) -> anyhow::Result<Prepared> {
    let target = target_of(url)?;
    let rows = match &target {
        Target::Sqlite(path) => loaded_rows(path)?,
        Target::Postgres(url, rt) => rt.block_on(spindle_db::postgres::loaded_rows(url))?,
        Target::MySql(url, rt) => rt.block_on(spindle_db::mysql::loaded_rows(url))?,
    };
    let mut conn = spindle_db::open(url)?;
    if let Some(room) = conn.room()? {
        check_room(url, sessions, room)?;
    }
    // The disks under the engine's files are watched, a local server's as much as a file's.
    let files = conn.files()?;
    // A server that will not tell its settings still runs; the words then say "unknown".
    let durability = spindle_db::durability::hammer_commits(url.engine, &conn.settings().unwrap_or_default());
    drop(conn);
    let watched: Vec<PathBuf> = files.log.into_iter().chain(files.data).collect();
    let paths: Vec<&Path> = watched.iter().map(PathBuf::as_path).collect();
    let volumes = volumes_under(&paths);
    Ok(Prepared { url: url.clone(), target, rows, watched, volumes, durability })
}

/// One Hammer run, measured: its record (without labels or command line), and whether it
/// was interrupted.
pub(crate) struct Hammered {
    pub record: RunRecord,
    pub interrupted: bool,
}

pub(crate) fn hammer_once(
    p: &Prepared,
    run_plan: &RunPlan,
    interval: Duration,
    quiet: bool,
    stop: &'static AtomicBool,
) -> anyhow::Result<Hammered> {
    let (url, n, warmup) = (&p.url, run_plan.sessions, run_plan.warmup);
    let sessions = if n == 1 { "1 session".to_string() } else { format!("{n} sessions") };
    note(quiet, &format!("hammering {url}: {sessions}, {}% GetAccount, {} rows", run_plan.read_pct, p.rows));
    note(quiet, &format!("commits: {}", p.durability));
    let sources: Vec<Box<dyn CounterSource>> = match &p.target {
        Target::Sqlite(path) => vec![Box::new(SqliteCounters::new(path))],
        Target::Postgres(url, _) => vec![Box::new(PgCounters::connect(url)?)],
        Target::MySql(url, _) => vec![Box::new(MySqlCounters::connect(url)?)],
    };
    let watched: Vec<&Path> = p.watched.iter().map(PathBuf::as_path).collect();
    let measure = Measure::start(&watched, p.volumes.clone(), interval, sources);
    let sampling_from = Instant::now();
    let live = Arc::new(Live::default());
    let result = with_progress(&live, quiet, warmup, || match &p.target {
        Target::Sqlite(path) => spindle_db::hammer::run(run_plan, |_| SqliteSession::connect(path), stop, &live),
        Target::Postgres(url, rt) => rt.block_on(spindle_db::hammer::run_tasks(
            run_plan,
            |_| {
                let url = url.clone();
                async move { PgSession::connect(&url).await }
            },
            stop,
            live.clone(),
        )),
        Target::MySql(url, rt) => rt.block_on(spindle_db::hammer::run_tasks(
            run_plan,
            |_| {
                let url = url.clone();
                async move { MySqlSession::connect(&url).await }
            },
            stop,
            live.clone(),
        )),
    });
    // Counters cover what the calls do: not the ramp-up, nor the warm-up after it.
    let unmeasured = result.as_ref().map_or(warmup, |o| o.time_zero.saturating_duration_since(sampling_from) + warmup);
    let measured = measure.finish(unmeasured);
    let out = result?;
    release_freed_memory();
    note(quiet, &format!("{n} sessions connected in {:.2} s (ramp-up, not measured)", out.ramp_up.as_secs_f64()));
    let calls: u64 = out.sessions.iter().map(|s| s.reads.count() + s.writes.count()).sum();
    let mut record = spindle_db::hammer::run_record(url, run_plan, &out, &p.durability);
    measured.fill(&mut record, calls);
    let behind: u64 = out.sessions.iter().map(|s| s.behind_schedule).sum();
    if behind > 0 {
        let rate = run_plan.rate_per_session.unwrap_or_default() * f64::from(n);
        record.warnings.push(format!(
            "behind schedule by {behind} calls: the sessions could not keep up with --rate {rate:.0}, and the calls still owed at the end were not made"
        ));
    }
    Ok(Hammered { record, interrupted: out.interrupted })
}

/// Runs `f` while a live line shows calls per second and mean latency once a second (only
/// when stderr is a terminal), counting from the moment every session is connected.
fn with_progress<T>(live: &Live, quiet: bool, warmup: Duration, f: impl FnOnce() -> T) -> T {
    let display = Display::new(quiet);
    let done = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            let (mut calls, mut latency, mut last) = (0u64, 0u64, Instant::now());
            while !done.load(Ordering::Relaxed) {
                // Short sleeps so the line stops as soon as the run does; one line a second.
                std::thread::sleep(Duration::from_millis(100));
                // Nothing to show while the sessions connect (the ramp-up is not measured).
                let Some(&start) = live.time_zero.get() else {
                    last = Instant::now();
                    continue;
                };
                if last.elapsed() < Duration::from_secs(1) {
                    continue;
                }
                let (c, l) = (live.calls.load(Ordering::Relaxed), live.latency_sum_ns.load(Ordering::Relaxed));
                let interval = LiveSnapshot { ios: c - calls, bytes: 0, latency_sum_ns: l - latency };
                let interval_secs = last.elapsed().as_secs_f64();
                (calls, latency, last) = (c, l, Instant::now());
                let elapsed = start.elapsed();
                display.tick(&Progress { elapsed, warming_up: elapsed < warmup, interval, interval_secs });
            }
        });
        let r = f();
        done.store(true, Ordering::Relaxed);
        r
    });
    display.finish_line();
    result
}

/// More sessions than the server has room for is refused before anything runs. One
/// connection more is spindle's own, for the database counters.
fn check_room(url: &DbUrl, sessions: &[u32], room: ConnectionRoom) -> Result<(), UsageError> {
    let for_sessions = room.free().saturating_sub(1);
    match sessions.iter().find(|&&n| u64::from(n) > for_sessions) {
        Some(n) => Err(UsageError::flag(
            "--sessions",
            n.to_string(),
            format_args!(
                "{url} allows {} connections (max_connections {} less {} reserved for superusers), {} in use and 1 for spindle's counters, so {for_sessions} for sessions; use fewer sessions or raise max_connections",
                room.max.saturating_sub(room.reserved),
                room.max,
                room.reserved,
                room.in_use,
            ),
        )),
        None => Ok(()),
    }
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

/// `--sessions 100,500,800`.
fn sessions_of(text: &Option<String>) -> Result<Vec<u32>, UsageError> {
    let Some(t) = text else { return Ok(vec![8]) };
    t.split(',')
        .map(|s| {
            s.trim()
                .parse::<u64>()
                .ok()
                .filter(|n| (1..=MAX_SESSIONS).contains(n))
                .map(|n| n as u32)
                .ok_or_else(|| UsageError::flag("--sessions", t, format_args!("each count from 1 to {MAX_SESSIONS}")))
        })
        .collect()
}

/// Hands the memory the sessions freed (their connections, buffers and tasks, on the runtime's
/// threads) back to the system before the record is built on this thread: glibc keeps a
/// thread's freed memory in that thread's arena, where this thread's allocations would not
/// reuse it, so a thousand sessions' worth would stay resident under the record's.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the system; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}
