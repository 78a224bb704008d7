//! A verified run's write state on disk: each granule's last completed generation (the
//! generation map's cells), saved beside the target while the run goes and once at its end,
//! so that `spindle verify` knows what should be where, even after a crash: a write that is
//! nowhere (lost), an older write where a later one completed (stale) or a write only partly
//! there (torn) is then named by its offset.
//!
//! The file is spindle's own (`<target>.spindle-verify-state`; for a block device, in the
//! directory the run was started from): it starts with a magic spindle alone writes, so a
//! file of anyone else's found at that path is never replaced. It is replaced whole each
//! time (a temporary file, synced, renamed over it), so a crash leaves the last save or the
//! one before it, never half of one.
//!
//! Layout (little-endian): magic, version (u32), flags (u32; bit 0: saved after the run's
//! last write ended), run id, target size, granule, next generation, save time (Unix
//! seconds), cell count (u64 each); the cells (u32 each, as `Expected::of_cell` reads them);
//! an XXH3 of everything before it.

use super::map::Expected;
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};
use thiserror::Error;

/// What the state's file name adds to the target's.
pub const SUFFIX: &str = ".spindle-verify-state";
const MAGIC: [u8; 8] = *b"SPNDLVST";
const VERSION: u32 = 1;
const HEADER: usize = 64;
const COMPLETE: u32 = 1;

#[derive(Debug, Error)]
pub enum StateError {
    #[error(
        "{0} is where the run's verification state goes, and is not spindle's: it is left alone; move it (for a block device's state, or run from another directory)"
    )]
    NotOurs(PathBuf),
    #[error("{0}: a verification state that is damaged ({1}); move it away to check the target from its stamps alone")]
    Damaged(PathBuf, &'static str),
    #[error("{0}: a verification state of a later spindle (format {1}); check the target with that spindle")]
    LaterFormat(PathBuf, u32),
    #[error("cannot save the verification state {0}: {1}")]
    Io(PathBuf, std::io::Error),
}

impl StateError {
    /// Whether the state could not be saved because its filesystem is full.
    pub fn is_out_of_space(&self) -> bool {
        matches!(self, StateError::Io(_, e) if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)))
    }
}

/// A saved state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// The run's verification id.
    pub run: u64,
    /// Bytes of the target the run covered.
    pub size: u64,
    pub granule: u64,
    /// The generation counter when the cells were copied: writes numbered from it on were
    /// issued after this save, and may have completed before a crash without being in it.
    pub next: u64,
    /// Saved after the run's last write ended: every write it completed is in it.
    pub complete: bool,
    pub saved_at: SystemTime,
    /// The generation map's cells, raw (`Expected::of_cell`).
    pub cells: Vec<u32>,
}

impl State {
    /// What the granule holding `offset` should hold, and whether an I/O was in flight on it
    /// when the state was saved; `Never` beyond the run's size.
    pub fn cell(&self, offset: u64) -> (Expected, bool) {
        self.cells.get((offset / self.granule) as usize).map_or((Expected::Never, false), |&raw| Expected::of_cell(raw))
    }

    /// The full generation a cell's (modulo 2^31) value stands for: the latest one below
    /// `next` it can be. Only for reports: judging compares modulo 2^31, as the map keeps it.
    pub fn generation(&self, cell: u32) -> u64 {
        let below = self.next.saturating_sub(1);
        below.checked_sub(below.wrapping_sub(u64::from(cell)) & 0x7fff_ffff).unwrap_or(u64::from(cell))
    }

    /// Writes the state to `path`: a temporary file beside it, synced, then renamed over it
    /// and the directory synced, so a crash leaves one whole save. `buf` is reused between
    /// saves. Fails with `NotOurs` when a file of someone else's is at either path.
    pub fn save(&self, path: &Path, buf: &mut Vec<u8>) -> Result<(), StateError> {
        let tmp = temporary(path);
        ours_or_absent(path)?;
        ours_or_absent(&tmp)?;
        let io = |e| StateError::Io(path.to_path_buf(), e);
        self.encode(buf);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
            .map_err(io)?;
        let written = file.write_all(buf).and_then(|()| file.sync_data()).and_then(|()| std::fs::rename(&tmp, path));
        if let Err(e) = written {
            // Half a save is of no use to anyone (a full disk leaves one): only the last whole
            // save is left behind.
            let _ = std::fs::remove_file(&tmp);
            return Err(io(e));
        }
        // The rename itself must survive a power cut, or the directory still names the last.
        std::fs::File::open(directory(path)).and_then(|d| d.sync_all()).map_err(io)
    }

    fn encode(&self, buf: &mut Vec<u8>) {
        buf.clear();
        buf.extend_from_slice(&MAGIC);
        buf.extend_from_slice(&VERSION.to_le_bytes());
        buf.extend_from_slice(&(if self.complete { COMPLETE } else { 0 }).to_le_bytes());
        let saved_at = self.saved_at.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        for v in [self.run, self.size, self.granule, self.next, saved_at, self.cells.len() as u64] {
            buf.extend_from_slice(&v.to_le_bytes());
        }
        buf.reserve(self.cells.len() * 4 + 8);
        for c in &self.cells {
            buf.extend_from_slice(&c.to_le_bytes());
        }
        let sum = twox_hash::XxHash3_64::oneshot(buf);
        buf.extend_from_slice(&sum.to_le_bytes());
    }

    /// The state saved at `path`, or None when there is none.
    pub fn load(path: &Path) -> Result<Option<State>, StateError> {
        if !ours_or_absent(path)? {
            return Ok(None);
        }
        let bytes = std::fs::read(path).map_err(|e| StateError::Io(path.to_path_buf(), e))?;
        decode(&bytes).map(Some).map_err(|e| match e {
            Decode::Damaged(why) => StateError::Damaged(path.to_path_buf(), why),
            Decode::Later(v) => StateError::LaterFormat(path.to_path_buf(), v),
        })
    }
}

enum Decode {
    Damaged(&'static str),
    Later(u32),
}

fn decode(bytes: &[u8]) -> Result<State, Decode> {
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    if bytes.len() < HEADER + 8 {
        return Err(Decode::Damaged("shorter than its header"));
    }
    if u32_at(8) > VERSION {
        return Err(Decode::Later(u32_at(8)));
    }
    let (run, size, granule, next, saved_at, count) =
        (u64_at(16), u64_at(24), u64_at(32), u64_at(40), u64_at(48), u64_at(56));
    let cells_end = count.checked_mul(4).and_then(|n| n.checked_add(HEADER as u64));
    if cells_end != Some(bytes.len() as u64 - 8) {
        return Err(Decode::Damaged("its length is not what its header says"));
    }
    let body = &bytes[..bytes.len() - 8];
    if twox_hash::XxHash3_64::oneshot(body) != u64_at(bytes.len() - 8) {
        return Err(Decode::Damaged("its checksum fails"));
    }
    if granule == 0 || granule % 512 != 0 || size.div_ceil(granule) != count {
        return Err(Decode::Damaged("its granule and size do not fit its cells"));
    }
    let cells = body[HEADER..].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
    Ok(State {
        run,
        size,
        granule,
        next,
        complete: u32_at(12) & COMPLETE != 0,
        saved_at: SystemTime::UNIX_EPOCH + Duration::from_secs(saved_at),
        cells,
    })
}

/// Where the state of a run on `target` is kept: beside a file; for a block device (whose
/// directory is /dev), in the current directory, named after the device.
pub fn path_for(target: &Path) -> PathBuf {
    let device = std::fs::metadata(target).is_ok_and(|m| m.file_type().is_block_device());
    if device {
        // /dev/disk/by-id/... and /dev/sdb are one device, one state.
        let real = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
        let name = real.file_name().map_or_else(|| "device".into(), |n| n.to_string_lossy().into_owned());
        return PathBuf::from(format!("{name}{SUFFIX}"));
    }
    let mut name = target.as_os_str().to_os_string();
    name.push(SUFFIX);
    PathBuf::from(name)
}

/// Removes the state of a run on `target` when one of spindle's is there: the target was removed, or
/// written since without `--verify`, and the state would say the run's writes are lost.
pub fn remove_for(target: &Path) -> Result<(), StateError> {
    let path = path_for(target);
    // Anything else at that path is someone else's, and stays.
    if ours_or_absent(&path).unwrap_or(false) {
        std::fs::remove_file(&path).map_err(|e| StateError::Io(path.clone(), e))?;
    }
    Ok(())
}

fn temporary(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".tmp");
    PathBuf::from(name)
}

fn directory(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// True when a state of spindle's is at `path`, false when nothing is; `NotOurs` for
/// anything else (a link, a directory, a file not starting with the magic). An empty file is
/// spindle's only as the temporary one, which a crash can leave empty.
fn ours_or_absent(path: &Path) -> Result<bool, StateError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(StateError::Io(path.to_path_buf(), e)),
    };
    let not_ours = || StateError::NotOurs(path.to_path_buf());
    if !meta.is_file() {
        return Err(not_ours());
    }
    if meta.len() == 0 && path.as_os_str().as_encoded_bytes().ends_with(b".tmp") {
        return Ok(true);
    }
    let mut magic = [0u8; 8];
    let read = std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic));
    if read.is_err() || magic != MAGIC {
        return Err(not_ours());
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> State {
        State {
            run: 0xabc,
            size: 40960,
            granule: 4096,
            next: 9,
            complete: true,
            saved_at: SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
            cells: vec![0, 3, 8 | 1 << 31, 0x7fff_ffff, 5, 0, 0, 0, 0, 1],
        }
    }

    #[test]
    fn a_saved_state_loads_as_it_was_and_replaces_its_predecessor() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("t.dat{SUFFIX}"));
        assert_eq!(State::load(&path).unwrap(), None);
        let mut buf = Vec::new();
        let mut s = state();
        s.save(&path, &mut buf).unwrap();
        assert_eq!(State::load(&path).unwrap(), Some(s.clone()));
        s.next = 12;
        s.save(&path, &mut buf).unwrap();
        assert_eq!(State::load(&path).unwrap().unwrap().next, 12);
        assert!(!temporary(&path).exists());
        assert_eq!(s.cell(4096), (Expected::Written(3), false));
        assert_eq!(s.cell(8192 + 511), (Expected::Written(8), true));
        assert_eq!(s.cell(12288), (Expected::Unknown, false));
        assert_eq!(s.cell(1 << 20), (Expected::Never, false));
    }

    #[test]
    fn anything_not_spindles_is_left_alone_and_damage_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x");
        std::fs::write(&path, b"the user's notes").unwrap();
        assert!(matches!(state().save(&path, &mut Vec::new()), Err(StateError::NotOurs(_))));
        assert!(matches!(State::load(&path), Err(StateError::NotOurs(_))));
        assert_eq!(std::fs::read(&path).unwrap(), b"the user's notes");
        std::fs::create_dir(dir.path().join("d")).unwrap();
        assert!(matches!(State::load(&dir.path().join("d")), Err(StateError::NotOurs(_))));

        let path = dir.path().join("s");
        state().save(&path, &mut Vec::new()).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER + 5] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(State::load(&path), Err(StateError::Damaged(_, "its checksum fails"))));
        std::fs::write(&path, &bytes[..HEADER]).unwrap();
        assert!(matches!(State::load(&path), Err(StateError::Damaged(..))));
        // A leftover empty temporary file (a crash as it was made) is spindle's.
        std::fs::write(temporary(&path), b"").unwrap();
        state().save(&path, &mut Vec::new()).unwrap();
    }

    #[test]
    fn a_cell_stands_for_the_latest_generation_below_the_counter() {
        let mut s = state();
        s.next = 1 << 33;
        assert_eq!(s.generation(5), (1 << 33) - (1 << 31) + 5);
        s.next = 100;
        assert_eq!(s.generation(99), 99);
        assert_eq!(s.generation(7), 7);
        assert_eq!(s.generation(0x7fff_fff0), 0x7fff_fff0, "a counter below the cell: a damaged state, not a panic");
    }

    #[test]
    fn a_device_keeps_its_state_in_the_current_directory_and_a_file_beside_itself() {
        assert_eq!(path_for(Path::new("/d/v.dat")), PathBuf::from(format!("/d/v.dat{SUFFIX}")));
        if Path::new("/dev/loop0").exists() && std::fs::metadata("/dev/loop0").unwrap().file_type().is_block_device() {
            assert_eq!(path_for(Path::new("/dev/loop0")), PathBuf::from(format!("loop0{SUFFIX}")));
        }
    }
}
