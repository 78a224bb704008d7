//! The one rule every measuring runner starts by: workers (I/O threads, Hammer sessions) get
//! ready first (open their target, connect), then time zero is set and all begin together, so
//! set-up and ramp-up never count as measurement. Plain std synchronisation, shared by the
//! I/O runner and the Hammer thread runner (async sessions meet at tokio's barriers the same
//! way).

use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant, SystemTime};

pub struct StartGate {
    ready: Barrier,
    go: Barrier,
    t0: OnceLock<Instant>,
}

impl StartGate {
    /// A gate for `workers` workers and one coordinator.
    pub fn new(workers: usize) -> StartGate {
        StartGate { ready: Barrier::new(workers + 1), go: Barrier::new(workers + 1), t0: OnceLock::new() }
    }

    /// A worker, once ready (or failed): waits for the others; returns time zero.
    pub fn arrive(&self) -> Instant {
        self.ready.wait();
        self.go.wait();
        *self.t0.get().expect("t0 is set between the barriers")
    }

    /// The coordinator: waits until every worker has arrived, sets time zero, lets them go,
    /// and returns time zero.
    pub fn open(&self) -> Instant {
        self.open_at(None)
    }

    /// As `open`, but once every worker is ready the gate opens at `at`, an instant of the
    /// wall clock other processes start at too (agents of one run), not at once.
    pub fn open_at(&self, at: Option<&StartAt>) -> Instant {
        self.ready.wait();
        if let Some(at) = at {
            at.wait();
        }
        let t0 = *self.t0.get_or_init(Instant::now);
        self.go.wait();
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

    /// Waits until `at` (sleeping to a millisecond before, then spinning on the clock, so the
    /// start is late by microseconds, not by a timer's slack), and notes when it woke. An
    /// instant already past returns at once.
    pub fn wait(&self) {
        loop {
            let now = SystemTime::now();
            let Ok(left) = self.at.duration_since(now) else { break };
            if left > Duration::from_millis(2) {
                std::thread::sleep(left - Duration::from_millis(1));
            } else {
                std::hint::spin_loop();
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
        let at = StartAt::new(SystemTime::now() + Duration::from_millis(30));
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
}
