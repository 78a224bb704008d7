//! Database Hammer's run as a workload: the table loaded (when the workload is asked to load
//! it: an experiment on fresh instances) or found loaded, then one measured run per point, each
//! at its session count, measured once every session is connected.

use super::database::Database;
use super::hammer_load::{load_end, load_table};
use super::{Context, Measured, Sink, Workload};
use crate::RunEnd;
use crate::harness::Measure;
use crate::observer::Observer;
use spindle_counters::volumes_under;
use spindle_db::hammer::{Driver, Live, RunPlan};
use spindle_db::load::LoadMode;
use spindle_io::live::LiveSnapshot;
use spindle_io::run::Progress;
use spindle_model::RunRecord;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub struct Hammer {
    db: Database,
    /// Rows to load when preparing; `None`: the table must be loaded already.
    load: Option<u64>,
    /// One plan per point (session count); their rows are the table's once prepared.
    plans: Vec<RunPlan>,
    /// Calls a second over all sessions (`--rate`), shared among each point's sessions.
    rate: Option<f64>,
    ready: Option<Ready>,
}

/// A database ready to hammer: its driver, and where its files are.
struct Ready {
    driver: Driver,
    watched: Vec<PathBuf>,
    /// The volumes its log and data sit on, counted exactly and sampled as themselves.
    volumes: Vec<String>,
    /// Whether a commit waits for its log, in words (the record's spec keeps them).
    durability: String,
}

impl Hammer {
    /// `plans`: one per point, their `rows` filled in once the table is known.
    pub fn new(db: Database, load: Option<u64>, plans: Vec<RunPlan>, rate: Option<f64>) -> Hammer {
        Hammer { db, load, plans, rate, ready: None }
    }
}

impl Workload for Hammer {
    fn prepare(&mut self, cx: &mut Context<'_>, sink: &mut Sink<'_>) -> anyhow::Result<()> {
        let url = self.db.ready()?;
        let driver = Driver::new(&url)?;
        if let Some(rows) = self.load {
            cx.observer.note(&format!("{url}: loading {rows} rows"));
            let (record, outcome) = load_table(&driver, rows, LoadMode::New, cx)?;
            let end = load_end(&outcome);
            sink(Measured { part: Some("load".into()), ..Measured::new(record, end) })?;
            if outcome.interrupted {
                return Ok(());
            }
        }
        let rows = driver.loaded_rows()?;
        for plan in &mut self.plans {
            plan.rows = rows;
        }
        let mut conn = spindle_db::open(&url)?;
        // The disks under the engine's files are watched, a local server's as much as a file's.
        let files = conn.files()?;
        // A server that will not tell its settings still runs; the words then say "unknown".
        let durability = spindle_db::durability::hammer_commits(url.engine, &conn.settings().unwrap_or_default());
        drop(conn);
        let watched: Vec<PathBuf> = files.log.into_iter().chain(files.data).collect();
        let paths: Vec<&Path> = watched.iter().map(PathBuf::as_path).collect();
        let volumes = volumes_under(&paths);
        self.ready = Some(Ready { driver, watched, volumes, durability });
        Ok(())
    }

    fn measure(&mut self, point: usize, cx: &mut Context<'_>, sink: &mut Sink<'_>) -> anyhow::Result<RunEnd> {
        let p = self.ready.as_ref().expect("prepared before measured");
        let mut plan = self.plans[point].clone();
        plan.rate_per_session = self.rate.map(|r| r / f64::from(plan.sessions));
        plan.start = cx.start.clone();
        let (url, n, warmup) = (p.driver.url(), plan.sessions, plan.warmup);
        let sessions = if n == 1 { "1 session".to_string() } else { format!("{n} sessions") };
        cx.observer.note(&format!("hammering {url}: {sessions}, {}% GetAccount, {} rows", plan.read_pct, plan.rows));
        cx.observer.note(&format!("commits: {}", p.durability));
        let watched: Vec<&Path> = p.watched.iter().map(PathBuf::as_path).collect();
        let measure = Measure::start(&watched, p.volumes.clone(), cx.sample_interval, vec![p.driver.counters()?]);
        let sampling_from = Instant::now();
        let live = Arc::new(Live::default());
        let result = with_progress(&live, cx.observer, warmup, || p.driver.run(&plan, cx.stop, &live));
        // Counters cover what the calls do: not the ramp-up, nor the warm-up after it.
        let unmeasured =
            result.as_ref().map_or(warmup, |o| o.time_zero.saturating_duration_since(sampling_from) + warmup);
        let measured = measure.finish(unmeasured);
        super::started(cx)?;
        let out = result?;
        release_freed_memory();
        let calls: u64 = out.sessions.iter().map(|s| s.reads.count() + s.writes.count()).sum();
        let mut record = spindle_db::hammer::run_record(url, &plan, &out, &p.durability, self.db.settings());
        cx.observer.note(&connected(&sessions, n, out.ramp_up, &record));
        measured.fill(&mut record, calls);
        let behind: u64 = out.sessions.iter().map(|s| s.behind_schedule).sum();
        if behind > 0 {
            let rate = plan.rate_per_session.unwrap_or_default() * f64::from(n);
            record.warnings.push(format!(
                "behind schedule by {behind} calls: the sessions could not keep up with --rate {rate:.0}, and the calls still owed at the end were not made"
            ));
        }
        // Said as they arise: the report printed once the run is saved leaves warnings out.
        for w in &record.warnings {
            cx.observer.warn(w);
        }
        let end = if out.interrupted {
            RunEnd::Interrupted
        } else {
            RunEnd::Complete { failed_operations: !record.errors.is_empty() }
        };
        // The sessions' results are in the record now: freed, with the full histograms the
        // record was built through, before the store takes its copies of the record (its JSON
        // and SQLite's), the run's peak once the sessions' connections are lean.
        drop(out);
        release_freed_memory();
        sink(Measured::new(record, end.clone()))?;
        Ok(end)
    }

    fn finish(&mut self, _: &mut Context<'_>) -> anyhow::Result<()> {
        // The table stays: it is the user's to run again (`hammer run`), or goes with the
        // managed instance an experiment made.
        Ok(())
    }
}

/// How long the sessions took to connect, how many began a call in the measured window and
/// when the last did, and the calls still running at its end (not counted).
/// `sessions`: their count in words ("1 session", "8 sessions").
fn connected(sessions: &str, n: u32, ramp_up: Duration, record: &RunRecord) -> String {
    let mut text = format!("{sessions} connected in {:.2} s (ramp-up, not measured)", ramp_up.as_secs_f64());
    match &record.sessions_started {
        Some(s) if s.started == 0 => text.push_str("; none began a call in the measured window"),
        Some(s) => {
            let all = if s.started == n { "all".to_string() } else { format!("{} of {n}", s.started) };
            text.push_str(&format!(
                "; {all} began a call in the measured window, the last {:.2} s after every session was connected",
                s.last_started_s
            ));
        }
        None => {}
    }
    if record.in_flight_at_end > 0 {
        text.push_str(&format!("; {} calls still running at its end are not counted", record.in_flight_at_end));
    }
    text
}

/// Runs `f` while the observer is shown calls per second and mean latency once a second,
/// counting from the moment every session is connected.
fn with_progress<T>(live: &Live, observer: &dyn Observer, warmup: Duration, f: impl FnOnce() -> T) -> T {
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
                observer.tick(&Progress { elapsed, warming_up: elapsed < warmup, interval, interval_secs });
            }
        });
        let r = f();
        done.store(true, Ordering::Relaxed);
        r
    });
    observer.finish_line();
    result
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
