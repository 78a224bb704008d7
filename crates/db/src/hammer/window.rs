//! Where a run's measured window closed: at its end, or at the last moment before a stop that
//! anyone saw (a session between calls, or the coordinator looking while every session is
//! busy). Each knows the window was open at a time it read before finding no stop; the latest
//! of those, capped at the end, is the window's end, and every call counted ended by it.

use super::{Live, MAX_WAIT, RunOutcome, RunPlan, SessionResult};
use spindle_model::record::SessionStarts;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

/// The window as the coordinator saw it: how long after time zero it was known open.
pub(super) struct Watch {
    open: Duration,
}

impl Watch {
    /// Looks at `stop` until the window's `end` (after time zero `t0`), a stop, or `finished()`
    /// (every session ended, which before the end only a failure does), sleeping at most
    /// `MAX_WAIT` between looks.
    pub fn blocking(t0: Instant, end: Duration, stop: &AtomicBool, finished: &dyn Fn() -> bool) -> Watch {
        let mut watch = Watch { open: Duration::ZERO };
        while let Some(wait) = watch.look(t0, end, stop, finished) {
            std::thread::sleep(wait);
        }
        watch
    }

    /// As `blocking`, for the task runtime.
    #[cfg(feature = "net")]
    pub async fn until_end(t0: Instant, end: Duration, stop: &AtomicBool, finished: &dyn Fn() -> bool) -> Watch {
        let mut watch = Watch { open: Duration::ZERO };
        while let Some(wait) = watch.look(t0, end, stop, finished) {
            tokio::time::sleep(wait).await;
        }
        watch
    }

    /// One look: how long to sleep before the next, or `None` once the window is closed.
    fn look(&mut self, t0: Instant, end: Duration, stop: &AtomicBool, finished: &dyn Fn() -> bool) -> Option<Duration> {
        // The time is read before the flag: a flag found down means no stop had come by then.
        let now = t0.elapsed();
        if stop.load(Ordering::Relaxed) || finished() {
            return None;
        }
        self.open = now.min(end);
        (now < end).then(|| (end - now).min(MAX_WAIT))
    }

    /// The run's outcome, its window closed: measured from the warm-up's end to the latest
    /// moment the coordinator or any session knew no stop had come, capped at the end, and
    /// interrupted if a stop cut it short.
    pub fn close(self, plan: &RunPlan, sessions: Vec<SessionResult>, zero: Zero) -> RunOutcome {
        let end = plan.warmup + plan.duration;
        let sessions_open = sessions.iter().map(|s| Duration::from_nanos(s.window_end_ns)).max().unwrap_or_default();
        let closed = self.open.max(sessions_open).min(end);
        let Zero { time_zero, started_at, ramp_up } = zero;
        RunOutcome {
            sessions,
            ramp_up,
            time_zero,
            started_at,
            measured: closed.saturating_sub(plan.warmup),
            interrupted: closed < end,
        }
    }
}

/// Time zero as the run keeps it: the instant, the wall-clock time then, and the ramp-up
/// before it.
pub(super) struct Zero {
    time_zero: Instant,
    started_at: SystemTime,
    ramp_up: Duration,
}

impl Zero {
    /// Time zero is `time_zero`, now: a progress line counts from it too.
    pub fn now(time_zero: Instant, ramp_up: Duration, live: &Live) -> Zero {
        let started_at = SystemTime::now();
        let _ = live.time_zero.set(time_zero);
        Zero { time_zero, started_at, ramp_up }
    }
}

/// The sessions by whether each began a call before the window's end (`end_ns` after time
/// zero): begun, due but not begun (the host did not get to them), or not yet due (a rate's
/// first start after it).
pub(super) fn starts(sessions: &[SessionResult], end_ns: u64) -> SessionStarts {
    let mut starts = SessionStarts::default();
    for s in sessions {
        match s.first_call_ns {
            Some(ns) => {
                starts.started += 1;
                starts.last_started_s = starts.last_started_s.max(ns as f64 / 1e9);
            }
            None if s.first_due_ns < end_ns => starts.not_started += 1,
            None => starts.not_due += 1,
        }
    }
    starts
}

/// What the window leaves out, in words for the record: sessions that began no call in it,
/// and calls still running at its end when they had run longer than any call counted
/// (`slowest_ns`), so the slowest calls are missing from the latencies. `end_ns`: the window's
/// end after time zero.
pub(super) fn left_out(plan: &RunPlan, sessions: &[SessionResult], end_ns: u64, slowest_ns: u64) -> Vec<String> {
    let starts = starts(sessions, end_ns);
    let n = sessions.len();
    let mut words = Vec::new();
    if starts.not_started > 0 {
        words.push(format!(
            "{} of {n} sessions began no call before the measured window's end though one was due: the host did not get to them in time, so the figures are those of {} (the last began {:.2} s after every session was connected); a longer --warmup lets every session start before the window opens",
            starts.not_started,
            sessions_word(starts.started),
            starts.last_started_s
        ));
    }
    if let (true, Some(rate)) = (starts.not_due > 0, plan.rate_per_session) {
        words.push(format!(
            "{} of {n} sessions had no call due in the measured window: at {rate:.3} calls/s a session, its first call may come up to {:.2} s after the start, later than the window's end; the figures are those of {}",
            starts.not_due,
            1.0 / rate,
            sessions_word(starts.started)
        ));
    }
    let running: Vec<u64> = sessions.iter().filter_map(|s| s.in_flight_at_end).collect();
    if let Some(oldest) = running.iter().min().map(|start| end_ns.saturating_sub(*start)) {
        if oldest > slowest_ns {
            words.push(format!(
                "{} calls still running at the measured window's end are not counted, the oldest running {:.3} s by then, longer than any counted call ({:.3} s): the slowest calls are missing from the latencies; a longer --duration counts them",
                running.len(),
                oldest as f64 / 1e9,
                slowest_ns as f64 / 1e9
            ));
        }
    }
    words
}

/// "1 session", "2 sessions".
fn sessions_word(n: u32) -> String {
    if n == 1 { "1 session".into() } else { format!("{n} sessions") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(first_call_ns: Option<u64>, first_due_ns: u64, in_flight_at_end: Option<u64>) -> SessionResult {
        SessionResult { first_call_ns, first_due_ns, in_flight_at_end, ..SessionResult::default() }
    }

    fn plan(rate_per_session: Option<f64>) -> RunPlan {
        RunPlan {
            sessions: 4,
            read_pct: 50,
            rows: 10,
            warmup: Duration::ZERO,
            duration: Duration::from_secs(1),
            think: Duration::ZERO,
            rate_per_session,
            start: None,
        }
    }

    #[test]
    fn sessions_the_host_did_not_get_to_are_said_with_the_last_that_began() {
        // Two began (the last at 0.4 s), two were due at time zero but began nothing by 1 s.
        let sessions = [
            session(Some(1_000), 0, None),
            session(Some(400_000_000), 0, None),
            session(None, 0, None),
            session(None, 0, None),
        ];
        let starts = starts(&sessions, 1_000_000_000);
        assert_eq!(starts, SessionStarts { started: 2, last_started_s: 0.4, not_started: 2, not_due: 0 });
        let words = left_out(&plan(None), &sessions, 1_000_000_000, 0);
        assert_eq!(words.len(), 1, "{words:?}");
        assert!(words[0].starts_with("2 of 4 sessions began no call"), "{}", words[0]);
        assert!(words[0].contains("those of 2 sessions (the last began 0.40 s after"), "{}", words[0]);
        assert!(left_out(&plan(None), &sessions[1..], 1_000_000_000, 0)[0].contains("those of 1 session (the"));
    }

    #[test]
    fn sessions_a_rate_had_not_yet_called_are_not_blamed_on_the_host() {
        // At 0.5 calls/s a session's first call comes within 2 s; two were due after the 1 s window.
        let sessions = [
            session(Some(300_000_000), 300_000_000, None),
            session(Some(900_000_000), 900_000_000, None),
            session(None, 1_500_000_000, None),
            session(None, 1_000_000_000, None),
        ];
        assert_eq!(starts(&sessions, 1_000_000_000).not_due, 2, "due at the window's end is after it");
        let words = left_out(&plan(Some(0.5)), &sessions, 1_000_000_000, 0);
        assert_eq!(words.len(), 1, "{words:?}");
        assert!(words[0].starts_with("2 of 4 sessions had no call due"), "{}", words[0]);
        assert!(words[0].contains("up to 2.00 s"), "{}", words[0]);
    }

    #[test]
    fn calls_running_at_the_end_are_said_when_older_than_any_counted() {
        let all_started = |running: [Option<u64>; 2]| {
            [session(Some(0), 0, running[0]), session(Some(0), 0, running[1]), session(Some(0), 0, None)]
        };
        // Running since 0.2 s and 0.7 s at the 1 s end; the slowest counted call took 0.5 s.
        let words =
            left_out(&plan(None), &all_started([Some(200_000_000), Some(700_000_000)]), 1_000_000_000, 500_000_000);
        assert_eq!(words.len(), 1, "{words:?}");
        assert!(words[0].starts_with("2 calls still running"), "{}", words[0]);
        assert!(words[0].contains("the oldest running 0.800 s by then, longer than any counted call (0.500 s)"));
        // No older than the slowest counted: the latencies miss nothing longer.
        assert!(left_out(&plan(None), &all_started([Some(600_000_000), None]), 1_000_000_000, 500_000_000).is_empty());
    }
}
