//! One session's schedule and bookkeeping, shared by the thread and task loops: what to call
//! next (or until when to wait, under a rate or a think time), what a finished call adds to
//! the session's result, and the calls a rate still owed when the session stopped.
//!
//! The measured window is [warm-up's end, warm-up + duration], cut short where a stop (Ctrl-C,
//! a failed session) came first. A call belongs to the window its end falls in, as a counter
//! read at the window's edges counts it (HammerDB's snapshots of the server's transaction
//! count; the kernel's disk statistics): a call still running at the window's end is not in it,
//! however it ends, and one that began in the warm-up and ended inside the window is. fio and
//! pgbench differ: each lets the operations in flight at its end finish, counts them, and
//! stretches its elapsed time over them; with calls that queue for seconds, that made a 1 s
//! window count calls that ended half a minute later.

use super::{Live, RunPlan, Second, SessionResult};
use crate::keys::CardNo;
use crate::session::CallError;
use spindle_clock::starts_between;
use spindle_model::rng::Rng;
use std::sync::atomic::Ordering;

/// The next call of a session.
pub(super) struct Call {
    pub read: bool,
    pub key: CardNo,
    pub amount: i64,
    /// When it counts from: now, or its intended start under a rate.
    pub start_ns: u64,
}

pub(super) enum Next {
    Stop,
    /// Too early (under a rate, or thinking): wait until this time, then ask again.
    WaitUntil(u64),
    Call(Call),
}

pub(super) struct SessionState<'a> {
    plan: &'a RunPlan,
    live: &'a Live,
    result: SessionResult,
    rng: Rng,
    warmup_ns: u64,
    end_ns: u64,
    think_ns: u64,
    interval_ns: Option<u64>,
    /// The next intended start under a rate.
    next_ns: u64,
    /// The end of the think time after the last call.
    thought_ns: u64,
    /// The latest moment this session knew no stop had come: its window is open until here.
    open_ns: u64,
    /// The call that ended last, when (since time zero) and how: recorded at the next look at
    /// the stop flags, which says whether a stop had come by its end.
    ended: Option<(Call, u64, Result<(), CallError>)>,
}

impl<'a> SessionState<'a> {
    pub fn new(id: u32, plan: &'a RunPlan, live: &'a Live) -> SessionState<'a> {
        let mut rng = Rng::new(0x4841_4d4d_4552 ^ (u64::from(id) << 32));
        let interval_ns = plan.rate_per_session.filter(|r| *r > 0.0).map(|r| (1e9 / r) as u64);
        // Sessions start their schedules spread over one interval, not all at once.
        let next_ns = interval_ns.map_or(0, |i| rng.below(i.max(1)));
        // The per-second counts take their length at once (up to ten minutes' worth): grown a
        // second at a time, a thousand sessions' reallocations would leave their old buffers
        // scattered through the heap.
        let seconds = Vec::with_capacity((plan.duration.as_secs() as usize + 1).min(600));
        SessionState {
            plan,
            live,
            result: SessionResult { session: id, seconds, first_due_ns: next_ns, ..SessionResult::default() },
            rng,
            warmup_ns: plan.warmup.as_nanos() as u64,
            end_ns: (plan.warmup + plan.duration).as_nanos() as u64,
            think_ns: plan.think.as_nanos() as u64,
            interval_ns,
            next_ns,
            thought_ns: 0,
            open_ns: 0,
            ended: None,
        }
    }

    /// What to do at `now_ns` (since time zero), a time read before the loop looked at the
    /// stop flags; `stopped`: what they said. Found down, the window was open at `now_ns`, and
    /// the call that ended then (`ended`) is recorded as inside it.
    pub fn next(&mut self, now_ns: u64, stopped: bool) -> Next {
        if let Some((call, done_ns, outcome)) = self.ended.take() {
            self.done(&call, done_ns, outcome, stopped);
        }
        if stopped {
            return Next::Stop;
        }
        self.open_ns = self.open_ns.max(now_ns);
        if now_ns >= self.end_ns {
            return Next::Stop;
        }
        let ready_ns = match self.interval_ns {
            Some(_) => self.next_ns.max(self.thought_ns),
            None => self.thought_ns,
        };
        if ready_ns > now_ns {
            return Next::WaitUntil(ready_ns.min(self.end_ns));
        }
        let start_ns = match self.interval_ns {
            Some(i) => {
                let s = self.next_ns;
                self.next_ns += i;
                s
            }
            None => now_ns,
        };
        self.result.first_call_ns.get_or_insert(now_ns);
        let read = self.rng.below(100) < u64::from(self.plan.read_pct);
        let key = CardNo::of_row(self.rng.below(self.plan.rows.max(1)));
        // Hammer's UpdateAccount charges an amount; keep it small and varied.
        let amount = self.rng.below(10_000) as i64 + 1;
        Next::Call(Call { read, key, amount, start_ns })
    }

    /// A call ended at `done_ns` (since time zero), the time the loop reads next; recorded at
    /// the next look at the stop flags (`next`).
    pub fn ended(&mut self, call: Call, done_ns: u64, outcome: Result<(), CallError>) {
        self.ended = Some((call, done_ns, outcome));
    }

    /// Records a call that ended at `done_ns`; `stopped`: a stop was found right after
    /// `done_ns` was read, so the call may have ended after it. A call that ended in the
    /// warm-up is not measured, nor one that ended after the window (or may have): that one
    /// is said to have been in flight at the window's end. The think time runs from here.
    fn done(&mut self, call: &Call, done_ns: u64, outcome: Result<(), CallError>, stopped: bool) {
        self.thought_ns = done_ns + self.think_ns;
        if stopped || done_ns > self.end_ns {
            self.result.in_flight_at_end = Some(call.start_ns);
            return;
        }
        self.open_ns = self.open_ns.max(done_ns);
        if done_ns < self.warmup_ns {
            return;
        }
        let e = match outcome {
            Ok(()) => {
                let latency = done_ns.saturating_sub(call.start_ns);
                let r = &mut self.result;
                if call.read { &mut r.reads } else { &mut r.writes }.record(latency);
                let second = ((done_ns - self.warmup_ns) / 1_000_000_000) as usize;
                if r.seconds.len() <= second {
                    r.seconds.resize(second + 1, Second::default());
                }
                let s = &mut r.seconds[second];
                if call.read {
                    s.read_ios += 1;
                } else {
                    s.write_ios += 1;
                }
                s.latency_sum_ns += latency;
                s.latency_max_ns = s.latency_max_ns.max(latency);
                self.live.calls.fetch_add(1, Ordering::Relaxed);
                self.live.latency_sum_ns.fetch_add(latency, Ordering::Relaxed);
                return;
            }
            Err(e) => e,
        };
        *self.result.errors.entry(e.kind).or_default() += 1;
    }

    /// The session's result, once it stopped: where its window closed (the end, or the last
    /// moment it knew no stop had come), and the calls a rate owed in the window up to then
    /// that never started (the session fell behind schedule).
    pub fn finish(mut self) -> SessionResult {
        let window_end = self.open_ns.min(self.end_ns);
        self.result.window_end_ns = window_end;
        if let Some(i) = self.interval_ns.filter(|i| *i > 0) {
            self.result.behind_schedule = starts_between(self.next_ns, i, self.warmup_ns, window_end);
        }
        self.result
    }
}
