//! The coordinator's reading of a database server's own counts at the edges of the window
//! every agent measures: at the end of the warm-up, on a thread that sleeps to that instant
//! (the store server's, moved onto this host's clock by its offset, as the agents move
//! theirs), and once every agent has finished (no call is made after the window, and a
//! session that ended has published all its counts). PostgreSQL publishes each session's
//! counts about once a second, so the first reading can miss up to a second of warm-up
//! calls that it then counts in the window: over a window of minutes, well under 1%.

use crate::clock::measure_offset;
use crate::work::Work;
use spindle_db::DbUrl;
use spindle_db::hammer::tally::{self, Counted};
use spindle_model::RunRecord;
use spindle_model::merge::ServerTally;
use spindle_store::Store;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The counter at the window's start and end, and the sessions at its start.
type Edges = anyhow::Result<((u64, u64), (u64, u64))>;

pub struct Tally {
    counted: Counted,
    reading: JoinHandle<Edges>,
    /// Told when every agent has finished: the last reading is taken then.
    ended: mpsc::Sender<()>,
}

impl Tally {
    /// Starts reading for a Hammer run on a server started at `start_at` (store server's
    /// clock); `None` for work that has no server to ask.
    pub fn start(work: &Work, db: Option<&DbUrl>, store: &Store, start_at: i64) -> anyhow::Result<Option<Tally>> {
        let (Work::Hammer { warmup_ns, .. }, Some(url)) = (work, db) else { return Ok(None) };
        let Some(counted) = tally::counted(url.engine) else { return Ok(None) };
        let offset = measure_offset(store)?.offset_ns;
        let local = |server_ns: i64| UNIX_EPOCH + Duration::from_nanos((server_ns + offset).max(0) as u64);
        let from = local(start_at + *warmup_ns as i64);
        let url = url.clone();
        let (ended, end) = mpsc::channel();
        let reading = std::thread::Builder::new().name("spindle-tally".into()).spawn(move || {
            let mut conn = spindle_db::open(&url)?;
            sleep_until(from);
            let first = tally::read(&mut *conn)?;
            let _ = end.recv();
            let last = tally::read(&mut *conn)?;
            Ok((first, last))
        })?;
        Ok(Some(Tally { counted, reading, ended }))
    }

    /// What the server counted beside what the agents did (`None` when it could not be read:
    /// the run stands without it).
    pub fn finish(self, merged: &RunRecord) -> Option<ServerTally> {
        let _ = self.ended.send(());
        let ((count0, sessions), (count1, _)) = self.reading.join().ok()?.ok()?;
        let s = &merged.summary;
        Some(ServerTally {
            counter: self.counted.counter.to_string(),
            server: count1.saturating_sub(count0),
            agents: s.write.ios + if self.counted.reads { s.read.ios } else { 0 },
            sessions_at_start: sessions,
        })
    }
}

fn sleep_until(at: SystemTime) {
    if let Ok(left) = at.duration_since(SystemTime::now()) {
        std::thread::sleep(left);
    }
}
