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
/// the engine does not give is absent, and `missing` says why.
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
}

impl DeviceIo {
    /// Average bytes a read and a write, as perfmon's Avg. Disk Bytes/Read and /Write.
    pub fn bytes_per_read(&self) -> Option<f64> {
        (self.reads > 0).then(|| self.bytes_read as f64 / self.reads as f64)
    }

    pub fn bytes_per_write(&self) -> Option<f64> {
        (self.writes > 0).then(|| self.bytes_written as f64 / self.writes as f64)
    }
}

impl LogTestFigures {
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
}
