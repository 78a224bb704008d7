//! The one rule every measuring runner starts by: workers (I/O threads, Hammer sessions) get
//! ready first (open their target, connect), then time zero is set and all begin together, so
//! set-up and ramp-up never count as measurement. Plain std synchronisation, shared by the
//! I/O runner and the Hammer thread runner (async sessions meet at tokio's barriers the same
//! way). A worker that never comes (its thread could not be started) is withdrawn, so the
//! gate opens for those that did.

use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

pub struct StartGate {
    state: Mutex<State>,
    changed: Condvar,
}

struct State {
    /// Workers still to arrive.
    expected: usize,
    arrived: usize,
    /// Set by the coordinator once every expected worker has arrived.
    t0: Option<Instant>,
}

impl StartGate {
    /// A gate for `workers` workers and one coordinator.
    pub fn new(workers: usize) -> StartGate {
        StartGate { state: Mutex::new(State { expected: workers, arrived: 0, t0: None }), changed: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is two counts and an instant, consistent after any panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A worker, once ready (or failed): waits for the others; returns time zero.
    pub fn arrive(&self) -> Instant {
        let mut s = self.lock();
        s.arrived += 1;
        self.changed.notify_all();
        loop {
            if let Some(t0) = s.t0 {
                return t0;
            }
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// `n` workers that will never arrive (their threads could not be started): the gate no
    /// longer waits for them.
    pub fn withdraw(&self, n: usize) {
        let mut s = self.lock();
        s.expected = s.expected.saturating_sub(n);
        self.changed.notify_all();
    }

    /// The coordinator: waits until every worker has arrived, sets time zero, lets them go,
    /// and returns time zero.
    pub fn open(&self) -> Instant {
        self.open_at(None)
    }

    /// As `open`, but once every worker is ready the gate opens at `at`, an instant of the
    /// wall clock other processes start at too (agents of one run), not at once.
    pub fn open_at(&self, at: Option<&StartAt>) -> Instant {
        let mut s = self.lock();
        while s.arrived < s.expected {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        if let Some(at) = at {
            // Workers wait on the condition variable, not on the lock: it is free meanwhile.
            drop(s);
            at.wait();
            s = self.lock();
        }
        let t0 = *s.t0.get_or_insert_with(Instant::now);
        self.changed.notify_all();
        t0
    }
}

/// An instant of the wall clock (already moved onto this host's clock from the coordinator's)
/// that several processes, on one host or many, start measuring at; and when this one did.
#[derive(Debug)]
pub struct StartAt {
    pub at: SystemTime,
    opened: OnceLock<SystemTime>,
}

impl StartAt {
    pub fn new(at: SystemTime) -> StartAt {
        StartAt { at, opened: OnceLock::new() }
    }

    /// Waits until `at` and notes when it woke. The kernel wakes the thread at the instant
    /// itself (an absolute sleep on the wall clock, timer slack 1 ns), with no spinning: many
    /// agents on one host's few cores all spinning through their last millisecond would keep
    /// each other from the CPU and start milliseconds apart. An instant already past returns
    /// at once.
    pub fn wait(&self) {
        crate::low_timer_slack();
        let since_epoch = self.at.duration_since(UNIX_EPOCH).unwrap_or_default();
        let deadline = libc::timespec {
            tv_sec: since_epoch.as_secs() as libc::time_t,
            tv_nsec: since_epoch.subsec_nanos() as libc::c_long,
        };
        // A wake before the instant (a signal, or the clock set back) sleeps again.
        while SystemTime::now() < self.at {
            // SAFETY: clock_nanosleep reads the timespec and, with TIMER_ABSTIME, writes nothing.
            let slept = unsafe {
                libc::clock_nanosleep(libc::CLOCK_REALTIME, libc::TIMER_ABSTIME, &deadline, std::ptr::null_mut())
            };
            if slept != 0 && slept != libc::EINTR {
                // No absolute sleep here: sleep what is left instead.
                if let Ok(left) = self.at.duration_since(SystemTime::now()) {
                    std::thread::sleep(left);
                }
            }
        }
        let _ = self.opened.set(SystemTime::now());
    }

    /// When the wait ended, once it has.
    pub fn opened(&self) -> Option<SystemTime> {
        self.opened.get().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_start_at_the_coordinators_time_zero() {
        let gate = StartGate::new(3);
        let created = Instant::now();
        let (zero, seen) = std::thread::scope(|s| {
            let workers: Vec<_> = (0..3).map(|_| s.spawn(|| gate.arrive())).collect();
            let zero = gate.open();
            (zero, workers.into_iter().map(|w| w.join().unwrap()).collect::<Vec<_>>())
        });
        assert!(zero >= created);
        assert!(seen.iter().all(|t| *t == zero), "every worker sees the one time zero");
    }

    #[test]
    fn a_gate_opened_at_an_instant_opens_no_earlier() {
        let at = StartAt::new(SystemTime::now() + std::time::Duration::from_millis(30));
        let gate = StartGate::new(2);
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..2).map(|_| s.spawn(|| gate.arrive())).collect();
            gate.open_at(Some(&at));
            for w in workers {
                w.join().unwrap();
            }
        });
        let opened = at.opened().expect("noted when it opened");
        assert!(opened >= at.at, "never before the instant");
        let past = StartAt::new(SystemTime::UNIX_EPOCH);
        past.wait();
        assert!(past.opened().is_some(), "an instant already past opens at once");
    }

    #[test]
    fn workers_that_never_come_are_withdrawn_and_the_gate_opens_for_the_rest() {
        let gate = StartGate::new(5);
        let (zero, seen) = std::thread::scope(|s| {
            let workers: Vec<_> = (0..2).map(|_| s.spawn(|| gate.arrive())).collect();
            gate.withdraw(3);
            let zero = gate.open();
            (zero, workers.into_iter().map(|w| w.join().unwrap()).collect::<Vec<_>>())
        });
        assert!(seen.iter().all(|t| *t == zero));
    }
}
