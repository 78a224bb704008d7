//! The one rule every measuring runner starts by: workers (I/O threads, Hammer sessions) get
//! ready first (open their target, connect), then time zero is set and all begin together, so
//! set-up and ramp-up never count as measurement. Plain std synchronisation, shared by the
//! I/O runner and the Hammer thread runner (async sessions meet at tokio's barriers the same
//! way). A worker that never comes (its thread could not be started) is withdrawn, so the
//! gate opens for those that did.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

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
        let mut s = self.lock();
        while s.arrived < s.expected {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        let t0 = *s.t0.get_or_insert_with(Instant::now);
        self.changed.notify_all();
        t0
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
