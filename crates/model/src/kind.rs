//! What produced a run, and where an imported run came from.

use crate::db::Counts;
use serde::{Deserialize, Serialize};

/// The command that made a run. Each kind knows what its operations are, so every output
/// names a rate for what it counts ("calls/s" for Hammer, never IOPS with zero bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RunKind {
    /// I/O patterns on files and devices (`io`, `suite`, `ab`), and runs imported from other
    /// I/O tools (their details are `imported`, with the tool and file they came from).
    #[serde(rename = "io")]
    Io,
    /// Database Hammer's calls (`hammer run`).
    #[serde(rename = "hammer")]
    Hammer,
    /// Database Hammer's table loaded (`hammer load`).
    #[serde(rename = "hammer-load")]
    HammerLoad,
    /// One transaction size of the log test (`logtest`).
    #[serde(rename = "logtest")]
    LogTest,
    /// One of the large operations (`largeops`).
    #[serde(rename = "largeops")]
    LargeOps,
}

impl RunKind {
    pub const ALL: [RunKind; 5] =
        [RunKind::Io, RunKind::Hammer, RunKind::HammerLoad, RunKind::LogTest, RunKind::LargeOps];

    /// As records, the store and `runs list --kind` spell it.
    pub fn name(self) -> &'static str {
        match self {
            RunKind::Io => "io",
            RunKind::Hammer => "hammer",
            RunKind::HammerLoad => "hammer-load",
            RunKind::LogTest => "logtest",
            RunKind::LargeOps => "largeops",
        }
    }

    /// In a heading a person reads.
    pub fn title(self) -> &'static str {
        match self {
            RunKind::Io => "I/O runs",
            RunKind::Hammer => "Database Hammer runs",
            RunKind::HammerLoad => "Database Hammer loads",
            RunKind::LogTest => "Log tests",
            RunKind::LargeOps => "Large operations",
        }
    }

    pub fn parse(name: &str) -> Option<RunKind> {
        RunKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// What the kind's `ios`, `iops` and latencies count.
    pub fn counts(self) -> Counts {
        match self {
            RunKind::Io => Counts::Ios,
            RunKind::Hammer => Counts::Calls,
            RunKind::HammerLoad | RunKind::LogTest | RunKind::LargeOps => Counts::Rows,
        }
    }

    /// Whether its runs time each operation (a latency per I/O, call or commit): a load and a
    /// large operation time only the whole, so a latency of theirs is absent, never 0.
    pub fn times_operations(self) -> bool {
        !matches!(self, RunKind::HammerLoad | RunKind::LargeOps)
    }

    /// What its two kinds of operation are called, as `summary.read` and `summary.write`
    /// count them: reads and writes, Hammer's two procedures, or rows written.
    pub fn directions(self) -> [&'static str; 2] {
        match self {
            RunKind::Io | RunKind::LargeOps => ["reads", "writes"],
            RunKind::Hammer => ["GetAccount", "UpdateAccount"],
            RunKind::HammerLoad | RunKind::LogTest => ["reads", "rows"],
        }
    }

    /// Whether the kind moves bytes of its own: MB/s means something only then.
    pub fn moves_bytes(self) -> bool {
        self == RunKind::Io
    }
}

impl std::fmt::Display for RunKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where an imported run came from: another tool's result file. Figures that tool did not
/// record (a full latency histogram, the environment, per-second series) are absent from the
/// record, never invented; `absent` names them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    /// `sqlio`, `diskspd`, `fio` or `iometer`.
    pub tool: String,
    /// As the file states it (`1.5.SG`, `fio-3.1`), when it does.
    pub tool_version: Option<String>,
    /// The file's name as given to `spindle import`.
    pub file: String,
    /// SHA-256 of the file's bytes, hex: the same file is imported once unless `--again`.
    pub sha256: String,
    /// Which run of the file this is, 1-based.
    pub run_in_file: u32,
    /// RFC 3339 UTC time of the import.
    pub imported_at: String,
    /// Figures the tool did not record, in words (`Unrecorded::words` for those a report
    /// shows).
    pub absent: Vec<String>,
    /// What was assumed while reading the file (a time zone, a unit).
    pub notes: Vec<String>,
}

/// A figure another tool may not have recorded, named in an imported record's `absent` by
/// its words: the import writes them and every view reads them through `Recorded`, so a figure
/// the tool never measured is shown as absent, never as 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unrecorded {
    Environment,
    Series,
    /// spindle's own CPU time: a foreign run never has it.
    Cpu,
    Histogram,
    /// p50 .. p99.99.
    Percentiles,
    /// Latency at all: min, mean, max, standard deviation (and so percentiles).
    Latency,
    Duration,
    /// One latency figure a tool may print without the others (IOMeter has no minimum or
    /// standard deviation; DiskSpd's standard deviation needs -L).
    LatencyMin,
    LatencyMax,
    LatencyStddev,
    /// Each thread's percentiles, minimum and maximum (DiskSpd's and IOMeter's threads give a
    /// mean and one other figure at most).
    ThreadDetail,
}

impl Unrecorded {
    /// As `Origin::absent` says it.
    pub fn words(self) -> &'static str {
        match self {
            Unrecorded::Environment => "the environment (host, devices, file system)",
            Unrecorded::Series => "per-second series and counters",
            Unrecorded::Cpu => "spindle's own CPU cost",
            Unrecorded::Histogram => "the full latency histogram",
            Unrecorded::Percentiles => "latency percentiles",
            Unrecorded::Latency => "latency",
            Unrecorded::Duration => "the measured duration",
            Unrecorded::LatencyMin => "the minimum latency",
            Unrecorded::LatencyMax => "the maximum latency",
            Unrecorded::LatencyStddev => "latency's standard deviation",
            Unrecorded::ThreadDetail => "each thread's latency percentiles, minimum and maximum",
        }
    }
}

/// Which of a run's figures were recorded, so every view shows the others as absent: all of
/// them for spindle's own runs; for an imported one, what its origin does not name absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// Latency (its mean, and what the fields below do not say otherwise), of the run, its
    /// directions and threads.
    pub latency: bool,
    /// The minimum, maximum and standard deviation of latency, each.
    pub min: bool,
    pub max: bool,
    pub stddev: bool,
    /// Each thread's percentiles, minimum and maximum (`of_thread`).
    pub thread_detail: bool,
    /// Latency percentiles (p50 .. p99.99).
    pub percentiles: bool,
    /// spindle's own CPU time per operation and in all.
    pub cpu: bool,
    /// The host, its CPUs, memory and devices.
    pub environment: bool,
}

impl Recorded {
    pub const ALL: Recorded = Recorded {
        latency: true,
        min: true,
        max: true,
        stddev: true,
        thread_detail: true,
        percentiles: true,
        cpu: true,
        environment: true,
    };

    /// No latency figure at all, the rest as they are.
    pub fn without_latency(self) -> Recorded {
        Recorded { latency: false, min: false, max: false, stddev: false, percentiles: false, ..self }
    }

    /// For one thread's figures.
    pub fn of_thread(self) -> Recorded {
        if self.thread_detail { self } else { Recorded { min: false, max: false, percentiles: false, ..self } }
    }

    /// For figures of `count` operations: none of their latency when none completed (their
    /// latencies are zeros that measured nothing).
    pub fn of_count(self, count: u64) -> Recorded {
        if count == 0 { self.without_latency() } else { self }
    }

    /// From an imported record's `absent` list (`Origin::absent`, or the store's copy of it).
    pub fn from_absent(absent: &[String]) -> Recorded {
        let lacks = |u: Unrecorded| absent.iter().any(|a| a == u.words());
        let latency = !lacks(Unrecorded::Latency);
        Recorded {
            latency,
            min: latency && !lacks(Unrecorded::LatencyMin),
            max: latency && !lacks(Unrecorded::LatencyMax),
            stddev: latency && !lacks(Unrecorded::LatencyStddev),
            thread_detail: !lacks(Unrecorded::ThreadDetail),
            percentiles: latency && !lacks(Unrecorded::Percentiles),
            cpu: !lacks(Unrecorded::Cpu),
            environment: !lacks(Unrecorded::Environment),
        }
    }

    pub fn of_origin(origin: Option<&Origin>) -> Recorded {
        origin.map_or(Recorded::ALL, |o| Recorded::from_absent(&o.absent))
    }
}

/// An imported run's job, as far as its file says: every figure is absent when the file does
/// not give it, never guessed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ImportedSpec {
    /// `sqlio`, `diskspd`, `fio` or `iometer`, when the file says.
    pub tool: Option<String>,
    /// The run's name in the file (a job, a test, a parameter line).
    pub name: String,
    /// The tool's command line, when the file gives it.
    pub command_line: Option<String>,
    pub target: Option<String>,
    pub target_size: Option<u64>,
    pub block_size: Option<u64>,
    pub threads: Option<u32>,
    /// Outstanding I/Os per thread.
    pub depth: Option<u32>,
    pub read_pct: Option<f64>,
    pub random_pct: Option<f64>,
    /// The tool's I/O engine (`libaio`, ...).
    pub engine: Option<String>,
    pub warmup_s: Option<f64>,
    /// The CPU the tool reported using, percent.
    pub tool_cpu_pct: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_say_what_they_count() {
        for k in RunKind::ALL {
            assert_eq!(RunKind::parse(k.name()), Some(k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
        }
        assert_eq!(RunKind::Hammer.counts(), Counts::Calls);
        assert_eq!(RunKind::parse("import"), None);
    }

    #[test]
    fn what_an_import_names_absent_is_not_recorded() {
        assert_eq!(Recorded::of_origin(None), Recorded::ALL);
        let absent = |u: &[Unrecorded]| u.iter().map(|u| u.words().to_string()).collect::<Vec<_>>();
        let sqlio = Recorded::from_absent(&absent(&[Unrecorded::Cpu, Unrecorded::Percentiles]));
        assert_eq!(sqlio, Recorded { percentiles: false, cpu: false, ..Recorded::ALL });
        let no_latency = Recorded::from_absent(&absent(&[Unrecorded::Latency]));
        assert_eq!(no_latency, Recorded::ALL.without_latency(), "no latency, no figure of it");
        let iometer = Recorded::from_absent(&absent(&[Unrecorded::LatencyMin, Unrecorded::LatencyStddev]));
        assert_eq!(iometer, Recorded { min: false, stddev: false, ..Recorded::ALL });
        assert_eq!(Recorded::ALL.of_count(0), Recorded::ALL.without_latency(), "no I/O, no latency of it");
        assert_eq!(iometer.of_count(1), iometer);
    }
}
