//! One session's schedule and bookkeeping, shared by the thread and task loops: what to call
//! next (or until when to wait, under a rate or a think time), what a finished call adds to
//! the session's result, and the calls a rate still owed when the session stopped.

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
            result: SessionResult { session: id, seconds, ..SessionResult::default() },
            rng,
            warmup_ns: plan.warmup.as_nanos() as u64,
            end_ns: (plan.warmup + plan.duration).as_nanos() as u64,
            think_ns: plan.think.as_nanos() as u64,
            interval_ns,
            next_ns,
            thought_ns: 0,
        }
    }

    /// What to do at `now_ns` (since time zero).
    pub fn next(&mut self, now_ns: u64) -> Next {
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
        let read = self.rng.below(100) < u64::from(self.plan.read_pct);
        let key = CardNo::of_row(self.rng.below(self.plan.rows.max(1)));
        // Hammer's UpdateAccount charges an amount; keep it small and varied.
        let amount = self.rng.below(10_000) as i64 + 1;
        Next::Call(Call { read, key, amount, start_ns })
    }

    /// Records a finished call (calls that started in the warm-up are not measured); the
    /// think time runs from here.
    pub fn done(&mut self, call: &Call, done_ns: u64, outcome: Result<(), CallError>) {
        self.thought_ns = done_ns + self.think_ns;
        if call.start_ns < self.warmup_ns {
            return;
        }
        let e = match outcome {
            Ok(()) => {
                let latency = done_ns.saturating_sub(call.start_ns);
                let r = &mut self.result;
                if call.read { &mut r.reads } else { &mut r.writes }.record(latency);
                let second = (done_ns.saturating_sub(self.warmup_ns) / 1_000_000_000) as usize;
                if r.seconds.len() <= second {
                    r.seconds.resize(second + 1, Second::default());
                }
                let s = &mut r.seconds[second];
                if call.read {
                    s.reads += 1;
                } else {
                    s.writes += 1;
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

    /// The session's result, once it stopped at `stop_ns`: with the calls a rate owed in the
    /// measured window up to then that never started (the session fell behind schedule).
    pub fn finish(mut self, stop_ns: u64) -> SessionResult {
        if let Some(i) = self.interval_ns.filter(|i| *i > 0) {
            let upto = stop_ns.min(self.end_ns);
            self.result.behind_schedule = starts_between(self.next_ns, i, self.warmup_ns, upto);
        }
        self.result
    }
}
