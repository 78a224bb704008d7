//! Real io_uring on real files. Files live under the crate directory, not /tmp: tmpfs has no
//! O_DIRECT, and the direct-I/O path is the one that matters.

use super::*;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;

const BLOCK: usize = 4096;

/// io_uring can be disabled (sysctl, seccomp in containers); then there is nothing to test.
fn available() -> bool {
    match probe() {
        Ok(()) => true,
        Err(why) => {
            spindle_testenv::unavailable("io_uring", why);
            false
        }
    }
}

/// A file of `blocks` 4 KiB blocks, block `i` filled with the byte `i + 1`.
fn patterned_file(dir: &tempfile::TempDir, blocks: usize) -> std::path::PathBuf {
    let path = dir.path().join("data");
    let mut file = File::create(&path).unwrap();
    for i in 0..blocks {
        file.write_all(&[(i + 1) as u8; BLOCK]).unwrap();
    }
    file.sync_all().unwrap();
    path
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap()
}

fn open(path: &std::path::Path, direct: bool, write: bool) -> File {
    let flags = if direct { libc::O_DIRECT } else { 0 };
    OpenOptions::new().read(true).write(write).custom_flags(flags).open(path).unwrap()
}

fn read(slot: u32, offset: u64, len: u32) -> IoRequest {
    IoRequest { slot, kind: OpKind::Read, offset, len }
}

fn reap_all(engine: &mut UringEngine<'_>, n: usize) -> Vec<Completion> {
    let mut out = Vec::new();
    while out.len() < n {
        engine.reap(n - out.len(), None, &mut out, ()).unwrap();
    }
    out
}

fn reads_return_file_bytes(direct: bool) {
    let dir = scratch();
    let path = patterned_file(&dir, 8);
    let file = open(&path, direct, false);
    let pool = BufferPool::new(4, BLOCK);
    let mut engine = UringEngine::open(EngineTarget { fd: file.as_raw_fd(), buffers: &pool, depth: 4 }).unwrap();
    let blocks = [5u64, 0, 7, 2];
    let requests: Vec<IoRequest> =
        blocks.iter().enumerate().map(|(slot, b)| read(slot as u32, b * BLOCK as u64, BLOCK as u32)).collect();
    engine.submit(&requests).unwrap();
    let mut out = reap_all(&mut engine, 4);
    out.sort_by_key(|c| c.slot);
    for (slot, block) in blocks.iter().enumerate() {
        assert_eq!(out[slot], Completion { slot: slot as u32, result: BLOCK as i32 });
        // SAFETY: the slot's read has completed.
        let buf = unsafe { pool.slot_mut(slot as u32) };
        assert!(buf.iter().all(|b| *b == (*block + 1) as u8), "slot {slot} holds block {block}");
    }
}

#[test]
fn direct_reads_return_the_files_bytes() {
    if available() {
        reads_return_file_bytes(true);
    }
}

#[test]
fn buffered_reads_return_the_files_bytes() {
    if available() {
        reads_return_file_bytes(false);
    }
}

#[test]
fn writes_land_and_flush_succeeds() {
    if !available() {
        return;
    }
    let dir = scratch();
    let path = patterned_file(&dir, 4);
    let file = open(&path, true, true);
    let pool = BufferPool::new(2, BLOCK);
    // SAFETY: nothing is in flight.
    unsafe { pool.slot_mut(0) }.fill(0xab);
    let mut engine = UringEngine::open(EngineTarget { fd: file.as_raw_fd(), buffers: &pool, depth: 2 }).unwrap();
    engine.submit(&[IoRequest { slot: 0, kind: OpKind::Write, offset: 2 * BLOCK as u64, len: BLOCK as u32 }]).unwrap();
    assert_eq!(reap_all(&mut engine, 1), vec![Completion { slot: 0, result: BLOCK as i32 }]);
    engine.submit(&[IoRequest { slot: 1, kind: OpKind::Flush, offset: 0, len: 0 }]).unwrap();
    assert_eq!(reap_all(&mut engine, 1), vec![Completion { slot: 1, result: 0 }]);
    let contents = std::fs::read(&path).unwrap();
    assert!(contents[2 * BLOCK..3 * BLOCK].iter().all(|b| *b == 0xab));
    assert!(contents[BLOCK..2 * BLOCK].iter().all(|b| *b == 2), "neighbouring block untouched");
}

#[test]
fn deep_batches_complete_exactly_once() {
    if !available() {
        return;
    }
    let dir = scratch();
    let path = patterned_file(&dir, 256);
    let file = open(&path, true, false);
    let depth = 32u32;
    let pool = BufferPool::new(depth as usize, BLOCK);
    let mut engine = UringEngine::open(EngineTarget { fd: file.as_raw_fd(), buffers: &pool, depth }).unwrap();
    for round in 0..20u64 {
        let requests: Vec<IoRequest> =
            (0..depth).map(|slot| read(slot, (round * 7 + slot as u64) % 256 * BLOCK as u64, BLOCK as u32)).collect();
        engine.submit(&requests).unwrap();
        let mut out = Vec::new();
        while out.len() < depth as usize {
            engine.reap(1, None, &mut out, ()).unwrap();
        }
        assert_eq!(out.len(), depth as usize, "no completion is reported twice");
        let slots: HashSet<u32> = out.iter().map(|c| c.slot).collect();
        assert_eq!(slots.len(), depth as usize, "every slot completes once");
        assert!(out.iter().all(|c| c.result == BLOCK as i32));
    }
}

#[test]
fn more_requests_than_the_ring_holds_are_all_submitted() {
    if !available() {
        return;
    }
    let dir = scratch();
    let path = patterned_file(&dir, 4);
    let file = open(&path, false, false);
    let pool = BufferPool::new(1, BLOCK);
    // A depth-1 ring has 2 SQ entries; 16 requests force submits while pushing.
    let mut engine = UringEngine::open(EngineTarget { fd: file.as_raw_fd(), buffers: &pool, depth: 1 }).unwrap();
    let requests: Vec<IoRequest> = (0..16).map(|i| read(0, (i % 4) * BLOCK as u64, BLOCK as u32)).collect();
    engine.submit(&requests).unwrap();
    let out = reap_all(&mut engine, 16);
    assert_eq!(out.len(), 16);
    assert!(out.iter().all(|c| c.result == BLOCK as i32));
}

#[test]
fn read_beyond_end_returns_zero() {
    if !available() {
        return;
    }
    let dir = scratch();
    let path = patterned_file(&dir, 2);
    let file = open(&path, true, false);
    let pool = BufferPool::new(1, BLOCK);
    let mut engine = UringEngine::open(EngineTarget { fd: file.as_raw_fd(), buffers: &pool, depth: 1 }).unwrap();
    engine.submit(&[read(0, 4 * BLOCK as u64, BLOCK as u32)]).unwrap();
    assert_eq!(reap_all(&mut engine, 1), vec![Completion { slot: 0, result: 0 }]);
}

#[test]
fn errors_come_back_as_negative_results() {
    if !available() {
        return;
    }
    let dir = scratch();
    let path = patterned_file(&dir, 2);
    let file = open(&path, true, false);
    let pool = BufferPool::new(2, BLOCK);
    let mut engine = UringEngine::open(EngineTarget { fd: file.as_raw_fd(), buffers: &pool, depth: 2 }).unwrap();
    // Misaligned offset under O_DIRECT, and a write to a read-only descriptor.
    engine
        .submit(&[read(0, 100, BLOCK as u32), IoRequest { slot: 1, kind: OpKind::Write, offset: 0, len: BLOCK as u32 }])
        .unwrap();
    let mut out = reap_all(&mut engine, 2);
    out.sort_by_key(|c| c.slot);
    assert_eq!(out, vec![Completion { slot: 0, result: -libc::EINVAL }, Completion { slot: 1, result: -libc::EBADF }]);
}

#[test]
fn buffers_are_registered() {
    if !available() {
        return;
    }
    let dir = scratch();
    let path = patterned_file(&dir, 1);
    let file = open(&path, true, false);
    let pool = BufferPool::new(32, BLOCK);
    let engine = UringEngine::open(EngineTarget { fd: file.as_raw_fd(), buffers: &pool, depth: 32 }).unwrap();
    // 128 KiB is far below any default RLIMIT_MEMLOCK (and root is exempt).
    assert!(engine.uses_fixed_buffers());
}

#[test]
fn a_timed_reap_returns_when_nothing_completes() {
    if !available() {
        return;
    }
    let dir = scratch();
    let path = patterned_file(&dir, 2);
    let file = open(&path, true, false);
    let pool = BufferPool::new(1, BLOCK);
    let mut engine = UringEngine::open(EngineTarget { fd: file.as_raw_fd(), buffers: &pool, depth: 1 }).unwrap();
    if !engine.timed_wait {
        spindle_testenv::unavailable(
            "a timed io_uring wait",
            "this kernel's io_uring_enter takes no timeout (before 5.11)",
        );
        return;
    }
    let mut out = Vec::new();
    // Nothing in flight: only the timeout can end the wait, and its passing is not an error.
    engine.reap(1, Some(std::time::Duration::from_millis(1)), &mut out, ()).unwrap();
    assert!(out.is_empty());
    engine.submit(&[read(0, 0, BLOCK as u32)]).unwrap();
    while out.is_empty() {
        engine.reap(1, Some(std::time::Duration::from_millis(1)), &mut out, ()).unwrap();
    }
    assert_eq!(out, vec![Completion { slot: 0, result: BLOCK as i32 }]);
}

/// What a caller heard, in order, with `kept` pieces of work to do when idle.
#[derive(Default)]
struct Listener {
    heard: Vec<Heard>,
    kept: usize,
}

#[derive(Debug, PartialEq)]
enum Heard {
    Handing(Vec<u32>),
    Idle,
}

impl Handoff for &mut Listener {
    fn handing(&mut self, slots: &[u32]) {
        self.heard.push(Heard::Handing(slots.to_vec()));
    }

    fn keeps_work(&self) -> bool {
        self.kept > 0
    }

    fn idle(&mut self) -> bool {
        if self.kept == 0 {
            return false;
        }
        self.kept -= 1;
        self.heard.push(Heard::Idle);
        true
    }
}

/// Four reads on `file`, reaped with `kept` pieces of idle work; what the caller heard.
fn reap_four(file: &File, kept: usize) -> Listener {
    let pool = BufferPool::new(4, BLOCK);
    let mut engine = UringEngine::open(EngineTarget { fd: file.as_raw_fd(), buffers: &pool, depth: 4 }).unwrap();
    let requests: Vec<IoRequest> = [2u32, 0, 3, 1].iter().map(|&slot| read(slot, 0, BLOCK as u32)).collect();
    engine.submit(&requests).unwrap();
    let (mut out, mut listener) = (Vec::new(), Listener { kept, ..Listener::default() });
    while out.len() < 4 {
        engine.reap(4 - out.len(), None, &mut out, &mut listener).unwrap();
    }
    listener
}

/// Each I/O is announced once, in order, just before its own hand-off. Work the caller keeps
/// (a verified run's read checks) is done only once the kernel holds every I/O but the last
/// (which goes with the wait), and never while a completion waits: a buffered read of a file
/// just written completes inside its own enter, so with those no idle moment comes at all.
#[test]
fn each_io_is_announced_before_its_hand_off_and_kept_work_waits_for_an_idle_moment() {
    if !available() {
        return;
    }
    let dir = scratch();
    let path = patterned_file(&dir, 8);
    use Heard::*;
    let each = vec![Handing(vec![2]), Handing(vec![0]), Handing(vec![3]), Handing(vec![1])];
    // Nothing kept: the last I/O goes with the wait, announced as before.
    assert_eq!(reap_four(&open(&path, true, false), 0).heard, each);
    // Work kept: every hand-off but the last first, then at most the work kept, in idle
    // moments, then the last.
    let direct = reap_four(&open(&path, true, false), 3);
    let handings: Vec<&Heard> = direct.heard.iter().filter(|h| **h != Idle).collect();
    assert_eq!(handings, each.iter().collect::<Vec<_>>());
    assert_eq!(direct.heard[..3], each[..3], "work before the kernel held the first three");
    assert_eq!(direct.kept + direct.heard.len() - 4, 3);
    let cached = reap_four(&open(&path, false, false), 3);
    assert_eq!((cached.heard, cached.kept), (each, 3), "completions were waiting: no idle moment");
}
