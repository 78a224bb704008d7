//! What the records of database workloads carry beside their statistics: the unit a run
//! counts, and the figures of the experiments that are not rates of operations (the log
//! test's `io_results` row).

use serde::{Deserialize, Serialize};

/// What a run's operations are: its `ios`, `iops` and latencies are of these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Counts {
    /// I/Os issued to a device or file (`io`, `suite`).
    #[default]
    Ios,
    /// Calls of a workload's procedures (`hammer`).
    Calls,
    /// Rows inserted, loaded or processed (`hammer-load`, `logtest`, `largeops`).
    Rows,
}

impl Counts {
    /// The rate's name, as the text report prints it.
    pub fn per_sec(self) -> &'static str {
        match self {
            Counts::Ios => "IOs/sec",
            Counts::Calls => "calls/sec",
            Counts::Rows => "rows/sec",
        }
    }

    /// One operation's name (`12.5 us per call`).
    pub fn one(self) -> &'static str {
        match self {
            Counts::Ios => "I/O",
            Counts::Calls => "call",
            Counts::Rows => "row",
        }
    }

    /// The operations' plural name.
    pub fn plural(self) -> &'static str {
        match self {
            Counts::Ios => "I/Os",
            Counts::Calls => "calls",
            Counts::Rows => "rows",
        }
    }
}

/// One transaction size of the log test, with the columns of the original article's
/// `io_results` table (named as there), taken from the engine's own log statistics; a figure
/// the engine does not give is absent, and `missing` says why. The columns a report leads
/// with are `lead()`'s: the log volume's own where the log has a volume to itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LogTestFigures {
    /// Rows committed together.
    pub transaction_size: u64,
    pub rows: u64,
    pub commits: u64,
    /// Bytes of each row's payload.
    pub row_bytes: u64,
    pub log_write_ios: Option<u64>,
    pub log_bytes_written: Option<u64>,
    pub log_syncs: Option<u64>,
    pub ios_per_row: Option<f64>,
    pub ios_per_transaction: Option<f64>,
    pub bytes_per_io: Option<f64>,
    /// Log bytes written per second, decimal MB.
    pub mb_per_sec: Option<f64>,
    pub duration_s: f64,
    /// Mean time of a log write and of a log sync, where the engine times them.
    pub log_write_ms: Option<f64>,
    pub log_sync_ms: Option<f64>,
    /// What the volume holding the log did over the same time, from /proc/diskstats.
    pub device: Option<DeviceIo>,
    /// Whether that volume is the log's own (nothing else of the engine's, nor the root
    /// filesystem, on it), so its figures are the log's and lead.
    #[serde(default)]
    pub own_volume: bool,
    /// Why the engine's counters lead instead of the volume's (the volume is shared, or there
    /// is none here); absent where the volume leads.
    #[serde(default)]
    pub engine_leads: Option<String>,
    /// What the engine's write and byte counts are (`write() calls`, `WAL generated`), as
    /// the table heads them; empty in records from before they were named.
    #[serde(default)]
    pub log_writes_are: String,
    #[serde(default)]
    pub log_bytes_are: String,
    /// WAL frames SQLite appended (a frame is a page and its header).
    #[serde(default)]
    pub log_frames: Option<u64>,
    /// Where the figures come from (`pg_stat_wal`, ...).
    pub source: String,
    /// Figures the engine does not give, each with the reason.
    pub missing: Vec<String>,
    /// What a figure means where it differs from its name (PostgreSQL's WAL bytes are those
    /// generated, not written).
    pub notes: Vec<String>,
}

/// One of the large operations (load, scan, update, checkpoint) of "Performance impact of
/// controller cache: SQL Server large operations", with the I/O sizes its volumes saw.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LargeOpFigures {
    /// `load`, `scan`, `update` or `checkpoint`.
    pub operation: String,
    pub rows: u64,
    pub seconds: f64,
    /// Rows a load commits together.
    pub batch: u64,
    /// Whether the scan read from the device: caches emptied (the engine's by a restart of a
    /// managed instance, the OS's page cache) before it. Only the scan has one.
    pub cold: Option<bool>,
    /// Why the scan is cold, or why it is warm.
    pub cold_why: Option<String>,
    /// What each volume under the engine's data and log did during the operation.
    pub volumes: Vec<DeviceIo>,
    /// Automatic checkpoints the engine made during the operation, where it counts them.
    pub automatic_checkpoints: Option<u64>,
}

/// A block device's own counts over a span: what reached the volume.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceIo {
    /// Kernel name (`loop0`, `vda1`).
    pub device: String,
    pub reads: u64,
    pub bytes_read: u64,
    pub writes: u64,
    pub bytes_written: u64,
    /// Flush requests completed (absent before kernel 5.5, and in older records).
    #[serde(default)]
    pub flushes: Option<u64>,
    /// Time-weighted milliseconds of I/O in the queue (/proc/diskstats' weighted time), and
    /// the span's length, whose ratio is the mean queue length.
    #[serde(default)]
    pub queue_ms: Option<u64>,
    #[serde(default)]
    pub seconds: Option<f64>,
    /// Of `writes`, those of no bytes the kernel counted for flushes (kernels of the 6 series
    /// count a flush as a write too); `None` where not known.
    #[serde(default)]
    pub empty_writes: Option<u64>,
}

impl DeviceIo {
    /// The mean number of I/Os queued or in service over the span, as perfmon's Avg. Disk
    /// Queue Length.
    pub fn queue(&self) -> Option<f64> {
        match (self.queue_ms, self.seconds) {
            (Some(ms), Some(s)) if s > 0.0 => Some(ms as f64 / (s * 1000.0)),
            _ => None,
        }
    }

    /// Average bytes a read and a write, as perfmon's Avg. Disk Bytes/Read and /Write.
    pub fn bytes_per_read(&self) -> Option<f64> {
        (self.reads > 0).then(|| self.bytes_read as f64 / self.reads as f64)
    }

    pub fn bytes_per_write(&self) -> Option<f64> {
        let n = self.data_writes();
        (n > 0).then(|| self.bytes_written as f64 / n as f64)
    }

    /// The writes that carried data: the writes less the flushes counted among them.
    pub fn data_writes(&self) -> u64 {
        self.writes.saturating_sub(self.empty_writes.unwrap_or(0))
    }

    /// Says whether this kernel counts each flush as a write too (`None`: not known), so the
    /// flushes among the writes are known.
    pub fn flushes_counted_as_writes(mut self, counted: Option<bool>) -> DeviceIo {
        self.empty_writes = match counted {
            Some(true) => self.flushes,
            Some(false) => Some(0),
            None => None,
        };
        self
    }
}

/// The columns a log test leads with: the log volume's own where the log has one to itself,
/// otherwise the engine's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LogLead {
    /// The volume the figures are from (`loop3`); `None` where they are the engine's.
    pub volume: Option<String>,
    pub writes: Option<u64>,
    pub bytes: Option<u64>,
    pub bytes_per_write: Option<f64>,
    pub writes_per_transaction: Option<f64>,
    /// Decimal MB written per second of the transactions.
    pub mb_per_sec: Option<f64>,
    /// The volume's flush requests, or the engine's syncs.
    pub flushes: Option<u64>,
    /// The volume's mean queue; the engine's counters have none.
    pub queue: Option<f64>,
}

impl LogTestFigures {
    /// The leading columns: the volume's where it is the log's own, else the engine's.
    pub fn lead(&self) -> LogLead {
        match self.device.as_ref().filter(|_| self.own_volume) {
            Some(d) => LogLead {
                volume: Some(d.device.clone()),
                writes: Some(d.data_writes()),
                bytes: Some(d.bytes_written),
                bytes_per_write: d.bytes_per_write(),
                writes_per_transaction: (self.commits > 0).then(|| d.data_writes() as f64 / self.commits as f64),
                mb_per_sec: (self.duration_s > 0.0).then(|| d.bytes_written as f64 / 1e6 / self.duration_s),
                flushes: d.flushes,
                queue: d.queue(),
            },
            None => LogLead {
                volume: None,
                writes: self.log_write_ios,
                bytes: self.log_bytes_written,
                bytes_per_write: self.bytes_per_io,
                writes_per_transaction: self.ios_per_transaction,
                mb_per_sec: self.mb_per_sec,
                flushes: self.log_syncs,
                queue: None,
            },
        }
    }

    /// What the engine's write count is, for a column's head.
    pub fn writes_name(&self) -> &str {
        if self.log_writes_are.is_empty() { "log writes" } else { &self.log_writes_are }
    }

    pub fn bytes_name(&self) -> &str {
        if self.log_bytes_are.is_empty() { "log bytes" } else { &self.log_bytes_are }
    }

    /// Fills the derived columns from the counts and the duration, as the original's
    /// procedure computes them.
    pub fn derive(&mut self) {
        let per = |a: Option<u64>, b: u64| a.filter(|_| b > 0).map(|a| a as f64 / b as f64);
        self.ios_per_row = per(self.log_write_ios, self.rows);
        self.ios_per_transaction = per(self.log_write_ios, self.commits);
        self.bytes_per_io = match (self.log_bytes_written, self.log_write_ios) {
            (Some(b), Some(n)) if n > 0 => Some(b as f64 / n as f64),
            _ => None,
        };
        self.mb_per_sec =
            self.log_bytes_written.filter(|_| self.duration_s > 0.0).map(|b| b as f64 / 1e6 / self.duration_s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_columns() {
        let mut f = LogTestFigures {
            rows: 1000,
            commits: 10,
            log_write_ios: Some(20),
            log_bytes_written: Some(4_200_000),
            duration_s: 2.0,
            ..LogTestFigures::default()
        };
        f.derive();
        assert_eq!((f.ios_per_row, f.ios_per_transaction, f.bytes_per_io), (Some(0.02), Some(2.0), Some(210_000.0)));
        assert_eq!(f.mb_per_sec, Some(2.1));
        let mut none = LogTestFigures { rows: 5, commits: 5, duration_s: 1.0, ..LogTestFigures::default() };
        none.derive();
        assert_eq!((none.ios_per_row, none.mb_per_sec), (None, None), "no made-up zeros");
    }

    #[test]
    fn the_volume_leads_only_where_it_is_the_logs_own() {
        let device = DeviceIo {
            device: "loop3".into(),
            writes: 200,
            bytes_written: 819_200,
            flushes: Some(100),
            queue_ms: Some(1500),
            seconds: Some(2.5),
            ..DeviceIo::default()
        }
        .flushes_counted_as_writes(Some(true));
        let mut f = LogTestFigures {
            rows: 100,
            commits: 100,
            log_write_ios: Some(300),
            log_bytes_written: Some(500_000),
            log_syncs: Some(99),
            duration_s: 2.0,
            device: Some(device),
            own_volume: true,
            ..LogTestFigures::default()
        };
        f.derive();
        let lead = f.lead();
        assert_eq!((lead.volume.as_deref(), lead.writes, lead.bytes), (Some("loop3"), Some(100), Some(819_200)));
        assert_eq!((lead.bytes_per_write, lead.writes_per_transaction), (Some(8192.0), Some(1.0)));
        assert_eq!((lead.mb_per_sec, lead.flushes, lead.queue), (Some(0.4096), Some(100), Some(0.6)));
        f.own_volume = false;
        let lead = f.lead();
        assert_eq!((lead.volume, lead.writes, lead.flushes, lead.queue), (None, Some(300), Some(99), None));
        assert_eq!(lead.mb_per_sec, Some(0.25));
        let d = f.device.clone().unwrap();
        assert_eq!(d.clone().flushes_counted_as_writes(Some(false)).data_writes(), 200, "an older kernel's");
        assert_eq!(d.flushes_counted_as_writes(None).bytes_per_write(), Some(4096.0), "not known: all of them");
        assert_eq!((f.writes_name(), f.bytes_name()), ("log writes", "log bytes"));
    }

    #[test]
    fn records_from_before_the_volume_led_still_read() {
        let old = r#"{"transaction_size":1,"rows":1,"commits":1,"row_bytes":4000,"log_write_ios":2,
            "log_bytes_written":8192,"log_syncs":1,"ios_per_row":2.0,"ios_per_transaction":2.0,
            "bytes_per_io":4096.0,"mb_per_sec":1.0,"duration_s":0.01,"log_write_ms":null,"log_sync_ms":null,
            "device":{"device":"vda","reads":0,"bytes_read":0,"writes":3,"bytes_written":12288},
            "source":"pg_stat_wal","missing":[],"notes":[]}"#;
        let f: LogTestFigures = serde_json::from_str(old).unwrap();
        assert!(!f.own_volume && f.engine_leads.is_none());
        assert_eq!((f.lead().writes, f.device.unwrap().flushes), (Some(2), None));
    }
}
