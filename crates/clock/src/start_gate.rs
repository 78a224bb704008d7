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
/// The instant may be known at once (`new`) or only once every process is ready (`announced`):
/// then the gate, when its own workers are ready (files open, sessions connected), says so
/// (`on_ready`) and waits until the instant is `set`, or the start is called off (`cancel`).
pub struct StartAt {
    at: Mutex<Option<Option<SystemTime>>>,
    set: Condvar,
    on_ready: Box<dyn Fn() + Send + Sync>,
    opened: OnceLock<SystemTime>,
}

impl std::fmt::Debug for StartAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartAt").field("at", &self.instant()).field("opened", &self.opened()).finish()
    }
}

impl StartAt {
    /// A start at `at`, known now.
    pub fn new(at: SystemTime) -> StartAt {
        StartAt {
            at: Mutex::new(Some(Some(at))),
            set: Condvar::new(),
            on_ready: Box::new(|| {}),
            opened: OnceLock::new(),
        }
    }

    /// A start whose instant is set once everyone is ready; `on_ready` is told when this
    /// process's workers are.
    pub fn announced(on_ready: impl Fn() + Send + Sync + 'static) -> StartAt {
        StartAt { at: Mutex::new(None), set: Condvar::new(), on_ready: Box::new(on_ready), opened: OnceLock::new() }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Option<SystemTime>>> {
        self.at.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The instant, now known (the first one set counts).
    pub fn set(&self, at: SystemTime) {
        let mut slot = self.lock();
        if slot.is_none() {
            *slot = Some(Some(at));
        }
        self.set.notify_all();
    }

    /// The start will not come (the run was stopped): a waiting gate opens at once, and the
    /// workers, told to stop by their own flag, end without measuring.
    pub fn cancel(&self) {
        let mut slot = self.lock();
        if slot.is_none() {
            *slot = Some(None);
        }
        self.set.notify_all();
    }

    /// The instant, once set.
    pub fn instant(&self) -> Option<SystemTime> {
        self.lock().flatten()
    }

    /// Says this process is ready, waits for the instant and then until it comes, and notes
    /// when it woke. The kernel wakes the thread at the instant itself (an absolute sleep on the
    /// wall clock, timer slack 1 ns), with no spinning: many agents on one host's few cores all
    /// spinning through their last millisecond would keep each other from the CPU and start
    /// milliseconds apart. An instant already past, or a cancelled start, returns at once.
    pub fn wait(&self) {
        (self.on_ready)();
        let at = {
            let mut slot = self.lock();
            while slot.is_none() {
                slot = self.set.wait(slot).unwrap_or_else(|e| e.into_inner());
            }
            slot.flatten()
        };
        if let Some(at) = at {
            sleep_until(at);
        }
        let _ = self.opened.set(SystemTime::now());
    }

    /// When the wait ended, once it has.
    pub fn opened(&self) -> Option<SystemTime> {
        self.opened.get().copied()
    }
}

/// Sleeps until `at` on the wall clock, woken by the kernel at the instant.
fn sleep_until(at: SystemTime) {
    crate::low_timer_slack();
    let since_epoch = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let deadline = libc::timespec {
        tv_sec: since_epoch.as_secs() as libc::time_t,
        tv_nsec: since_epoch.subsec_nanos() as libc::c_long,
    };
    // A wake before the instant (a signal, or the clock set back) sleeps again.
    while SystemTime::now() < at {
        // SAFETY: clock_nanosleep reads the timespec and, with TIMER_ABSTIME, writes nothing.
        let slept = unsafe {
            libc::clock_nanosleep(libc::CLOCK_REALTIME, libc::TIMER_ABSTIME, &deadline, std::ptr::null_mut())
        };
        if slept != 0 && slept != libc::EINTR {
            // No absolute sleep here: sleep what is left instead.
            if let Ok(left) = at.duration_since(SystemTime::now()) {
                std::thread::sleep(left);
            }
        }
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
        assert!(opened >= at.instant().unwrap(), "never before the instant");
        let past = StartAt::new(SystemTime::UNIX_EPOCH);
        past.wait();
        assert!(past.opened().is_some(), "an instant already past opens at once");
    }

    #[test]
    fn an_announced_start_says_it_is_ready_then_waits_for_its_instant() {
        let (tell, told) = std::sync::mpsc::channel();
        let at = std::sync::Arc::new(StartAt::announced(move || tell.send(()).unwrap()));
        let waiting = {
            let at = std::sync::Arc::clone(&at);
            std::thread::spawn(move || at.wait())
        };
        told.recv().unwrap();
        assert!(at.opened().is_none(), "not before its instant is set");
        let instant = SystemTime::now() + std::time::Duration::from_millis(20);
        at.set(instant);
        waiting.join().unwrap();
        assert!(at.opened().unwrap() >= instant);

        let called_off = StartAt::announced(|| {});
        called_off.cancel();
        called_off.wait();
        assert!(called_off.opened().is_some() && called_off.instant().is_none(), "a cancelled start opens at once");
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
