//! A run in progress published to the store, so `spindle serve` shows it as it measures: the
//! observer's once-a-second ticks are handed (never waited on) to a thread of its own, which
//! writes the step's points to the store's table of live runs, marks the row with the run it
//! was saved as (or removes it when the step ends unsaved). The measuring threads never touch
//! the store.

use spindle_io::run::Progress;
use spindle_store::{Location, Store};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::{SystemTime, UNIX_EPOCH};

enum Event {
    /// The step about to measure, in words.
    Announce(String),
    /// A second measured: `[seconds since time zero, operations/s, MB/s, mean latency ns]`,
    /// and the wall clock at the step's time zero (so time zero plus the first number is when
    /// the run measured the point).
    Point([f64; 4], SystemTime),
    /// The step ended unsaved.
    End,
    /// The step ended and was saved as this run.
    Saved(i64),
}

pub struct Publisher {
    send: Option<SyncSender<Event>>,
    thread: Option<JoinHandle<()>>,
}

impl Publisher {
    pub fn new(store: Location) -> Publisher {
        // A few events of slack; a writer that falls behind loses points, never the run's time.
        let (send, receive) = sync_channel(16);
        let thread = std::thread::Builder::new().name("live".into()).spawn(move || publish(&store, &receive)).ok();
        Publisher { send: Some(send), thread }
    }

    fn post(&self, event: Event) {
        if let Some(send) = &self.send {
            match send.try_send(event) {
                Ok(()) | Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {}
            }
        }
    }

    pub fn announce(&self, what: &str) {
        self.post(Event::Announce(what.to_string()));
    }

    pub fn tick(&self, p: &Progress) {
        if p.warming_up {
            return;
        }
        let (point, zero) = point_of(p, SystemTime::now());
        self.post(Event::Point(point, zero));
    }

    pub fn end(&self) {
        self.post(Event::End);
    }

    pub fn saved(&self, run_id: i64) {
        self.post(Event::Saved(run_id));
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        // Closing the channel ends the writer, which removes a row still published.
        self.send = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A tick as published: the point, its time to the millisecond since time zero (a tick comes
/// a little after each whole second, later each second for some kinds of run, so a rounded
/// second would misplace it by up to half a second), and time zero on the wall clock (`now`,
/// read as the tick is handed over, less the time measured).
fn point_of(p: &Progress, now: SystemTime) -> ([f64; 4], SystemTime) {
    let secs = p.interval_secs.max(1e-9);
    let ios = p.interval.ios as f64;
    let mean = if p.interval.ios == 0 { 0.0 } else { p.interval.latency_sum_ns as f64 / ios };
    let at = p.elapsed.as_millis() as f64 / 1000.0;
    let zero = now.checked_sub(p.elapsed).unwrap_or(UNIX_EPOCH);
    ([at, ios / secs, p.interval.bytes as f64 / secs / 1e6, mean], zero)
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The writer: the store is opened at the first measured second (a command that fails before
/// measuring makes no store), and a store that cannot be written to is left alone: the page
/// then shows the run when it is saved, as before.
fn publish(at: &Location, events: &Receiver<Event>) {
    let mut store: Option<Store> = None;
    // Named by the command that measures it (passwords masked), and the step it is at.
    let command: Vec<String> = crate::output::command_line().iter().map(|w| spindle_model::shell::word(w)).collect();
    let command = command.join(" ");
    let mut what = command.clone();
    let mut row: Option<(i64, Vec<[f64; 4]>)> = None;
    let end = |store: &Option<Store>, row: &mut Option<(i64, Vec<[f64; 4]>)>| {
        if let (Some(s), Some((id, _))) = (store, row.take()) {
            let _ = s.live_end(id);
        }
    };
    for event in events {
        match event {
            Event::Announce(w) => what = format!("{command}: {w}"),
            Event::End => end(&store, &mut row),
            Event::Saved(run_id) => {
                if let (Some(s), Some((id, _))) = (&store, row.take()) {
                    let _ = s.live_saved(id, run_id, now_ms());
                }
            }
            Event::Point(point, zero) => {
                if store.is_none() {
                    store = Store::open(at.clone()).ok();
                }
                let Some(s) = &store else { continue };
                if row.is_none() {
                    // The step's time zero, so a reader knows when each point was measured.
                    let started = spindle_model::time::rfc3339_utc_ms(zero);
                    let host = spindle_host::system::hostname();
                    row = s
                        .live_start(i64::from(std::process::id()), &host, &what, &started, now_ms())
                        .ok()
                        .map(|id| (id, Vec::new()));
                }
                if let Some((id, points)) = &mut row {
                    points.push(point);
                    let _ = s.live_update(*id, points, now_ms());
                }
            }
        }
    }
    end(&store, &mut row);
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_io::live::LiveSnapshot;
    use std::time::Duration;

    #[test]
    fn a_point_says_when_it_was_measured() {
        let p = Progress {
            elapsed: Duration::from_millis(3_017),
            warming_up: false,
            interval: LiveSnapshot { ios: 2_000, bytes: 8_192_000, latency_sum_ns: 2_000_000 },
            interval_secs: 1.0,
        };
        let now = UNIX_EPOCH + Duration::from_millis(1_795_390_529_250);
        let (point, zero) = point_of(&p, now);
        assert_eq!(point, [3.017, 2_000.0, 8.192, 1_000.0]);
        assert_eq!(zero, UNIX_EPOCH + Duration::from_millis(1_795_390_526_233));
        let at = Duration::from_millis((point[0] * 1000.0).round() as u64);
        assert_eq!(zero + at, now, "time zero plus the point's time is when it was measured");
        assert_eq!(spindle_model::time::rfc3339_utc_ms(zero), "2026-11-22T23:35:26.233Z");
    }
}
