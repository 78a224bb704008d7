//! An async task per session, for network drivers: thousands of sessions on a few threads.
//! Must be called inside a multi-threaded tokio runtime.

use super::state::{Next, SessionState};
use super::{Live, RunOutcome, RunPlan, SessionResult};
use crate::DbError;
use crate::join::join_all;
use crate::session::AsyncSession;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::Barrier;

/// Runs the plan with sessions from `connect(i)`, every session a task. Connection failures
/// stop the run before it measures; the first is returned.
pub async fn run_tasks<S, F, Fut>(
    plan: &RunPlan,
    connect: F,
    stop: &'static AtomicBool,
    live: Arc<Live>,
) -> Result<RunOutcome, DbError>
where
    S: AsyncSession + 'static,
    F: Fn(u32) -> Fut,
    Fut: Future<Output = Result<S, DbError>> + Send + 'static,
{
    let gate = Arc::new(Barrier::new(plan.sessions as usize + 1));
    let t0: Arc<OnceLock<Instant>> = Arc::new(OnceLock::new());
    let failed = Arc::new(AtomicBool::new(false));
    let ramp_start = Instant::now();
    let mut handles = Vec::with_capacity(plan.sessions as usize);
    for i in 0..plan.sessions {
        let connecting = connect(i);
        let (gate, t0, failed, live, plan) = (gate.clone(), t0.clone(), failed.clone(), live.clone(), plan.clone());
        handles.push(tokio::spawn(async move {
            let session = connecting.await;
            if session.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            gate.wait().await;
            let mut session = session?;
            let start = *t0.get().expect("t0 is set before the gate opens");
            Ok::<_, DbError>(session_loop(&mut session, i, &plan, start, stop, &failed, &live).await)
        }));
    }
    let _ = t0.set(Instant::now());
    gate.wait().await;
    let ramp_up = ramp_start.elapsed();
    let started_at = SystemTime::now();
    let sessions = join_all(handles).await?;
    let end = plan.warmup + plan.duration;
    let elapsed = t0.get().map_or(Duration::ZERO, |t| t.elapsed()).min(end);
    Ok(RunOutcome {
        sessions,
        ramp_up,
        started_at,
        measured: elapsed.saturating_sub(plan.warmup),
        interrupted: stop.load(Ordering::Relaxed),
    })
}

async fn session_loop<S: AsyncSession>(
    session: &mut S,
    id: u32,
    plan: &RunPlan,
    t0: Instant,
    stop: &AtomicBool,
    failed: &AtomicBool,
    live: &Live,
) -> SessionResult {
    let mut state = SessionState::new(id, plan, live);
    let now = || t0.elapsed().as_nanos() as u64;
    while !stop.load(Ordering::Relaxed) && !failed.load(Ordering::Relaxed) {
        let call = match state.next(now()) {
            Next::Stop => break,
            Next::Wait(d) => {
                tokio::time::sleep(d).await;
                continue;
            }
            Next::Call(c) => c,
        };
        let outcome = if call.read {
            session.get_account(call.key.as_str()).await
        } else {
            session.update_account(call.key.as_str(), call.amount).await
        };
        state.done(&call, now(), outcome);
        if !state.think().is_zero() {
            tokio::time::sleep(state.think()).await;
        }
    }
    state.finish()
}
