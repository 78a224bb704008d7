//! One thread that wakes async tasks at their instants, for all the tasks of a run: it keeps
//! the instants in a heap, sleeps with 1 ns of timer slack to shortly before the earliest,
//! spins the rest, then wakes every task that is due.

use super::SPIN;
use futures_util::task::AtomicWaker;
use spindle_clock::low_timer_slack;
use std::cmp::{Ordering as Order, Reverse};
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::Instant;

/// The timer thread, stopped and joined on drop.
pub struct Timer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when an entry becomes the earliest, or the timer closes.
    changed: Condvar,
    /// Raised with that signal too, for the thread while it spins without the lock.
    earlier: AtomicBool,
}

#[derive(Default)]
struct Queue {
    due: BinaryHeap<Reverse<Entry>>,
    next_seq: u64,
    closed: bool,
}

/// A task's wait: fired once its instant has passed, then its waker is woken.
#[derive(Default)]
struct Slot {
    fired: AtomicBool,
    waker: AtomicWaker,
}

struct Entry {
    at: Instant,
    /// Ties broken by arrival.
    seq: u64,
    slot: Arc<Slot>,
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Order {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Order> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Order::Equal
    }
}

impl Eq for Entry {}

impl Timer {
    pub fn start() -> Timer {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            changed: Condvar::new(),
            earlier: AtomicBool::new(false),
        });
        let for_thread = shared.clone();
        let thread = std::thread::Builder::new()
            .name("spindle-timer".into())
            .spawn(move || for_thread.run())
            .expect("spawn the timer thread");
        Timer { shared, thread: Some(thread) }
    }

    /// A future that completes at `at` (at once if it has passed), never before.
    pub fn sleep_until(&self, at: Instant) -> Sleep<'_> {
        Sleep { shared: &self.shared, at, slot: None }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.changed.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub struct Sleep<'a> {
    shared: &'a Shared,
    at: Instant,
    slot: Option<Arc<Slot>>,
}

impl Future for Sleep<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if let Some(slot) = &self.slot {
            // Registered before the check, so a fire in between still wakes this task.
            slot.waker.register(cx.waker());
            return if slot.fired.load(Ordering::Acquire) { Poll::Ready(()) } else { Poll::Pending };
        }
        if Instant::now() >= self.at {
            return Poll::Ready(());
        }
        let slot = Arc::new(Slot::default());
        slot.waker.register(cx.waker());
        self.shared.add(self.at, slot.clone());
        self.slot = Some(slot);
        Poll::Pending
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn add(&self, at: Instant, slot: Arc<Slot>) {
        let mut q = self.lock();
        let earliest = q.due.peek().is_none_or(|Reverse(e)| at < e.at);
        let seq = q.next_seq;
        q.next_seq += 1;
        q.due.push(Reverse(Entry { at, seq, slot }));
        drop(q);
        if earliest {
            self.earlier.store(true, Ordering::Release);
            self.changed.notify_one();
        }
    }

    /// The timer thread: until closed, sleep to `SPIN` before the earliest instant, spin to
    /// it, wake every task due.
    fn run(&self) {
        low_timer_slack();
        let mut woken: Vec<Arc<Slot>> = Vec::new();
        let mut q = self.lock();
        while !q.closed {
            let Some(at) = q.due.peek().map(|Reverse(e)| e.at) else {
                q = self.changed.wait(q).unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            let now = Instant::now();
            let left = at.saturating_duration_since(now);
            if left > SPIN {
                q = self.changed.wait_timeout(q, left - SPIN).unwrap_or_else(PoisonError::into_inner).0;
                continue;
            }
            if !left.is_zero() {
                // Spin without the lock, so sessions can add waits meanwhile; an earlier one
                // ends the spin. Cleared under the lock: any later add raises it again.
                self.earlier.store(false, Ordering::Relaxed);
                drop(q);
                while Instant::now() < at && !self.earlier.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
                q = self.lock();
                continue;
            }
            while let Some(Reverse(e)) = q.due.peek() {
                if e.at > now {
                    break;
                }
                let Some(Reverse(e)) = q.due.pop() else { break };
                woken.push(e.slot);
            }
            // Woken without the lock: a woken task may come straight back with its next wait.
            drop(q);
            for slot in woken.drain(..) {
                slot.fired.store(true, Ordering::Release);
                slot.waker.wake();
            }
            q = self.lock();
        }
    }
}
