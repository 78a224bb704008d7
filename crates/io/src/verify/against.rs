//! A whole file's sectors judged against the write state its run saved (`state`): where the
//! state says a write completed, that write must be there. Nothing of it there is a lost
//! write (or a stale one, when an older write of the run is there instead); some of it there
//! and some not, a torn one. Each is named by its offset.
//!
//! After a crash the state is up to a second old: a sector holding a write numbered after
//! the last save, or one whose granule had an I/O in flight then, is newer than the state
//! and cannot be judged (neither can a write completed after the save and since lost).

use super::map::Expected;
use super::state::State;
use spindle_model::verify::FindingKind;

/// The most sectors held back while a write is walked: a write's sectors are judged together,
/// and no write is longer than this (a damaged state might say so).
const MAX_WRITE: usize = (64 << 20) / super::stamp::SECTOR;

/// What a sector holds, as judging it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// The run's intact stamp, for this place, of this generation.
    Run(u64),
    /// No stamp of the run: never stamped, zeros, another run's.
    Nothing,
    /// A fault already found by its stamp alone (corrupt, misdirected).
    Found,
}

/// A stretch where the write the state names is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missing {
    pub offset: u64,
    pub bytes: u64,
    pub kind: FindingKind,
    pub expected: u64,
    pub found: Option<u64>,
}

#[derive(Clone, Copy)]
enum Verdict {
    Good,
    Missing(FindingKind, Option<u64>),
    Skip,
}

pub struct Against<'s> {
    state: &'s State,
    /// The state's cell of the write being walked, and its sectors so far.
    write: Option<u32>,
    sectors: Vec<(u64, Verdict)>,
    any_good: bool,
    /// Sectors newer than the state: not judged.
    pub newer: u64,
    /// What was found missing, for the caller to report.
    pub missing: Vec<Missing>,
}

impl<'s> Against<'s> {
    pub fn new(state: &'s State) -> Against<'s> {
        Against { state, write: None, sectors: Vec::new(), any_good: false, newer: 0, missing: Vec::new() }
    }

    /// Judges the sector at `at`; true when the state says the run wrote there.
    pub fn sector(&mut self, at: u64, held: Held) -> bool {
        let (expected, in_flight) = self.state.cell(at);
        let Expected::Written(cell) = expected else {
            self.close();
            return false;
        };
        // Neighbouring granules of one generation are one write (generations are unique).
        if self.write != Some(cell) || self.sectors.len() >= MAX_WRITE {
            self.close();
            self.write = Some(cell);
        }
        let state = self.state;
        let verdict = match held {
            Held::Found => Verdict::Skip,
            Held::Run(g) if expected.is(g) => Verdict::Good,
            Held::Run(g) if in_flight || (!state.complete && g >= state.next) => {
                self.newer += 1;
                Verdict::Skip
            }
            Held::Run(g) => Verdict::Missing(FindingKind::Stale, Some(g)),
            Held::Nothing => Verdict::Missing(FindingKind::Lost, None),
        };
        self.any_good |= matches!(verdict, Verdict::Good);
        self.sectors.push((at, verdict));
        true
    }

    /// Ends the write being walked: its missing sectors are torn when any of it is there.
    pub fn close(&mut self) {
        let Some(cell) = self.write.take() else { return };
        let expected = self.state.generation(cell);
        for (offset, verdict) in self.sectors.drain(..) {
            if let Verdict::Missing(kind, found) = verdict {
                let kind = if self.any_good { FindingKind::Torn } else { kind };
                self.missing.push(Missing { offset, bytes: super::stamp::SECTOR as u64, kind, expected, found });
            }
        }
        self.any_good = false;
    }

    /// The run's writes the state places from `end` (where the target ends) on: lost.
    pub fn beyond(&mut self, end: u64) {
        self.close();
        let granule = self.state.granule;
        let mut at = end;
        while at < self.state.size {
            let next = ((at / granule + 1) * granule).min(self.state.size);
            if let (Expected::Written(cell), _) = self.state.cell(at) {
                let expected = self.state.generation(cell);
                self.missing.push(Missing {
                    offset: at,
                    bytes: next - at,
                    kind: FindingKind::Lost,
                    expected,
                    found: None,
                });
            }
            at = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn state(cells: Vec<u32>, complete: bool) -> State {
        let size = cells.len() as u64 * 1024;
        State { run: 1, size, granule: 1024, next: 20, complete, saved_at: SystemTime::UNIX_EPOCH, cells }
    }

    fn judge(state: &State, held: &[Held]) -> (Vec<(u64, FindingKind)>, u64) {
        let mut a = Against::new(state);
        for (i, h) in held.iter().enumerate() {
            a.sector(i as u64 * 512, *h);
        }
        a.beyond(held.len() as u64 * 512);
        (a.missing.iter().map(|m| (m.offset, m.kind)).collect(), a.newer)
    }

    #[test]
    fn a_write_wholly_missing_is_lost_or_stale_and_partly_missing_torn() {
        use Held::*;
        use spindle_model::verify::FindingKind::*;
        // Write 5 over granules 0-1, write 7 over granule 2, nothing on granule 3.
        let s = state(vec![5, 5, 7, 0], true);
        assert_eq!(judge(&s, &[Run(5), Run(5), Run(5), Run(5), Run(7), Run(7), Nothing, Nothing]).0, []);
        let (found, _) = judge(&s, &[Run(5), Run(5), Nothing, Run(3), Nothing, Nothing, Nothing, Run(9)]);
        assert_eq!(found, [(1024, Torn), (1536, Torn), (2048, Lost), (2560, Lost)]);
        let (found, _) = judge(&s, &[Nothing, Run(3), Nothing, Found, Run(7), Run(6)]);
        assert_eq!(found, [(0, Lost), (512, Stale), (1024, Lost), (2560, Torn)]);
        // The target ends early: the writes beyond its end are lost, by granule.
        let (found, _) = judge(&s, &[Run(5), Run(5)]);
        assert_eq!(found, [(1024, Lost), (2048, Lost)]);
    }

    #[test]
    fn writes_newer_than_a_state_saved_before_a_crash_are_not_judged() {
        use Held::*;
        let s = state(vec![5, 5 | 1 << 31, 0, 0], false);
        // Write 25 came after the save; write 9 was in flight on granule 1 when it was made.
        let (found, newer) = judge(&s, &[Run(25), Run(25), Run(9), Run(5), Run(30), Nothing]);
        assert_eq!((found, newer), (vec![], 3));
        // Once the run ended cleanly, every write is in the state: 25 is not where 5 should be.
        let (found, _) = judge(&state(vec![5, 0], true), &[Run(25), Run(5)]);
        assert_eq!(found, [(0, FindingKind::Torn)]);
    }
}
