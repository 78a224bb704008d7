//! Waking async sessions at their instants to within microseconds. tokio's timer counts in
//! whole milliseconds, and under `--rate` a call's latency counts from its intended start, so
//! that lateness would be reported as the database's. Sessions are too many to spin each (as
//! a thread waits, with `spindle_clock::Pacer`), so one timer thread sleeps with 1 ns of timer
//! slack to `SPIN` before the earliest instant, spins the rest, and wakes each task that is due.

mod timer;

pub use timer::Timer;

use std::time::Duration;

/// How long before the instant the timer thread's sleep ends and spinning takes over. Sleeps
/// with 1 ns of slack woke 26 µs late at the median and 36 µs at p90 on this 2-core VM, so most
/// waits end on time, and a wait spins for at most this long.
const SPIN: Duration = Duration::from_micros(50);

#[cfg(test)]
mod tests;
