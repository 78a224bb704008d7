//! Keeping a verified run's write state on disk while it runs: a thread of its own copies the
//! generation maps (atomic loads; the workers never wait for it) about once a second, and the
//! run saves them once more when its last write has ended.

use super::map::GenerationMap;
use super::state::{State, StateError};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime};

/// How often the state is saved, at most: writes completed since the last save are not in
/// it after a crash, so this is how far back a crash leaves lost writes unjudged.
const INTERVAL: Duration = Duration::from_secs(1);
/// A save never takes more than this share of the time (a large map's state is large).
const SHARE: u32 = 10;

/// One target's state being kept.
pub struct Saving<'a> {
    map: &'a GenerationMap,
    path: PathBuf,
    state: State,
    buf: Vec<u8>,
    /// The first save that failed, said once the run is over.
    failed: Option<StateError>,
}

impl<'a> Saving<'a> {
    /// Saves an empty state of run `run` at `path` before the first write, so that a crash at
    /// any moment leaves one; fails when it cannot (a file not spindle's is in the way).
    pub fn start(map: &'a GenerationMap, run: u64, size: u64, path: &Path) -> Result<Saving<'a>, StateError> {
        let state = State {
            run,
            size,
            granule: map.granule(),
            next: 0,
            complete: false,
            saved_at: SystemTime::now(),
            cells: Vec::new(),
        };
        let mut saving = Saving { map, path: path.to_path_buf(), state, buf: Vec::new(), failed: None };
        saving.copy(false);
        saving.state.save(&saving.path, &mut saving.buf)?;
        Ok(saving)
    }

    fn copy(&mut self, complete: bool) {
        self.state.next = self.map.snapshot(&mut self.state.cells);
        self.state.complete = complete;
        self.state.saved_at = SystemTime::now();
    }

    fn save(&mut self, complete: bool) {
        self.copy(complete);
        if let Err(e) = self.state.save(&self.path, &mut self.buf) {
            self.failed.get_or_insert(e);
        }
    }

    /// The last save, after every write of the run has ended; what went wrong saving, if
    /// anything, in words for the run's warnings.
    pub fn finish(mut self) -> Option<String> {
        self.save(true);
        let failed = self.failed?;
        Some(format!(
            "{failed}; `spindle verify` judges the target against the last state saved, and cannot judge lost writes after it"
        ))
    }
}

/// Saves every state about once a second (or ten times as long as the last save took) until
/// `done` is dropped.
pub fn keep_saving(savings: &mut [Saving<'_>], done: &Receiver<()>) {
    let mut wait = INTERVAL;
    loop {
        match done.recv_timeout(wait) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
        let began = Instant::now();
        for s in savings.iter_mut() {
            s.save(false);
        }
        let took = began.elapsed();
        wait = INTERVAL.max(took * SHARE).saturating_sub(took);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::map::{Expected, Release};

    #[test]
    fn the_state_follows_the_map_and_its_last_save_is_complete() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.state");
        let map = GenerationMap::new(8 * 4096, 4096);
        let mut saving = vec![Saving::start(&map, 7, 8 * 4096, &path).unwrap()];
        let first = State::load(&path).unwrap().unwrap();
        assert_eq!((first.run, first.next, first.complete, first.cells.len()), (7, 1, false, 8));
        assert!(map.claim(4096, 8192));
        let g = map.next_generation();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            let saving = &mut saving;
            let saver = scope.spawn(move || keep_saving(saving, &rx));
            // A save in the middle: the write is in flight, numbered below the counter.
            while State::load(&path).unwrap().unwrap().next == 1 {
                std::thread::sleep(Duration::from_millis(50));
            }
            drop(tx);
            saver.join().unwrap();
        });
        let middle = State::load(&path).unwrap().unwrap();
        assert!(middle.next > g && !middle.complete);
        assert_eq!(middle.cell(4096), (Expected::Never, true));
        map.release(4096, 8192, Release::Written(g));
        assert_eq!(saving.pop().unwrap().finish(), None);
        let last = State::load(&path).unwrap().unwrap();
        assert!(last.complete);
        assert_eq!(last.cell(8192), (Expected::Written(g as u32), false));
    }
}
