//! A run in progress published to the store, so `spindle serve` shows it as it measures: the
//! observer's once-a-second ticks are handed (never waited on) to a thread of its own, which
//! writes the step's points to the store's table of live runs and removes the row when the
//! step ends. The measuring threads never touch the store.

use spindle_io::run::Progress;
use spindle_store::{Location, Store};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::{SystemTime, UNIX_EPOCH};

enum Event {
    /// The step about to measure, in words.
    Announce(String),
    /// A second measured: `[second, operations/s, MB/s, mean latency ns]`.
    Point([f64; 4]),
    /// The step ended (saved or not).
    End,
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
        let secs = p.interval_secs.max(1e-9);
        let ios = p.interval.ios as f64;
        let mean = if p.interval.ios == 0 { 0.0 } else { p.interval.latency_sum_ns as f64 / ios };
        self.post(Event::Point([
            p.elapsed.as_secs_f64().round(),
            ios / secs,
            p.interval.bytes as f64 / secs / 1e6,
            mean,
        ]));
    }

    pub fn end(&self) {
        self.post(Event::End);
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

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The writer: the store is opened at the first measured second (a command that fails before
/// measuring makes no store), and a store that cannot be written to is left alone: the page
/// then shows the run when it is saved, as before.
fn publish(at: &Location, events: &Receiver<Event>) {
    let mut store: Option<Store> = None;
    let mut what = format!("a run of spindle process {}", std::process::id());
    let mut row: Option<(i64, Vec<[f64; 4]>)> = None;
    let end = |store: &Option<Store>, row: &mut Option<(i64, Vec<[f64; 4]>)>| {
        if let (Some(s), Some((id, _))) = (store, row.take()) {
            let _ = s.live_end(id);
        }
    };
    for event in events {
        match event {
            Event::Announce(w) => what = w,
            Event::End => end(&store, &mut row),
            Event::Point(point) => {
                if store.is_none() {
                    store = Store::open(at.clone()).ok();
                }
                let Some(s) = &store else { continue };
                if row.is_none() {
                    let started = spindle_model::time::rfc3339_utc(SystemTime::now());
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
