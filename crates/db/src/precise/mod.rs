//! Waiting until an instant to within microseconds. A plain sleep ends late: by the timer
//! slack the kernel adds (50 µs by default) and by the wake-up itself, and tokio's timer
//! counts in whole milliseconds. Under `--rate` a call's latency counts from its intended
//! start, so that lateness would be reported as the database's latency.
//!
//! A thread sleeps, with 1 ns of timer slack, to `SPIN` before the instant, then spins the
//! rest (`wait_until`). Async sessions are too many to spin each, so one timer thread does the
//! same for all of them and wakes each task at its instant (`Timer`).

mod timer;

pub use timer::Timer;

use std::time::{Duration, Instant};

/// How long before the instant a sleep ends and spinning takes over. Sleeps with 1 ns of slack
/// woke 26 µs late at the median and 36 µs at p90 on this 2-core VM, so most waits end on
/// time, and a wait spins for at most this long.
const SPIN: Duration = Duration::from_micros(50);

/// Asks the kernel to end this thread's sleeps within 1 ns of their time rather than the
/// default 50 µs. Per thread: call it on each thread that waits.
pub fn low_timer_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK takes a number and changes only this thread's timer slack.
    unsafe {
        libc::prctl(
            libc::PR_SET_TIMERSLACK,
            1 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        );
    }
}

/// Blocks the thread until `at`, never returning before it. Precise only on a thread that
/// called `low_timer_slack`.
pub fn wait_until(at: Instant) {
    loop {
        let left = at.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        if left > SPIN {
            std::thread::sleep(left - SPIN);
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests;
