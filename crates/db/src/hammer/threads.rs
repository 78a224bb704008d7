//! A thread per session, for blocking drivers (SQLite).

use super::state::{Next, SessionState};
use super::window::{Watch, Zero};
use super::{Live, MAX_WAIT, RunOutcome, RunPlan, SessionResult};
use crate::DbError;
use crate::session::Session;
use spindle_clock::{Pacer, StartGate};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A session thread needs little stack: a connection and two histograms live on the heap.
const SESSION_STACK: usize = 256 * 1024;

/// Runs the plan with sessions from `connect(i)`. Connection failures stop the run before
/// it measures; the first is returned.
pub fn run<S, F>(plan: &RunPlan, connect: F, stop: &AtomicBool, live: &Live) -> Result<RunOutcome, DbError>
where
    S: Session,
    F: Fn(u32) -> Result<S, DbError> + Sync,
{
    run_spawning(plan, connect, stop, live, &|_| Ok(()))
}

/// `run`, asking `may_spawn(i)` before starting session `i`'s thread: the seam through which
/// tests make a thread fail to start, as the system's thread limit would.
pub(super) fn run_spawning<S, F>(
    plan: &RunPlan,
    connect: F,
    stop: &AtomicBool,
    live: &Live,
    may_spawn: &dyn Fn(u32) -> std::io::Result<()>,
) -> Result<RunOutcome, DbError>
where
    S: Session,
    F: Fn(u32) -> Result<S, DbError> + Sync,
{
    let gate = StartGate::new(plan.sessions as usize);
    let failed = AtomicBool::new(false);
    let ramp_start = Instant::now();
    let (results, zero, watch) = std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(plan.sessions as usize);
        let mut not_started = None;
        for i in 0..plan.sessions {
            let (gate, failed, connect) = (&gate, &failed, &connect);
            let spawned = may_spawn(i).and_then(|()| {
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
            });
            match spawned {
                Ok(h) => handles.push(h),
                Err(cause) => {
                    // The sessions started stop as soon as they pass the gate, which no longer
                    // waits for the threads that never came.
                    failed.store(true, Ordering::Relaxed);
                    gate.withdraw((plan.sessions - i) as usize);
                    not_started = Some(DbError::SessionThread { started: i, sessions: plan.sessions, cause });
                    break;
                }
            }
        }
        // Every session is connected (or failed): time zero, then all go.
        let time_zero = gate.open_at(plan.start.as_deref());
        let zero = Zero::now(time_zero, time_zero.duration_since(ramp_start), live);
        let finished = || handles.iter().all(|h| h.is_finished());
        let watch = Watch::blocking(time_zero, plan.warmup + plan.duration, stop, &finished);
        let mut results: Vec<Result<SessionResult, DbError>> =
            handles.into_iter().map(|h| h.join().unwrap_or(Err(DbError::Panic))).collect();
        // The thread that could not start is the cause: said before what the others met.
        if let Some(e) = not_started {
            results.insert(0, Err(e));
        }
        (results, zero, watch)
    });
    let sessions = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(watch.close(plan, sessions, zero))
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
    let mut pacer = Pacer::for_this_thread(t0);
    let now = || t0.elapsed().as_nanos() as u64;
    let mut state = SessionState::new(id, plan, live);
    // The time is read before the flags are looked at, so flags found down mean the window
    // was still open then.
    let mut t = now();
    loop {
        let stopped = stop.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed);
        let call = match state.next(t, stopped) {
            Next::Stop => break,
            Next::WaitUntil(ns) => {
                pacer.wait_until(ns.min(t + MAX_WAIT.as_nanos() as u64), stop);
                t = now();
                continue;
            }
            Next::Call(c) => c,
        };
        let outcome = if call.read {
            session.get_account(call.key.as_str())
        } else {
            session.update_account(call.key.as_str(), call.amount)
        };
        t = now();
        state.ended(call, t, outcome);
    }
    state.finish()
}
