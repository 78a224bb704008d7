//! The one rule every measuring runner starts by: workers (I/O threads, Hammer sessions) get
//! ready first (open their target, connect), then time zero is set and all begin together, so
//! set-up and ramp-up never count as measurement. Plain std synchronisation, shared by the
//! I/O runner and the Hammer thread runner (async sessions meet at tokio's barriers the same
//! way).

use std::sync::{Barrier, OnceLock};
use std::time::Instant;

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
        self.ready.wait();
        let t0 = *self.t0.get_or_init(Instant::now);
        self.go.wait();
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
}
