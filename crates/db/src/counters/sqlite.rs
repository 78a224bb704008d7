//! SQLite's counters: busy retries its sessions counted, and its WAL file's size.

use spindle_counters::CounterSource;

/// SQLite's figures: lock-wait retries of the run's sessions, and the WAL file's size.
pub struct SqliteCounters {
    wal: std::path::PathBuf,
    previous: Option<u64>,
}

impl SqliteCounters {
    pub fn new(path: &std::path::Path) -> SqliteCounters {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        SqliteCounters { wal: wal.into(), previous: None }
    }
}

impl CounterSource for SqliteCounters {
    fn paths(&self) -> Vec<String> {
        vec!["\\spindle:SQLite\\Busy retries/sec".into(), "\\spindle:SQLite\\WAL file bytes".into()]
    }

    fn read(&mut self, secs: f64) -> Vec<Option<f64>> {
        let now = crate::sqlite::busy_retries();
        let rate = self.previous.filter(|_| secs > 0.0).map(|p| now.saturating_sub(p) as f64 / secs);
        self.previous = Some(now);
        vec![rate, std::fs::metadata(&self.wal).ok().map(|m| m.len() as f64)]
    }
}
