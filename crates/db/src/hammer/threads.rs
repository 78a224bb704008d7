//! A thread per session, for blocking drivers (SQLite).

use super::state::{Next, SessionState};
use super::{Live, MAX_WAIT, RunOutcome, RunPlan, SessionResult};
use crate::DbError;
use crate::precise::{low_timer_slack, wait_until};
use crate::session::Session;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// A session thread needs little stack: a connection and two histograms live on the heap.
const SESSION_STACK: usize = 256 * 1024;

/// Where sessions meet before measuring: every session arrives once connected (or failed),
/// then time zero is set, then all go.
struct StartGate {
    ready: Barrier,
    go: Barrier,
    t0: OnceLock<Instant>,
}

impl StartGate {
    fn arrive(&self) -> Instant {
        self.ready.wait();
        self.go.wait();
        *self.t0.get().expect("t0 is set between the barriers")
    }
}

/// Runs the plan with sessions from `connect(i)`. Connection failures stop the run before
/// it measures; the first is returned.
pub fn run<S, F>(plan: &RunPlan, connect: F, stop: &AtomicBool, live: &Live) -> Result<RunOutcome, DbError>
where
    S: Session,
    F: Fn(u32) -> Result<S, DbError> + Sync,
{
    let parties = plan.sessions as usize + 1;
    let gate = StartGate { ready: Barrier::new(parties), go: Barrier::new(parties), t0: OnceLock::new() };
    let failed = AtomicBool::new(false);
    let ramp_start = Instant::now();
    let (results, ramp_up, time_zero, started_at) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..plan.sessions)
            .map(|i| {
                let (gate, failed, connect) = (&gate, &failed, &connect);
                std::thread::Builder::new().name(format!("hammer-{i}")).stack_size(SESSION_STACK).spawn_scoped(
                    scope,
                    move || {
                        let session = connect(i);
                        if session.is_err() {
                            failed.store(true, Ordering::Relaxed);
                        }
                        let t0 = gate.arrive();
                        let mut session = session?;
                        Ok(session_loop(&mut session, i, plan, t0, stop, failed, live))
                    },
                )
            })
            .collect();
        gate.ready.wait();
        // Every session is connected (or failed): time zero, then let them go.
        let ramp_up = ramp_start.elapsed();
        let time_zero = Instant::now();
        let started_at = SystemTime::now();
        let _ = gate.t0.set(time_zero);
        let _ = live.time_zero.set(time_zero);
        gate.go.wait();
        let results: Vec<Result<SessionResult, DbError>> = handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or(Err(DbError::Panic)),
                Err(e) => Err(DbError::Io("session thread".into(), e)),
            })
            .collect();
        (results, ramp_up, time_zero, started_at)
    });
    let sessions = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    let end = plan.warmup + plan.duration;
    let elapsed = time_zero.elapsed().min(end);
    Ok(RunOutcome {
        sessions,
        ramp_up,
        time_zero,
        started_at,
        measured: elapsed.saturating_sub(plan.warmup),
        interrupted: stop.load(Ordering::Relaxed),
    })
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
    low_timer_slack();
    let mut state = SessionState::new(id, plan, live);
    let now = || t0.elapsed().as_nanos() as u64;
    while !stop.load(Ordering::Relaxed) && !failed.load(Ordering::Relaxed) {
        let call = match state.next(now()) {
            Next::Stop => break,
            Next::WaitUntil(ns) => {
                wait_until((t0 + Duration::from_nanos(ns)).min(Instant::now() + MAX_WAIT));
                continue;
            }
            Next::Call(c) => c,
        };
        let outcome = if call.read {
            session.get_account(call.key.as_str())
        } else {
            session.update_account(call.key.as_str(), call.amount)
        };
        state.done(&call, now(), outcome);
    }
    state.finish(now())
}
