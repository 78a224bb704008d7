//! An engine's own count of the I/O it did on its files, SQL Server's `fn_virtualfilestats`
//! for the others: PostgreSQL's `pg_stat_wal` (and `pg_stat_io` where the server has it),
//! InnoDB's status counters, and spindle's counting VFS under SQLite. Figures an engine does
//! not give are `None`, and `missing` says why, so a report never shows a made-up zero.

use std::ops::Sub;

/// Cumulative counts for one kind of file. Each figure is `None` where the engine does not
/// count it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FileIo {
    pub reads: Option<u64>,
    pub bytes_read: Option<u64>,
    pub writes: Option<u64>,
    pub bytes_written: Option<u64>,
    pub syncs: Option<u64>,
    /// Time spent writing and syncing, where the engine times them.
    pub write_ns: Option<u64>,
    pub sync_ns: Option<u64>,
}

impl Sub for FileIo {
    type Output = FileIo;

    /// What happened between two readings (a counter reset reads as nothing, not a wrap).
    fn sub(self, before: FileIo) -> FileIo {
        let d = |a: Option<u64>, b: Option<u64>| Some(a?.saturating_sub(b?));
        FileIo {
            reads: d(self.reads, before.reads),
            bytes_read: d(self.bytes_read, before.bytes_read),
            writes: d(self.writes, before.writes),
            bytes_written: d(self.bytes_written, before.bytes_written),
            syncs: d(self.syncs, before.syncs),
            write_ns: d(self.write_ns, before.write_ns),
            sync_ns: d(self.sync_ns, before.sync_ns),
        }
    }
}

/// The log's and the data files' counts at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileStats {
    pub log: FileIo,
    pub data: FileIo,
    /// Where the figures come from (`pg_stat_wal`, `SHOW GLOBAL STATUS`, ...).
    pub source: String,
    /// Figures the engine does not give, each with the reason.
    pub missing: Vec<String>,
    /// What a figure means where it differs from what its name suggests.
    pub notes: Vec<String>,
    /// Checkpoints the engine has made, where it counts them (PostgreSQL's timed and
    /// requested ones).
    pub checkpoints: Option<u64>,
    /// What the log's write and byte counts are (`write() calls`, `WAL generated`), for the
    /// columns that show them.
    pub log_writes_are: &'static str,
    pub log_bytes_are: &'static str,
    /// WAL frames appended, where the engine's log is made of them (SQLite).
    pub log_frames: Option<u64>,
}

impl FileStats {
    /// What happened between `before` and this reading.
    pub fn since(&self, before: &FileStats) -> FileStats {
        FileStats {
            log: self.log - before.log,
            data: self.data - before.data,
            source: self.source.clone(),
            missing: self.missing.clone(),
            notes: self.notes.clone(),
            checkpoints: self.checkpoints.zip(before.checkpoints).map(|(a, b)| a.saturating_sub(b)),
            log_writes_are: self.log_writes_are,
            log_bytes_are: self.log_bytes_are,
            log_frames: self.log_frames.zip(before.log_frames).map(|(a, b)| a.saturating_sub(b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_keep_what_is_missing() {
        let a = FileIo { writes: Some(10), bytes_written: Some(4096), syncs: None, ..FileIo::default() };
        let b = FileIo { writes: Some(25), bytes_written: Some(12288), syncs: None, ..FileIo::default() };
        let d = b - a;
        assert_eq!((d.writes, d.bytes_written, d.syncs), (Some(15), Some(8192), None));
        assert_eq!((a - b).writes, Some(0), "a reset is not a wrap");
    }
}
