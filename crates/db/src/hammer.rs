//! Running Database Hammer: N sessions, each a thread with its own connection, calling
//! GetAccount or UpdateAccount at random (by the read ratio) on uniformly chosen rows, with
//! optional think time or a rate. Measurement starts when every session is connected (the
//! ramp-up is timed and excluded), then a warm-up is excluded too. Each session keeps its own
//! histograms and per-second counts; nothing is shared in the loop but the stop flag.

use crate::DbError;
use crate::keys::card_no;
use crate::session::Session;
use spindle_model::Histogram;
use spindle_model::rng::Rng;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// A session thread needs little stack: a connection and two histograms live on the heap.
const SESSION_STACK: usize = 256 * 1024;

#[derive(Clone, Debug)]
pub struct RunPlan {
    pub sessions: u32,
    /// Percent of calls that are GetAccount.
    pub read_pct: u8,
    /// Rows loaded: keys are drawn from all of them.
    pub rows: u64,
    pub warmup: Duration,
    pub duration: Duration,
    /// Pause after each call (Hammer's `interval`).
    pub think: Duration,
    /// Calls per second per session; latency then counts from each call's intended start.
    pub rate_per_session: Option<f64>,
}

/// Calls of one second of the measurement.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Second {
    pub reads: u64,
    pub writes: u64,
    pub latency_sum_ns: u64,
    pub latency_max_ns: u64,
}

#[derive(Debug, Default)]
pub struct SessionResult {
    pub session: u32,
    pub reads: Histogram,
    pub writes: Histogram,
    pub seconds: Vec<Second>,
    pub errors: BTreeMap<String, u64>,
}

#[derive(Debug)]
pub struct RunOutcome {
    pub sessions: Vec<SessionResult>,
    /// From starting the first connection to the last one connected.
    pub ramp_up: Duration,
    pub started_at: SystemTime,
    /// Seconds measured (after ramp-up and warm-up; shorter when interrupted).
    pub measured: Duration,
    pub interrupted: bool,
}

/// Live totals for a progress line: calls completed so far (all sessions).
#[derive(Default)]
pub struct Live {
    pub calls: AtomicU64,
    pub latency_sum_ns: AtomicU64,
}

/// Runs the plan with sessions from `connect(i)`. Connection failures stop the run before
/// it measures; the first is returned.
pub fn run<S, F>(plan: &RunPlan, connect: F, stop: &AtomicBool, live: &Live) -> Result<RunOutcome, DbError>
where
    S: Session,
    F: Fn(u32) -> Result<S, DbError> + Sync,
{
    let n = plan.sessions as usize;
    let gate = Barrier::new(n + 1);
    let t0: OnceLock<Instant> = OnceLock::new();
    let failed = AtomicBool::new(false);
    let ramp_start = Instant::now();
    let (results, ramp_up, started_at, first_error) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..plan.sessions)
            .map(|i| {
                let (gate, t0, failed, connect) = (&gate, &t0, &failed, &connect);
                std::thread::Builder::new().name(format!("hammer-{i}")).stack_size(SESSION_STACK).spawn_scoped(
                    scope,
                    move || {
                        let session = connect(i);
                        if session.is_err() {
                            failed.store(true, Ordering::Relaxed);
                        }
                        gate.wait();
                        let mut session = session?;
                        let start = *t0.get().expect("t0 is set before the gate opens");
                        Ok(session_loop(&mut session, i, plan, start, stop, failed, live))
                    },
                )
            })
            .collect();
        gate.wait_before_release(&t0);
        let ramp_up = ramp_start.elapsed();
        let started_at = SystemTime::now();
        let mut results = Vec::new();
        let mut first_error = None;
        for h in handles {
            match h.map_err(|e| DbError::Io("thread".into(), e)).and_then(|h| h.join().map_err(|_| DbError::Panic)) {
                Ok(Ok(r)) => results.push(r),
                Ok(Err(e)) | Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        (results, ramp_up, started_at, first_error)
    });
    if let Some(e) = first_error {
        return Err(e);
    }
    let end = plan.warmup + plan.duration;
    let elapsed = t0.get().map_or(Duration::ZERO, |t| t.elapsed()).min(end);
    Ok(RunOutcome {
        sessions: results,
        ramp_up,
        started_at,
        measured: elapsed.saturating_sub(plan.warmup),
        interrupted: stop.load(Ordering::Relaxed),
    })
}

trait GateExt {
    /// Sets the measurement's time zero, then lets every session go.
    fn wait_before_release(&self, t0: &OnceLock<Instant>);
}

impl GateExt for Barrier {
    fn wait_before_release(&self, t0: &OnceLock<Instant>) {
        let _ = t0.set(Instant::now());
        self.wait();
    }
}

fn session_loop<S: Session>(
    session: &mut S,
    id: u32,
    plan: &RunPlan,
    t0: Instant,
    stop: &AtomicBool,
    failed: &AtomicBool,
    live: &Live,
) -> SessionResult {
    let mut result = SessionResult { session: id, ..SessionResult::default() };
    let mut rng = Rng::new(0x4841_4d4d_4552 ^ (u64::from(id) << 32));
    let warmup_ns = plan.warmup.as_nanos() as u64;
    let end_ns = (plan.warmup + plan.duration).as_nanos() as u64;
    let interval_ns = plan.rate_per_session.filter(|r| *r > 0.0).map(|r| (1e9 / r) as u64);
    // Sessions start their schedules spread over one interval, not all at once.
    let mut next_ns = interval_ns.map_or(0, |i| rng.below(i.max(1)));
    loop {
        let now = t0.elapsed().as_nanos() as u64;
        if now >= end_ns || stop.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed) {
            break;
        }
        let start = match interval_ns {
            Some(i) => {
                if next_ns > now {
                    std::thread::sleep(Duration::from_nanos((next_ns - now).min(end_ns - now)));
                    if t0.elapsed().as_nanos() as u64 >= end_ns {
                        break;
                    }
                }
                let s = next_ns;
                next_ns += i;
                s
            }
            None => now,
        };
        let read = rng.below(100) < u64::from(plan.read_pct);
        let key = card_no(rng.below(plan.rows.max(1)));
        let outcome = if read {
            session.get_account(&key)
        } else {
            // Hammer's UpdateAccount charges an amount; keep it small and varied.
            session.update_account(&key, rng.below(10_000) as i64 + 1)
        };
        let done = t0.elapsed().as_nanos() as u64;
        if start >= warmup_ns {
            match outcome {
                Ok(()) => {
                    let latency = done.saturating_sub(start);
                    if read { &mut result.reads } else { &mut result.writes }.record(latency);
                    let second = ((done - warmup_ns) / 1_000_000_000) as usize;
                    if result.seconds.len() <= second {
                        result.seconds.resize(second + 1, Second::default());
                    }
                    let s = &mut result.seconds[second];
                    if read {
                        s.reads += 1;
                    } else {
                        s.writes += 1;
                    }
                    s.latency_sum_ns += latency;
                    s.latency_max_ns = s.latency_max_ns.max(latency);
                    live.calls.fetch_add(1, Ordering::Relaxed);
                    live.latency_sum_ns.fetch_add(latency, Ordering::Relaxed);
                }
                Err(e) => *result.errors.entry(e.kind).or_default() += 1,
            }
        }
        if !plan.think.is_zero() {
            std::thread::sleep(plan.think);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::{LoadMode, LoadOptions, SqliteSession, load};
    use std::path::{Path, PathBuf};

    /// A real SQLite Hammer database of 1000 rows.
    fn loaded() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let opts = LoadOptions { rows: 1000, mode: LoadMode::New };
        load(&path, &opts, &mut |_, _| {}, &AtomicBool::new(false)).unwrap();
        (dir, path)
    }

    fn plan(sessions: u32, read_pct: u8) -> RunPlan {
        RunPlan {
            sessions,
            read_pct,
            rows: 1000,
            warmup: Duration::from_millis(50),
            duration: Duration::from_millis(300),
            think: Duration::ZERO,
            rate_per_session: None,
        }
    }

    #[test]
    fn every_session_runs_and_the_ratio_holds() {
        let (_dir, path) = loaded();
        let stop = AtomicBool::new(false);
        let out = run(&plan(4, 70), |_| SqliteSession::connect(&path), &stop, &Live::default()).unwrap();
        assert_eq!(out.sessions.len(), 4);
        let reads: u64 = out.sessions.iter().map(|s| s.reads.count()).sum();
        let writes: u64 = out.sessions.iter().map(|s| s.writes.count()).sum();
        let share = reads as f64 / (reads + writes) as f64;
        assert!((share - 0.7).abs() < 0.05, "{share} of {} calls", reads + writes);
        assert!(
            out.sessions.iter().all(|s| s.reads.count() > 0 && s.errors.is_empty()),
            "{:?}",
            out.sessions[0].errors
        );
        assert!(!out.interrupted && out.measured <= Duration::from_millis(300));
        let sum: i64 = rusqlite::Connection::open(&path)
            .unwrap()
            .query_row("SELECT sum(Amount) FROM TestTransaction", [], |r| r.get(0))
            .unwrap();
        assert!(sum > 0, "updates landed");
    }

    #[test]
    fn a_rate_is_held_and_think_time_slows_sessions() {
        let (_dir, path) = loaded();
        let stop = AtomicBool::new(false);
        let capped = RunPlan { rate_per_session: Some(100.0), duration: Duration::from_millis(500), ..plan(2, 50) };
        let out = run(&capped, |_| SqliteSession::connect(&path), &stop, &Live::default()).unwrap();
        let calls: u64 = out.sessions.iter().map(|s| s.reads.count() + s.writes.count()).sum();
        assert!((90..=110).contains(&calls), "2 sessions x 100/s x 0.5 s: {calls}");
        let thinking = RunPlan { think: Duration::from_millis(10), ..plan(1, 50) };
        let out = run(&thinking, |_| SqliteSession::connect(&path), &stop, &Live::default()).unwrap();
        let calls = out.sessions[0].reads.count() + out.sessions[0].writes.count();
        assert!(calls <= 31, "at most one call per 10 ms: {calls}");
    }

    #[test]
    fn a_failed_connection_stops_the_run_before_it_measures() {
        let (_dir, path) = loaded();
        let stop = AtomicBool::new(false);
        let connect = |i| {
            if i == 2 { SqliteSession::connect(Path::new("/nonexistent/h.db")) } else { SqliteSession::connect(&path) }
        };
        assert!(run(&plan(4, 50), connect, &stop, &Live::default()).is_err());
    }
}
