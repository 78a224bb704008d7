//! An agent's clock against the store server's, the one clock a run of many agents starts
//! by: the offset from the fastest of a few round trips of `clock_timestamp()` (the server
//! read its clock somewhere inside the trip, so the middle of the fastest trip is the best
//! guess, good to half that trip). A host whose clock is seconds off still starts on time:
//! the start instant is the server's, moved onto this host's clock by the offset.

use spindle_store::Store;
use std::time::{SystemTime, UNIX_EPOCH};

/// Round trips measured; the fastest is used.
const TRIPS: usize = 16;

/// This host's clock minus the server's, and the round trip it was measured on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offset {
    pub offset_ns: i64,
    pub rtt_ns: i64,
}

pub fn measure_offset(store: &Store) -> anyhow::Result<Offset> {
    let mut best: Option<Offset> = None;
    for _ in 0..TRIPS {
        let sent = now_ns();
        let server = store.server_now_ns()?;
        let back = now_ns();
        let trip = Offset { offset_ns: sent + (back - sent) / 2 - server, rtt_ns: back - sent };
        if best.is_none_or(|b| trip.rtt_ns < b.rtt_ns) {
            best = Some(trip);
        }
    }
    Ok(best.expect("at least one round trip"))
}

fn now_ns() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64)
}
