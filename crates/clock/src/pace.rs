//! Waiting for a rate-limited I/O's intended start without oversleeping. Under `--rate`,
//! latency counts from the intended start (so a stalled device shows as latency instead of a
//! lower offered load), which means every microsecond a worker oversleeps would be reported as
//! the device's. A sleep ends late by the thread's timer slack (50 µs by default) plus the
//! wake-up itself, so the pacer lowers the slack, sleeps until a margin before the instant and
//! spins on the clock for the rest. The margin follows the oversleep actually observed: wide
//! enough to cover most wake-ups, no wider, because every microsecond of it is spun.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The share of wake-ups the margin aims to cover. The rest land late by their excess, which
/// is spindle's error; covering the last few percent (scheduling delays on a busy machine, up
/// to milliseconds) would cost far more spinning than it saves.
const COVERED: f64 = 0.95;

/// How far one wake-up moves the margin: up by `ADAPT * COVERED` of itself after a wake-up past
/// it, down by `ADAPT * (1 - COVERED)` after one inside it, so it settles where `COVERED` of
/// wake-ups land inside, and follows a change within some tens of wake-ups.
const ADAPT: f64 = 0.05;

/// The margin before anything was observed: about twice the oversleep measured on a virtual
/// machine with a 1 ns slack (50 µs median, 70 µs p90).
const INITIAL_MARGIN_NS: f64 = 100_000.0;
const MIN_MARGIN_NS: f64 = 2_000.0;
/// Never spin longer than this before an I/O. Timers wake within it; what lands later is the
/// thread waiting for a CPU on a busy machine, which spinning cannot cure (a thread that spins
/// long is the first to be preempted) and the worker does not count as the device's latency.
const MAX_MARGIN_NS: f64 = 250_000.0;

/// The longest single sleep, so a raised stop flag is seen within this.
const LONGEST_SLEEP: Duration = Duration::from_millis(50);

/// Asks the kernel to end this thread's sleeps and timed waits within 1 ns of their time
/// rather than the default 50 µs later. Per thread: every thread that waits calls it. A failure
/// leaves the default slack: later wake-ups, which a pacer's margin then covers.
pub fn low_timer_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer and changes only this thread's slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}

/// One worker's clock (nanoseconds since the job's start) and its sleeping margin.
pub struct Pacer {
    t0: Instant,
    margin_ns: f64,
}

impl Pacer {
    /// A pacer for the calling thread, which must be the thread that waits: it lowers that
    /// thread's timer slack to 1 ns, so its sleeps and timed waits for completions end as
    /// asked instead of up to 50 µs later.
    pub fn for_this_thread(t0: Instant) -> Pacer {
        low_timer_slack();
        Pacer { t0, margin_ns: INITIAL_MARGIN_NS }
    }

    /// Nanoseconds since the job's start.
    #[inline(always)]
    pub fn now(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    /// How long a wait for completions may last so that it ends a margin before `at`: zero once
    /// inside the margin, where the caller polls instead of sleeping.
    pub fn wait_before(&self, now: u64, at: u64) -> Duration {
        Duration::from_nanos(at.saturating_sub(self.margin()).saturating_sub(now))
    }

    /// Returns at `at` (nanoseconds since the job's start) or as soon after as the clock shows
    /// it, never before, unless `stop` is raised while sleeping. Returns the time on return.
    pub fn wait_until(&mut self, at: u64, stop: &AtomicBool) -> u64 {
        let mut now = self.now();
        while at.saturating_sub(now) > self.margin() {
            let sleep = Duration::from_nanos(at - now - self.margin()).min(LONGEST_SLEEP);
            std::thread::sleep(sleep);
            let woke = self.now();
            self.learn(woke.saturating_sub(now + sleep.as_nanos() as u64));
            now = woke;
            if stop.load(Ordering::Relaxed) {
                return now;
            }
        }
        while now < at {
            std::hint::spin_loop();
            now = self.now();
        }
        now
    }

    fn margin(&self) -> u64 {
        self.margin_ns as u64
    }

    /// Moves the margin after a wake-up `oversleep_ns` late.
    fn learn(&mut self, oversleep_ns: u64) {
        let factor =
            if oversleep_ns as f64 > self.margin_ns { 1.0 + ADAPT * COVERED } else { 1.0 - ADAPT * (1.0 - COVERED) };
        self.margin_ns = (self.margin_ns * factor).clamp(MIN_MARGIN_NS, MAX_MARGIN_NS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_returns_before_the_instant() {
        let mut pacer = Pacer::for_this_thread(Instant::now());
        let stop = AtomicBool::new(false);
        for step in [0, 1_000, 150_000, 2_000_000] {
            let at = pacer.now() + step;
            assert!(pacer.wait_until(at, &stop) >= at);
        }
    }

    #[test]
    fn the_margin_settles_where_most_wake_ups_land_inside_it() {
        let mut pacer = Pacer::for_this_thread(Instant::now());
        // Wake-ups 40 µs late, one in fifty 400 µs late: the margin covers the 40s (98% of
        // wake-ups, more than the 95% aimed for) and does not chase the rare 400s.
        for i in 0..20_000 {
            pacer.learn(if i % 50 == 0 { 400_000 } else { 40_000 });
        }
        assert!((35_000..50_000).contains(&pacer.margin()), "margin {}", pacer.margin());
        for _ in 0..20_000 {
            pacer.learn(10_000);
        }
        assert!(pacer.margin() < 40_000, "a quieter machine narrows it: {}", pacer.margin());
        for _ in 0..20_000 {
            pacer.learn(u64::MAX);
        }
        assert_eq!(pacer.margin(), MAX_MARGIN_NS as u64, "never wider than the cap");
    }
}
