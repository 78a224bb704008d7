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
    /// The volumes (kernel names) the engine's data files and its log are on, as the engine
    /// names its files: which of `volumes` is which. Empty in records from before they were
    /// told apart, and where the engine's files are not on this machine.
    #[serde(default)]
    pub data_volumes: Vec<String>,
    #[serde(default)]
    pub log_volumes: Vec<String>,
    /// `volumes` by role (`by_role`): the data's and the log's apart where they are on
    /// different volumes, one "data and log" row where they share theirs.
    #[serde(default)]
    pub roles: Vec<RoleIo>,
    /// Automatic checkpoints the engine made during the operation, where it counts them.
    pub automatic_checkpoints: Option<u64>,
}

/// Which of an engine's files a volume holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Data,
    Log,
    /// Both, on one volume: its counts cannot be split between them.
    #[default]
    DataAndLog,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Data => "data",
            Role::Log => "log",
            Role::DataAndLog => "data and log",
        }
    }
}

/// What the volumes of one role did during a large operation: their exact counts from
/// /proc/diskstats (summed where a role spans several volumes), and the figures the article
/// reads from perfmon per volume: reads, writes, bytes a read and a write, MB/s, queue.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RoleIo {
    pub role: Role,
    /// The volumes counted (`loop3`).
    pub devices: Vec<String>,
    /// A volume of this row holds the other role's files too, so its I/O is in both rows.
    #[serde(default)]
    pub shared: bool,
    pub reads: u64,
    pub bytes_read: u64,
    /// The writes that carried data: the flushes a kernel counts as writes too are set apart.
    pub writes: u64,
    pub bytes_written: u64,
    /// Flush requests completed; absent before kernel 5.5 and in older records.
    #[serde(default)]
    pub flushes: Option<u64>,
    /// KB (1,024 bytes) a read and a write; absent where there were none.
    pub kb_per_read: Option<f64>,
    pub kb_per_write: Option<f64>,
    /// Decimal MB a second over the span the volumes were counted.
    pub read_mb_per_sec: f64,
    pub write_mb_per_sec: f64,
    /// Mean I/Os queued or in service (perfmon's Avg. Disk Queue Length), summed over the
    /// role's volumes.
    pub queue: Option<f64>,
}

impl RoleIo {
    fn of(role: Role, volumes: &[&DeviceIo], seconds: f64) -> RoleIo {
        let sum = |f: fn(&DeviceIo) -> u64| volumes.iter().map(|v| f(v)).sum::<u64>();
        let (reads, bytes_read, writes, bytes_written) =
            (sum(|v| v.reads), sum(|v| v.bytes_read), sum(|v| v.data_writes()), sum(|v| v.bytes_written));
        // The span the volumes were counted over; the operation's own time where not recorded.
        let span = volumes.iter().find_map(|v| v.seconds).filter(|s| *s > 0.0).unwrap_or(seconds);
        let per = |bytes: u64, n: u64| (n > 0).then(|| bytes as f64 / n as f64 / 1024.0);
        let rate = |bytes: u64| if span > 0.0 { bytes as f64 / 1e6 / span } else { 0.0 };
        let queue = volumes.iter().map(|v| v.queue()).collect::<Option<Vec<f64>>>().map(|q| q.iter().sum());
        RoleIo {
            role,
            devices: volumes.iter().map(|v| v.device.clone()).collect(),
            shared: false,
            reads,
            bytes_read,
            writes,
            bytes_written,
            flushes: volumes.iter().map(|v| v.flushes).sum(),
            kb_per_read: per(bytes_read, reads),
            kb_per_write: per(bytes_written, writes),
            read_mb_per_sec: rate(bytes_read),
            write_mb_per_sec: rate(bytes_written),
            queue: if volumes.is_empty() { None } else { queue },
        }
    }
}

impl LargeOpFigures {
    /// The volumes' counts by role: a "data" and a "log" row where the engine's data and log
    /// are on different volumes, one "data and log" row where they are on the same ones (or
    /// where the record does not say which is which).
    pub fn by_role(&self) -> Vec<RoleIo> {
        let pick = |names: &[String]| -> Vec<&DeviceIo> {
            self.volumes.iter().filter(|v| names.contains(&v.device)).collect()
        };
        let (data, log) = (pick(&self.data_volumes), pick(&self.log_volumes));
        let same =
            |a: &[&DeviceIo], b: &[&DeviceIo]| a.iter().all(|v| b.contains(v)) && b.iter().all(|v| a.contains(v));
        if self.volumes.is_empty() {
            return Vec::new();
        }
        if (data.is_empty() && log.is_empty()) || same(&data, &log) {
            let all: Vec<&DeviceIo> = if data.is_empty() { self.volumes.iter().collect() } else { data };
            return vec![RoleIo::of(Role::DataAndLog, &all, self.seconds)];
        }
        let shared = data.iter().any(|v| log.contains(v));
        [(Role::Data, data), (Role::Log, log)]
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(role, v)| RoleIo { shared, ..RoleIo::of(role, &v, self.seconds) })
            .collect()
    }

    /// The roles as recorded, or worked out from the volumes for a record from before they
    /// were.
    pub fn roles(&self) -> Vec<RoleIo> {
        if self.roles.is_empty() { self.by_role() } else { self.roles.clone() }
    }

    /// Whether a rate of rows means anything for this operation: a checkpoint writes the
    /// pages the update dirtied and processes no rows of its own.
    pub fn has_row_rate(&self) -> bool {
        self.operation != "checkpoint"
    }
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
    /// count a flush that came without data as a write too; a journal commit's flushes come
    /// with a write of data): `counters::FlushCounting`; `None` where not known.
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
            empty_writes: Some(100),
            ..DeviceIo::default()
        };
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
        assert_eq!(DeviceIo { empty_writes: Some(0), ..d.clone() }.data_writes(), 200, "an older kernel's");
        assert_eq!(DeviceIo { empty_writes: None, ..d }.bytes_per_write(), Some(4096.0), "not known: all of them");
        assert_eq!((f.writes_name(), f.bytes_name()), ("log writes", "log bytes"));
    }

    fn volume(device: &str, reads: u64, writes: u64, bytes_written: u64) -> DeviceIo {
        DeviceIo {
            device: device.into(),
            reads,
            bytes_read: reads * 8192,
            writes,
            bytes_written,
            queue_ms: Some(1000),
            seconds: Some(4.0),
            ..DeviceIo::default()
        }
    }

    #[test]
    fn data_and_log_apart_on_their_own_volumes_together_on_one() {
        let ops = |data: &[&str], log: &[&str], volumes: Vec<DeviceIo>| LargeOpFigures {
            operation: "update".into(),
            rows: 100,
            seconds: 3.9,
            volumes,
            data_volumes: data.iter().map(|s| s.to_string()).collect(),
            log_volumes: log.iter().map(|s| s.to_string()).collect(),
            ..LargeOpFigures::default()
        };
        let apart =
            ops(&["loop1"], &["loop2"], vec![volume("loop1", 4, 100, 6_451_200), volume("loop2", 0, 10, 9_564_160)]);
        let roles = apart.by_role();
        assert_eq!(roles.iter().map(|r| r.role).collect::<Vec<_>>(), [Role::Data, Role::Log]);
        let (data, log) = (&roles[0], &roles[1]);
        assert_eq!(
            (data.devices.as_slice(), data.reads, data.writes, data.bytes_written),
            (&["loop1".to_string()][..], 4, 100, 6_451_200)
        );
        assert_eq!((data.kb_per_read, data.kb_per_write), (Some(8.0), Some(63.0)));
        assert_eq!((log.kb_per_read, log.kb_per_write, log.queue), (None, Some(934.0), Some(0.25)));
        assert_eq!(log.write_mb_per_sec, 9.56416 / 4.0, "over the span the volume was counted");
        assert!(!data.shared && !log.shared);
        // One volume under both: one row, never two copies of it.
        let together = ops(&["vda"], &["vda"], vec![volume("vda", 4, 110, 100)]).by_role();
        assert_eq!((together.len(), together[0].role, together[0].writes), (1, Role::DataAndLog, 110));
        // A record from before the roles: every volume in one row.
        let old = ops(&[], &[], vec![volume("vda", 1, 1, 512), volume("vdb", 1, 2, 1024)]);
        assert_eq!(old.roles()[0].writes, 3);
        assert_eq!(old.roles()[0].role.name(), "data and log");
        // The log on the data's volume and one more: both rows say the volume is shared.
        let shared = ops(&["vda"], &["vda", "loop2"], vec![volume("vda", 1, 1, 512), volume("loop2", 0, 2, 1024)]);
        assert!(shared.by_role().iter().all(|r| r.shared));
        assert!(ops(&[], &[], Vec::new()).by_role().is_empty());
        assert!(!LargeOpFigures { operation: "checkpoint".into(), ..LargeOpFigures::default() }.has_row_rate());
    }

    #[test]
    fn a_roles_writes_are_the_datas_and_its_flushes_a_figure_of_their_own() {
        // 288 writes counted on the log's volume, 60 of them the flushes a kernel of the 6
        // series counts as writes of no bytes too: 228 writes of 1 MiB.
        let log = DeviceIo { flushes: Some(60), ..volume("loop2", 0, 288, 228 << 20) };
        let figures = |log: DeviceIo| LargeOpFigures {
            operation: "load".into(),
            volumes: vec![volume("loop1", 0, 10, 10 * 8192), log],
            data_volumes: vec!["loop1".into()],
            log_volumes: vec!["loop2".into()],
            ..LargeOpFigures::default()
        };
        let roles = figures(DeviceIo { empty_writes: Some(60), ..log.clone() }).by_role();
        assert_eq!((roles[1].writes, roles[1].flushes, roles[1].kb_per_write), (228, Some(60), Some(1024.0)));
        assert_eq!(roles[0].flushes, None, "a volume whose kernel counts no flushes has none to show");
        let unknown = figures(log).by_role();
        assert_eq!((unknown[1].writes, unknown[1].flushes), (288, Some(60)), "not known: taken as counted");
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
