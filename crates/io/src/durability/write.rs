//! `spindle durability write`: one write at a time to a random slot of the target, each
//! stamped like a `--verify` write (run, offset, generation, checksum), then a flush; every
//! write is said to the log before it is issued, and acknowledged there once the flush after it
//! returns. Whatever happens to the machine, the log then holds the writes the storage promised
//! to keep. One writer and one write in flight, as diskchecker does: the order of events in the
//! log is the order the storage saw them.

use super::log::{Event, Header};
use crate::engine::BufferPool;
use crate::rng::Rng;
use crate::target::marker::{self, VerifyMark};
use crate::verify::stamp::{self, Stamp};
use spindle_model::histogram::Histogram;
use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How the writer writes.
#[derive(Clone, Copy, Debug)]
pub struct WriteOptions {
    /// Writes between flushes (a group commit of this many), each to its own slot.
    pub writes_per_flush: u32,
    /// How long to write; None: until stopped (or the power goes).
    pub duration: Option<Duration>,
    /// O_DIRECT, so a write reaches the device before the flush (where the file system allows).
    pub direct: bool,
}

/// What the writer did.
#[derive(Clone, Debug, Default)]
pub struct WriteSummary {
    pub writes: u64,
    /// Writes a returned flush covered.
    pub acknowledged: u64,
    /// How long each flush took.
    pub flush_ns: Histogram,
    /// How long each write took (its pwrite alone).
    pub write_ns: Histogram,
    pub elapsed: Duration,
    /// Whether the writes bypassed the page cache.
    pub direct: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{path}: {why}")]
    Target { path: String, why: std::io::Error },
    #[error("the durability log stopped taking events ({0}): without it nothing can be checked, so the writer stopped")]
    Log(std::io::Error),
}

/// Writes to `target` until the duration ends or `stop` is set, saying every write to `log`.
/// The header must already be in the log. `progress` hears the summary about once a second.
pub fn run(
    target: &Path,
    header: &Header,
    options: &WriteOptions,
    log: &mut dyn Write,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&WriteSummary),
) -> Result<WriteSummary, WriteError> {
    let target_error = |why| WriteError::Target { path: target.display().to_string(), why };
    let (file, direct) = open(target, options.direct).map_err(target_error)?;
    // A file keeps the run's id, so `durability verify` can fetch its log by it; a file system
    // without user xattrs (or a device) cannot, and `--id` names the run instead.
    if file.metadata().is_ok_and(|m| m.is_file()) {
        let _ = marker::set_verified(target, VerifyMark { id: header.run, written: None });
    }
    let block = header.block as usize;
    let pool = BufferPool::new(1, block);
    // SAFETY: the one slot is this function's alone and no I/O holds it between calls.
    let buf = unsafe { &mut pool.slot_mut(0)[..block] };
    let mut rng = Rng::new(header.run);
    rng.fill(buf);
    let mut summary = WriteSummary { direct, ..WriteSummary::default() };
    let start = Instant::now();
    let mut next_progress = Duration::from_secs(1);
    let mut generation = 0u64;
    let mut said = String::with_capacity(64);
    let ended = loop {
        if stop.load(Ordering::Relaxed) {
            break true;
        }
        if options.duration.is_some_and(|d| start.elapsed() >= d) {
            break true;
        }
        for _ in 0..options.writes_per_flush.max(1) {
            generation += 1;
            let slot = rng.below(header.slots());
            let offset = slot * header.block;
            // Said before it is issued, together with the last flush's acknowledgement: one
            // message per write, and a write the log never heard of is never in flight.
            said.push_str(&Event::Issued { generation, slot }.to_string());
            log.write_all(said.as_bytes()).map_err(WriteError::Log)?;
            said.clear();
            stamp::stamp_block(
                buf,
                Stamp { run: header.run, offset, generation, write_start: offset, write_len: block as u32 },
            );
            let t0 = Instant::now();
            file.write_all_at(buf, offset).map_err(target_error)?;
            summary.write_ns.record(t0.elapsed().as_nanos() as u64);
            summary.writes += 1;
        }
        let t0 = Instant::now();
        flush(&file).map_err(target_error)?;
        summary.flush_ns.record(t0.elapsed().as_nanos() as u64);
        summary.acknowledged = summary.writes;
        said.push_str(&Event::Acknowledged { generation }.to_string());
        summary.elapsed = start.elapsed();
        if summary.elapsed >= next_progress {
            next_progress = summary.elapsed + Duration::from_secs(1);
            progress(&summary);
        }
    };
    if ended {
        said.push_str(&Event::Ended.to_string());
    }
    log.write_all(said.as_bytes()).and_then(|()| log.flush()).map_err(WriteError::Log)?;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

/// Opens the target for writing, directly where the file system allows it.
fn open(target: &Path, direct: bool) -> std::io::Result<(File, bool)> {
    let open = |flags| File::options().write(true).custom_flags(flags).open(target);
    if direct {
        match open(libc::O_DIRECT) {
            Ok(f) => return Ok((f, true)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
            Err(e) => return Err(e),
        }
    }
    Ok((open(0)?, false))
}

/// fdatasync: what a database's log flush does on Linux (PostgreSQL's default
/// wal_sync_method, InnoDB's log at innodb_flush_log_at_trx_commit=1); for a block device it
/// is the cache flush the device must honour.
fn flush(file: &File) -> std::io::Result<()> {
    loop {
        // SAFETY: fdatasync on a descriptor this function borrows.
        if unsafe { libc::fdatasync(file.as_raw_fd()) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::durability::log;

    #[test]
    fn every_write_is_said_before_it_is_issued_and_acknowledged_after_its_flush() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.dat");
        std::fs::write(&target, vec![0u8; 64 << 10]).unwrap();
        let header = Header { run: 77, block: 4096, size: 64 << 10, target: "t.dat".into() };
        let mut said = header.line().into_bytes();
        let options = WriteOptions { writes_per_flush: 3, duration: Some(Duration::from_millis(100)), direct: false };
        let summary = run(&target, &header, &options, &mut said, &AtomicBool::new(false), &mut |_| {}).unwrap();
        assert!(summary.writes >= 3 && summary.writes % 3 == 0, "{}", summary.writes);
        assert_eq!((summary.acknowledged, summary.flush_ns.count()), (summary.writes, summary.writes / 3));
        let parsed = log::parse(&said).unwrap();
        assert_eq!((parsed.last_acked, parsed.last_issued, parsed.ended), (summary.writes, summary.writes, true));
        // Each slot holds the newest generation acknowledged there, stamped in every sector.
        let data = std::fs::read(&target).unwrap();
        for (slot, s) in &parsed.slots {
            let at = (*slot * 4096) as usize;
            for sector in data[at..at + 4096].chunks(stamp::SECTOR) {
                let stamp::Sector::Stamped(found) = stamp::read(sector, 77) else { panic!("slot {slot}") };
                assert_eq!((found.run, found.generation), (77, s.acked));
            }
        }
    }
}
