//! `spindle verify`: a whole file or device written under `--verify`, checked sector by
//! sector. Every sector must be intact and in its place. With the write state the run saved
//! (`state`), every write it completed must be there, or a later one (`against`): lost, stale
//! and torn writes are named by offset. Without it, only the stamps speak: every write a
//! sector names must be there in full or overwritten by a later one (otherwise it was torn),
//! and the run's writes must all be found (the mark on a file says how many bytes it wrote),
//! but where a lost or stale write was cannot be known.

use super::against::{Against, Held};
use super::stamp::{self, SECTOR, Sector, Stamp};
use super::state::State;
use crate::engine::BufferPool;
use crate::target::marker;
use spindle_model::verify::{Finding, FindingKind, KEPT_FINDINGS_WHOLE, VerifySummary};
use std::collections::VecDeque;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Bytes read at a time.
const CHUNK: usize = 4 << 20;
/// The longest write whose sectors are looked back on (longer ones are checked forward only).
const LOOKBACK: usize = (64 << 20) / SECTOR;

#[derive(Debug, Error)]
pub enum ScanError {
    #[error(
        "{0}: not written under --verify (it has no verification mark); write it with `spindle io --verify --keep-file`, or give the run's id with --id"
    )]
    NotVerified(PathBuf),
    #[error(
        "{0}: written under --verify by an earlier spindle, whose stamps this version no longer reads; write it again with `spindle io --verify --keep-file`"
    )]
    EarlierFormat(PathBuf),
    #[error("{0}: {1}; give the file or block device the run wrote")]
    NotATarget(PathBuf, &'static str),
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
}

/// What a whole-file check found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScanReport {
    pub summary: VerifySummary,
    pub bytes: u64,
    /// Sectors stamped by the run being checked, in their place.
    pub run_sectors: u64,
    /// Sectors intact and in place from other runs under `--verify`.
    pub other_run_sectors: u64,
    /// Sectors with no stamp: never written under verification.
    pub unstamped_sectors: u64,
    /// Bytes the run's writes covered, as its mark says.
    pub written: Option<u64>,
    /// Whether the run's saved write state judged the sectors (lost, stale and torn writes
    /// named by offset).
    pub judged_by_state: bool,
    /// Sectors holding writes newer than the state (saved before a crash): not judged.
    pub newer_than_state: u64,
}

/// The id and written bytes of the run that wrote `path`: `id` when given, else its mark.
pub fn run_of(path: &Path, id: Option<u64>) -> Result<marker::VerifyMark, ScanError> {
    let mark = match marker::verified(path) {
        marker::Verified::ByEarlierFormat => return Err(ScanError::EarlierFormat(path.to_path_buf())),
        marker::Verified::By(mark) => Some(mark),
        marker::Verified::No => None,
    };
    match (id, mark) {
        (Some(id), Some(m)) if m.id == id => Ok(m),
        (Some(id), _) => Ok(marker::VerifyMark { id, written: None }),
        (None, Some(m)) => Ok(m),
        (None, None) => Err(ScanError::NotVerified(path.to_path_buf())),
    }
}

/// The run a check of `path` is for, and the saved state when it is that run's: `id` when
/// given, else the run the file's mark names, else the state's run (a device keeps no mark).
/// A state of another run is not used: its run's id comes back third, to be said.
pub fn run_and_state(
    path: &Path,
    id: Option<u64>,
    saved: Option<State>,
) -> Result<(marker::VerifyMark, Option<State>, Option<u64>), ScanError> {
    match (run_of(path, id), saved) {
        (Ok(mark), Some(s)) if s.run == mark.id => Ok((mark, Some(s), None)),
        (Ok(mark), other) => Ok((mark, None, other.map(|s| s.run))),
        (Err(ScanError::NotVerified(_)), Some(s)) => {
            Ok((marker::VerifyMark { id: s.run, written: None }, Some(s), None))
        }
        (Err(e), _) => Err(e),
    }
}

/// The bytes `path` holds, when it is a file or a block device: anything else (a character
/// device, a pipe, a socket, a directory) may never end, or holds nothing a run wrote.
pub fn size_of(path: &Path) -> Result<u64, ScanError> {
    let meta = std::fs::metadata(path).map_err(|e| ScanError::Io(path.to_path_buf(), e))?;
    let kind = meta.file_type();
    let not = |what| Err(ScanError::NotATarget(path.to_path_buf(), what));
    if kind.is_dir() {
        return not("a directory");
    }
    if kind.is_char_device() {
        return not("a character device, not storage a run writes");
    }
    if kind.is_fifo() || kind.is_socket() {
        return not("a pipe or socket, not storage a run writes");
    }
    crate::target::size_of(path).map_err(|e| ScanError::Io(path.to_path_buf(), std::io::Error::other(e.to_string())))
}

/// Reads all of `path` (directly from the device where the file system allows), no more than
/// it holds, and checks every sector as written by run `run`, against `state` when the run's
/// saved state is there.
pub fn scan(path: &Path, run: marker::VerifyMark, state: Option<&State>) -> Result<ScanReport, ScanError> {
    let size = size_of(path)?;
    let io_error = |e| ScanError::Io(path.to_path_buf(), e);
    let open = |flags| std::fs::OpenOptions::new().read(true).custom_flags(flags).open(path);
    let mut file = match open(libc::O_DIRECT) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => open(0).map_err(io_error)?,
        Err(e) => return Err(io_error(e)),
    };
    let pool = BufferPool::new(1, CHUNK);
    // SAFETY: the one slot is ours alone; nothing else reads or writes it.
    let buf = unsafe { pool.slot_mut(0) };
    let mut checker = Checker::new(path, run.id, state);
    let mut left = size;
    while left > 0 {
        let want = (left.next_multiple_of(SECTOR as u64)).min(CHUNK as u64) as usize;
        let n = read_full(&mut file, &mut buf[..want]).map_err(io_error)?;
        for sector in buf[..n - n % SECTOR].chunks_exact(SECTOR) {
            checker.sector(sector);
        }
        if n < want {
            break;
        }
        left = left.saturating_sub(n as u64);
    }
    Ok(checker.finish(run.written))
}

/// Fills `buf` unless the file ends first; the bytes read.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A sector's state as the torn-write check needs it.
#[derive(Clone, Copy)]
struct Seen {
    /// The run's generation there, if the run's stamp is there in place.
    generation: Option<u64>,
    /// Already reported.
    reported: bool,
}

struct Checker<'a> {
    target: &'a Path,
    run: u64,
    at: u64,
    report: ScanReport,
    /// Judging against the run's saved state, when it is there (it replaces the torn-write
    /// walk below: it knows every write, not only those whose sectors remain).
    against: Option<Against<'a>>,
    /// Sectors with no stamp where the state expects none either: nothing to check them
    /// against (without the state, every unstamped sector is such).
    unexpected_unstamped: u64,
    /// The last sectors, for writes whose first sectors came before the one that names them.
    recent: VecDeque<Seen>,
    /// Writes still being walked: (end, generation); each sector before the end must hold
    /// that generation or a later one.
    open: Vec<(u64, u64)>,
    /// The write the previous sector named.
    last_write: Option<(u64, u32, u64)>,
    /// A finding still growing sector by sector.
    pending: Option<Finding>,
}

impl<'a> Checker<'a> {
    fn new(target: &'a Path, run: u64, state: Option<&'a State>) -> Checker<'a> {
        let report = ScanReport {
            summary: VerifySummary { id: format!("{run:016x}"), ..VerifySummary::default() },
            judged_by_state: state.is_some(),
            ..ScanReport::default()
        };
        Checker {
            target,
            run,
            at: 0,
            report,
            against: state.map(Against::new),
            unexpected_unstamped: 0,
            recent: VecDeque::new(),
            open: Vec::new(),
            last_write: None,
            pending: None,
        }
    }

    fn sector(&mut self, bytes: &[u8]) {
        let at = self.at;
        let mut seen = Seen { generation: None, reported: false };
        let found = stamp::read(bytes, self.run);
        let held = match found {
            Sector::Damaged { .. } => {
                self.note(at, FindingKind::Corrupt, None, None, None);
                seen.reported = true;
                Held::Found
            }
            Sector::Stamped(s) if s.offset != at => {
                self.note(at, FindingKind::Misdirected, None, Some(s.generation), Some(s.offset));
                seen.reported = true;
                Held::Found
            }
            Sector::Unstamped => {
                self.report.unstamped_sectors += 1;
                Held::Nothing
            }
            Sector::Stamped(s) if s.run != self.run => {
                self.report.other_run_sectors += 1;
                Held::Nothing
            }
            Sector::Stamped(s) => {
                self.report.run_sectors += 1;
                seen.generation = Some(s.generation);
                if self.against.is_none() {
                    self.walk_write(s);
                }
                Held::Run(s.generation)
            }
        };
        if let Some(against) = &mut self.against {
            let expected = against.sector(at, held);
            self.unexpected_unstamped += u64::from(!expected && found == Sector::Unstamped);
            self.take_missing();
            self.at += SECTOR as u64;
            return;
        }
        // Inside a write seen earlier, the sector must hold that write or a later one.
        self.open.retain(|&(end, _)| end > at);
        let needed = self.open.iter().map(|&(_, g)| g).max();
        if let Some(needed) = needed.filter(|&g| !seen.reported && seen.generation.is_none_or(|have| have < g)) {
            self.note(at, FindingKind::Torn, Some(needed), seen.generation, None);
            seen.reported = true;
        }
        self.recent.push_back(seen);
        if self.recent.len() > LOOKBACK {
            self.recent.pop_front();
        }
        self.at += SECTOR as u64;
    }

    /// The first sector of a write seen: the write's sectors before it must hold it or later
    /// writes, and so must those after it, up to its end.
    fn walk_write(&mut self, s: Stamp) {
        let write = (s.write_start, s.write_len, s.generation);
        if self.last_write == Some(write) {
            return;
        }
        self.last_write = Some(write);
        let end = s.write_start + u64::from(s.write_len);
        self.open.push((end, s.generation));
        let before = ((self.at.saturating_sub(s.write_start)) as usize / SECTOR).min(self.recent.len());
        let first = self.recent.len() - before;
        for i in first..self.recent.len() {
            let seen = self.recent[i];
            if !seen.reported && seen.generation.is_none_or(|have| have < s.generation) {
                self.recent[i].reported = true;
                let offset = self.at - ((self.recent.len() - i) * SECTOR) as u64;
                self.note(offset, FindingKind::Torn, Some(s.generation), seen.generation, None);
            }
        }
    }

    /// Reports what judging against the state found missing.
    fn take_missing(&mut self) {
        let Some(mut missing) = self.against.as_mut().map(|a| std::mem::take(&mut a.missing)) else { return };
        for m in missing.drain(..) {
            self.note_bytes(m.offset, m.bytes, m.kind, Some(m.expected), m.found, None);
        }
        // The emptied buffer goes back, so judging allocates nothing per sector.
        if let Some(against) = &mut self.against {
            against.missing = missing;
        }
    }

    /// Reports one faulty sector, joined to the finding before it when it continues it.
    fn note(
        &mut self,
        offset: u64,
        kind: FindingKind,
        expected: Option<u64>,
        found: Option<u64>,
        meant_for: Option<u64>,
    ) {
        self.note_bytes(offset, SECTOR as u64, kind, expected, found, meant_for);
    }

    /// [`Self::note`] for a stretch of `bytes`.
    fn note_bytes(
        &mut self,
        offset: u64,
        bytes: u64,
        kind: FindingKind,
        expected: Option<u64>,
        found: Option<u64>,
        meant_for: Option<u64>,
    ) {
        if let Some(p) = &mut self.pending {
            let continues = p.kind == kind
                && p.offset + p.bytes == offset
                && p.expected_generation == expected
                && p.found_generation == found
                && p.meant_for_offset.map(|m| m + p.bytes) == meant_for;
            if continues {
                p.bytes += bytes;
                return;
            }
        }
        self.flush();
        self.pending = Some(Finding {
            target: self.target.to_path_buf(),
            offset,
            bytes,
            kind,
            expected_generation: expected,
            found_generation: found,
            meant_for_offset: meant_for,
        });
    }

    fn flush(&mut self) {
        if let Some(f) = self.pending.take() {
            self.report.summary.add_keeping(f, KEPT_FINDINGS_WHOLE);
        }
    }

    fn finish(mut self, written: Option<u64>) -> ScanReport {
        if let Some(against) = &mut self.against {
            against.beyond(self.at);
            self.report.newer_than_state = against.newer;
        }
        self.take_missing();
        self.flush();
        let report = &mut self.report;
        report.bytes = self.at;
        report.written = written;
        let unchecked = if report.judged_by_state { self.unexpected_unstamped } else { report.unstamped_sectors };
        report.summary.sectors_unchecked = unchecked;
        report.summary.sectors_checked = self.at / SECTOR as u64 - unchecked;
        report.summary.findings.sort_by_key(|f| f.offset);
        // Without the state, writes the run completed whose sectors are nowhere (not even
        // damaged) are counted lost, where is not known; the state names each.
        if let Some(w) = written.filter(|_| !report.judged_by_state) {
            let damaged = report.summary.faults.get(&FindingKind::Corrupt).copied().unwrap_or(0);
            let missing = (w / SECTOR as u64).saturating_sub(report.run_sectors + damaged);
            if missing > 0 {
                *report.summary.faults.entry(FindingKind::Lost).or_insert(0) += missing;
            }
        }
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::stamp::stamp_block;

    const RUN: u64 = 0xabc;

    /// A file image with writes laid down in order: (start, len, generation).
    fn image(size: usize, writes: &[(u64, usize, u64)]) -> Vec<u8> {
        let mut bytes: Vec<u8> = (0..size).map(|i| (i * 29 % 253) as u8).collect();
        for &(start, len, generation) in writes {
            let mut block = vec![7u8; len];
            stamp_block(
                &mut block,
                Stamp { run: RUN, offset: start, generation, write_start: start, write_len: len as u32 },
            );
            bytes[start as usize..start as usize + len].copy_from_slice(&block);
        }
        bytes
    }

    fn scan_image(bytes: &[u8], written: Option<u64>) -> ScanReport {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, bytes).unwrap();
        scan(&path, marker::VerifyMark { id: RUN, written }, None).unwrap()
    }

    fn kinds(r: &ScanReport) -> Vec<(FindingKind, u64, u64)> {
        r.summary.findings.iter().map(|f| (f.kind, f.offset, f.bytes)).collect()
    }

    const WRITES: [(u64, usize, u64); 3] = [(0, 8192, 1), (8192, 8192, 2), (4096, 8192, 3)];

    #[test]
    fn overlapping_writes_in_order_are_clean() {
        let r = scan_image(&image(32768, &WRITES), Some(16384));
        assert_eq!(kinds(&r), []);
        assert_eq!((r.run_sectors, r.unstamped_sectors, r.bytes), (32, 32, 32768));
        assert_eq!(r.summary.faulty_sectors(), 0);
    }

    #[test]
    fn tears_damage_misplacement_and_missing_writes_are_found() {
        // The last write's second half never landed: the second write is still there.
        let mut bytes = image(32768, &WRITES[..2]);
        let last = image(32768, &WRITES);
        bytes[4096..8192].copy_from_slice(&last[4096..8192]);
        let r = scan_image(&bytes, None);
        assert_eq!(kinds(&r), [(FindingKind::Torn, 8192, 4096)]);
        // The first half never landed: what it names comes after the sectors it should cover.
        let mut bytes = image(32768, &WRITES[..2]);
        bytes[8192..12288].copy_from_slice(&last[8192..12288]);
        assert_eq!(kinds(&scan_image(&bytes, None)), [(FindingKind::Torn, 4096, 4096)]);

        let mut bytes = image(32768, &WRITES);
        bytes[600] ^= 4;
        bytes[20480..24576].copy_from_slice(&last[0..4096]);
        let r = scan_image(&bytes, Some(16384 + 8192));
        assert_eq!(kinds(&r), [(FindingKind::Corrupt, 512, 512), (FindingKind::Misdirected, 20480, 4096)]);
        assert_eq!(r.summary.findings[1].meant_for_offset, Some(0));
        assert_eq!(r.summary.faults.get(&FindingKind::Lost), Some(&16), "writes the mark counts that are nowhere");
    }

    #[test]
    fn with_the_state_every_missing_write_is_named_even_past_the_end() {
        // The state knows a fourth write, over the last 8 KiB, that the file no longer holds
        // (it was cut short), and that write 3 (4096..12288) completed.
        let mut cells = vec![1, 3, 3, 2, 0, 0, 0, 0];
        cells.extend([9, 9]);
        let state = State {
            run: RUN,
            size: 40960,
            granule: 4096,
            next: 10,
            complete: true,
            saved_at: std::time::SystemTime::UNIX_EPOCH,
            cells,
        };
        let mut bytes = image(32768, &WRITES);
        bytes[8192..12288].fill(0);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, &bytes).unwrap();
        let r = scan(&path, marker::VerifyMark { id: RUN, written: None }, Some(&state)).unwrap();
        assert_eq!(kinds(&r), [(FindingKind::Torn, 8192, 4096), (FindingKind::Lost, 32768, 8192)]);
        assert_eq!(r.summary.findings[1].expected_generation, Some(9));
        assert!(r.judged_by_state);
        assert_eq!((r.summary.sectors_unchecked, r.summary.faulty_sectors()), (32, 24));
    }

    #[test]
    fn a_file_without_the_mark_is_refused_unless_the_id_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plain");
        std::fs::write(&path, [0u8; 4096]).unwrap();
        assert!(matches!(run_of(&path, None), Err(ScanError::NotVerified(_))));
        assert_eq!(run_of(&path, Some(5)).unwrap(), marker::VerifyMark { id: 5, written: None });
    }

    /// A file an earlier spindle stamped (its mark says version 1) holds stamps this version
    /// cannot check: every sector would read as lost, so the file is refused, even with --id.
    #[test]
    fn a_file_stamped_in_the_earlier_format_is_refused() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let path = dir.path().join("older");
        std::fs::write(&path, [0u8; 4096]).unwrap();
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        let value = "v1 id=00000000000000ff written=4096";
        // SAFETY: valid NUL-terminated strings and a buffer of the given length.
        let rc = unsafe {
            libc::setxattr(c.as_ptr(), c"user.spindle.verify".as_ptr(), value.as_ptr().cast(), value.len(), 0)
        };
        if rc != 0 {
            spindle_testenv::unavailable("user xattrs", std::io::Error::last_os_error());
            return;
        }
        assert!(matches!(run_of(&path, None), Err(ScanError::EarlierFormat(_))));
        assert!(matches!(run_of(&path, Some(255)), Err(ScanError::EarlierFormat(_))));
    }
}
