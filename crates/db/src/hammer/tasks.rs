//! An async task per session, for network drivers: thousands of sessions on a few threads.
//! Must be called inside a multi-threaded tokio runtime.

use super::state::{Next, SessionState};
use super::window::{Watch, Zero};
use super::{Live, MAX_WAIT, RunOutcome, RunPlan, SessionResult};
use crate::DbError;
use crate::join::join_all;
use crate::precise::Timer;
use crate::session::AsyncSession;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
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
    let gate = Arc::new(StartGate {
        ready: Barrier::new(plan.sessions as usize + 1),
        go: Barrier::new(plan.sessions as usize + 1),
        t0: OnceLock::new(),
    });
    let timer = Arc::new(Timer::start());
    let failed = Arc::new(AtomicBool::new(false));
    let ramp_start = Instant::now();
    let mut handles = Vec::with_capacity(plan.sessions as usize);
    for i in 0..plan.sessions {
        // Boxed, so the handshake's state (kilobytes a session) is freed once connected instead
        // of sizing the task that lives for the whole run.
        let connecting = Box::pin(connect(i));
        let (gate, timer, failed, live, plan) =
            (gate.clone(), timer.clone(), failed.clone(), live.clone(), plan.clone());
        handles.push(tokio::spawn(async move {
            let session = connecting.await;
            if session.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            let t0 = gate.arrive().await;
            let mut session = session?;
            let clock = Clock { t0, timer: &timer };
            Ok::<_, DbError>(session_loop(&mut session, i, &plan, clock, stop, &failed, &live).await)
        }));
    }
    gate.ready.wait().await;
    // Every session is connected (or failed): time zero, then let them go.
    let ramp_up = ramp_start.elapsed();
    if let Some(at) = plan.start.clone() {
        // An agent's share: every session is connected; the start is the run's (once every
        // agent is ready), waited for off the runtime's threads.
        tokio::task::spawn_blocking(move || at.wait()).await.map_err(|_| DbError::Panic)?;
    }
    let time_zero = Instant::now();
    let zero = Zero::now(time_zero, ramp_up, &live);
    let _ = gate.t0.set(time_zero);
    gate.go.wait().await;
    let finished = || handles.iter().all(|h| h.is_finished());
    let watch = Watch::until_end(time_zero, plan.warmup + plan.duration, stop, &finished).await;
    let sessions = join_all(handles).await?;
    Ok(watch.close(plan, sessions, zero))
}

/// Where sessions meet before measuring: every session arrives once connected (or failed),
/// then time zero is set, then all go.
struct StartGate {
    ready: Barrier,
    go: Barrier,
    t0: OnceLock<Instant>,
}

impl StartGate {
    async fn arrive(&self) -> Instant {
        self.ready.wait().await;
        self.go.wait().await;
        *self.t0.get().expect("t0 is set between the barriers")
    }
}

/// How far before its instant a wait leaves tokio's timer (1 ms steps, cheap, for the long
/// part) for the run's precise timer (for the rest).
const COARSE_MARGIN: Duration = Duration::from_millis(2);

/// A session's time: since time zero, and waits that end on time.
struct Clock<'a> {
    t0: Instant,
    timer: &'a Timer,
}

impl Clock<'_> {
    fn now(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    /// Waits until `ns` since time zero, or part of the way there: the caller asks again.
    async fn wait_until(&self, ns: u64) {
        let at = self.t0 + Duration::from_nanos(ns);
        let now = Instant::now();
        match at.checked_sub(COARSE_MARGIN).filter(|coarse| *coarse > now) {
            Some(coarse) => tokio::time::sleep_until(coarse.min(now + MAX_WAIT).into()).await,
            None => self.timer.sleep_until(at).await,
        }
    }
}

async fn session_loop<S: AsyncSession>(
    session: &mut S,
    id: u32,
    plan: &RunPlan,
    clock: Clock<'_>,
    stop: &AtomicBool,
    failed: &AtomicBool,
    live: &Live,
) -> SessionResult {
    let mut state = SessionState::new(id, plan, live);
    // As the thread loop: the time is read before the flags are looked at.
    let mut t = clock.now();
    loop {
        let stopped = stop.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed);
        let call = match state.next(t, stopped) {
            Next::Stop => break,
            Next::WaitUntil(ns) => {
                clock.wait_until(ns).await;
                t = clock.now();
                continue;
            }
            Next::Call(c) => c,
        };
        // Each call's future is boxed: a driver's call keeps a kilobyte of state, which inline
        // would size every session's task for the whole run; one allocation a network call
        // costs nothing beside its round trip.
        let outcome = if call.read {
            Box::pin(session.get_account(call.key.as_str())).await
        } else {
            Box::pin(session.update_account(call.key.as_str(), call.amount)).await
        };
        t = clock.now();
        state.ended(call, t, outcome);
    }
    state.finish()
}
