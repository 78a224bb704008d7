//! IOMeter's results CSV (2006/2008 and 1.1.0 layouts) and its instantaneous companion:
//! blocks opened by `'` marker lines (`'Test Type`, `'Version`, `'Time Stamp`, `'Access
//! specifications`, `'Results`). Each test's ALL row is a run (one per access specification
//! and queue depth, as IOMeter's test setup cycles them); its WORKER rows are the run's
//! threads. Columns are found by their header names, which differ between versions.

use super::{ForeignRun, ForeignStats, ForeignThread, Tool, at_line, ms_to_ns, number};
use crate::ParseError;

#[derive(Default)]
struct State {
    version: Option<String>,
    description: Option<String>,
    started_at: Option<String>,
    /// The first line of the current access specification: size, % reads, % random.
    spec: Option<(u64, f64, f64)>,
    header: Vec<String>,
    /// Whether the rows are per update (the instantaneous file), not per test.
    instantaneous: bool,
    workers: Vec<ForeignThread>,
    /// The run of the current results block, once its ALL row is read: WORKER rows after it
    /// are its threads.
    block_run: Option<usize>,
}

enum Block {
    None,
    TestType,
    Version,
    TimeStamp,
    Specs,
    Results,
}

pub fn parse(text: &str) -> Result<Vec<ForeignRun>, ParseError> {
    let mut st = State::default();
    let mut runs = Vec::new();
    let mut block = Block::None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        let first = fields[0].trim();
        if first.starts_with('\'') || fields.get(1).is_some_and(|f| f.starts_with("'Target Type")) {
            block = match first {
                "'Test Type" => Block::TestType,
                "'Version" => Block::Version,
                "'Time Stamp" => Block::TimeStamp,
                "'Access specifications" => Block::Specs,
                "'Results" => Block::Results,
                "'Target Type" | "TimeStamp" => {
                    st.instantaneous = first == "TimeStamp";
                    st.header = fields.iter().map(|f| f.trim().trim_start_matches('\'').to_string()).collect();
                    st.workers.clear();
                    st.block_run = None;
                    Block::Results
                }
                // The specs' own header lines and the end markers.
                _ => match block {
                    Block::Specs if first != "'End access specifications" => Block::Specs,
                    _ => Block::None,
                },
            };
            continue;
        }
        match block {
            Block::TestType => st.description = fields.get(1).map(|d| d.trim().to_string()),
            Block::Version => st.version = Some(first.to_string()),
            Block::TimeStamp => st.started_at = timestamp(first),
            Block::Specs => {
                // `name,0` lines name a spec; numeric lines are its size/% lines.
                if let (Some(size), Some(reads), Some(random)) =
                    (number(first), fields.get(2).and_then(|f| number(f)), fields.get(3).and_then(|f| number(f)))
                    && st.spec.is_none_or(|s| s.0 == 0)
                {
                    st.spec = Some((size as u64, reads, random));
                } else if number(first).is_none() {
                    st.spec = None;
                }
            }
            Block::Results => {
                if st.header.is_empty() {
                    return Err(at_line(n, "a results row before the results' header"));
                }
                if let Some(run) = row(n, &mut st, &fields)? {
                    st.block_run = Some(runs.len());
                    runs.push(run);
                } else if let (Some(i), Some(worker)) = (st.block_run, st.workers.pop()) {
                    let run: &mut ForeignRun = &mut runs[i];
                    run.threads_detail.push(ForeignThread { thread: run.threads_detail.len() as u32, ..worker });
                }
            }
            Block::None => {}
        }
    }
    Ok(runs)
}

/// `2023-03-27 13:14:31:660` (local time, no zone) as RFC 3339, taken as UTC.
fn timestamp(v: &str) -> Option<String> {
    let (date, time) = v.split_once(' ')?;
    let hms: Vec<&str> = time.split(':').take(3).collect();
    (date.len() == 10 && hms.len() == 3).then(|| format!("{date}T{}:{}:{}Z", hms[0], hms[1], hms[2]))
}

/// One results row: a WORKER row is kept as a thread of the ALL row that follows it; an ALL
/// row is a run.
fn row(n: usize, st: &mut State, fields: &[&str]) -> Result<Option<ForeignRun>, ParseError> {
    let r = Row { header: &st.header, fields };
    let kind = r.col("Target Type").unwrap_or("").trim();
    if kind.is_empty() {
        return Err(at_line(n, "a results row without a Target Type"));
    }
    // IOMeter 2008 writes a row per processor beside the ALL, MANAGER and WORKER rows: that
    // CPU's figures, its I/O columns empty. It is neither a run nor one of its threads.
    if kind == "PROCESSOR" {
        return Ok(None);
    }
    let total = r.total();
    if total.iops.is_none() {
        return Err(at_line(n, "a results row without IOps"));
    }
    match kind {
        "WORKER" => {
            if !st.instantaneous {
                let target = r.col("Target Name").map(|t| t.trim().to_string());
                st.workers.push(ForeignThread { thread: st.workers.len() as u32, target, stats: total });
            }
            Ok(None)
        }
        "ALL" => Ok(Some(all_run(st, fields, total))),
        _ => Ok(None),
    }
}

/// A results row's values, found by the header's names.
struct Row<'a> {
    header: &'a [String],
    fields: &'a [&'a str],
}

impl<'a> Row<'a> {
    fn col(&self, name: &str) -> Option<&'a str> {
        self.header.iter().position(|h| h == name).and_then(|i| self.fields.get(i).copied())
    }

    fn num(&self, name: &str) -> Option<f64> {
        self.col(name).and_then(number)
    }

    /// Bytes per second from whichever of the three ways the versions name it is there.
    fn mb(&self, binary: &str, decimal: &str, old: &str) -> Option<f64> {
        self.num(decimal)
            .map(|v| v * 1e6)
            .or_else(|| self.num(binary).map(|v| v * 1_048_576.0))
            .or_else(|| self.num(old).map(|v| v * 1_048_576.0))
    }

    fn ios(&self, name: &str) -> Option<u64> {
        self.num(name).map(|v| v as u64)
    }

    fn stats(&self, ios: Option<u64>, bytes: &str, iops: &str, bps: Option<f64>, avg: &str, max: &str) -> ForeignStats {
        ForeignStats {
            ios,
            bytes: self.num(bytes).map(|v| v as u64),
            iops: self.num(iops),
            bytes_per_sec: bps,
            latency_mean_ns: self.num(avg).map(ms_to_ns),
            latency_max_ns: self.num(max).map(ms_to_ns),
            ..ForeignStats::default()
        }
    }

    /// One direction (`Read`, `Write`), its bytes named by `done` (`Bytes Read`, `Bytes Written`).
    fn direction(&self, d: &str, done: &str) -> ForeignStats {
        self.stats(
            self.ios(&format!("{d} I/Os")),
            &format!("Bytes {done}"),
            &format!("{d} IOps"),
            self.mb(&format!("{d} MiBps (Binary)"), &format!("{d} MBps (Decimal)"), &format!("{d} MBps")),
            &format!("Average {d} Response Time"),
            &format!("Maximum {d} Response Time"),
        )
    }

    /// Reads and writes together.
    fn total(&self) -> ForeignStats {
        // Counts past 2^64 (a garbled row) are left out rather than wrapped.
        let total_ios = self.ios("Read I/Os").zip(self.ios("Write I/Os")).and_then(|(r, w)| r.checked_add(w));
        ForeignStats {
            bytes: self.num("Bytes Read").zip(self.num("Bytes Written")).map(|(r, w)| (r + w) as u64),
            ..self.stats(
                total_ios,
                "",
                "IOps",
                self.mb("MiBps (Binary)", "MBps (Decimal)", "MBps")
                    .or_else(|| self.num("MBps (Binary)").map(|v| v * 1_048_576.0)),
                "Average Response Time",
                "Maximum Response Time",
            )
        }
    }
}

/// The run of an ALL row (`total` its reads and writes together), with the WORKER rows before
/// it as its threads.
fn all_run(st: &mut State, fields: &[&str], total: ForeignStats) -> ForeignRun {
    let r = Row { header: &st.header, fields };
    let (read, write) = (r.direction("Read", "Read"), r.direction("Write", "Written"));
    let spec_name = r.col("Access Specification Name").unwrap_or("").trim().to_string();
    let depth = r.num("Queue Depth").map(|q| q as u32);
    let duration = total.ios.zip(total.iops).filter(|(_, r)| *r > 0.0).map(|(n, r)| n as f64 / r);
    let mut notes = vec!["IOMeter's time stamps carry no time zone: taken as UTC.".to_string()];
    if duration.is_some() {
        notes.push("The measured time is the I/O count over IOps (IOMeter prints no duration).".into());
    }
    if st.instantaneous {
        notes.push("An instantaneous results file: the workers' per-update records are not imported.".into());
    }
    let bins: Vec<(u64, u64)> = st
        .header
        .iter()
        .zip(fields)
        .filter_map(|(name, count)| Some((bin_middle_ns(name)?, number(count)? as u64)))
        .collect();
    if !bins.is_empty() {
        notes.push(
            "Latency percentiles come from IOMeter's 21 latency bins, each taken at its middle: as coarse as the bins."
                .into(),
        );
    }
    let (size, reads, random) = st.spec.unwrap_or((0, f64::NAN, f64::NAN));
    ForeignRun {
        tool: Some(Tool::Iometer),
        tool_version: st.version.clone(),
        name: format!(
            "{}{}",
            if spec_name.is_empty() { st.description.clone().unwrap_or_default() } else { spec_name },
            depth.map(|d| format!(" QD {d}")).unwrap_or_default()
        ),
        started_at: st.started_at.clone(),
        duration_s: duration,
        block_size: (size > 0).then_some(size),
        threads: r.num("# Workers").map(|w| w as u32),
        // IOMeter's Queue Depth is outstanding I/Os per worker's target.
        queue_depth: depth,
        read_pct: reads.is_finite().then_some(reads),
        random_pct: random.is_finite().then_some(random),
        cpu_pct: r.num("% CPU Utilization"),
        total: ForeignStats { histogram_ns: bins, ..total },
        read,
        write,
        threads_detail: std::mem::take(&mut st.workers),
        notes,
        ..ForeignRun::default()
    }
}

/// The middle of one of IOMeter 1.1.0's latency bins (`0 to 50 uS`, `0.5 to 1 mS`, `1 to 2 s`,
/// ` >= 10 s`), in nanoseconds; `None` for any other column.
fn bin_middle_ns(name: &str) -> Option<u64> {
    let name = name.trim();
    let (range, unit) = name.rsplit_once(' ')?;
    let scale = match unit {
        "uS" | "us" => 1e3,
        "mS" | "ms" => 1e6,
        "S" | "s" => 1e9,
        _ => return None,
    };
    let middle = match range.split_once(" to ") {
        Some((low, high)) => (low.trim().parse::<f64>().ok()? + high.trim().parse::<f64>().ok()?) / 2.0,
        None => range.strip_prefix(">=")?.trim().parse::<f64>().ok()?,
    };
    Some((middle * scale) as u64)
}
