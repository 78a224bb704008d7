//! SQLIO's text output: one run per `sqlio v...` banner, several runs concatenated in one file
//! (as the scripts of "Disk Benchmark testing using SQLIO" write them). MBs/sec are binary
//! (IOs/sec x block size / 2^20), latencies whole milliseconds, and the latency and histogram
//! lines appear only with -LS.

use super::{ForeignRun, ForeignStats, Tool, at_line, ms_to_ns, number};
use crate::ParseError;

pub fn parse(text: &str) -> Result<Vec<ForeignRun>, ParseError> {
    let mut runs = Vec::new();
    let mut current: Option<(usize, Run)> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if let Some(version) = line.strip_prefix("sqlio v") {
            if let Some((start, run)) = current.take() {
                runs.push(run.finish(start)?);
            }
            current = Some((n, Run { version: version.trim().to_string(), ..Run::default() }));
            continue;
        }
        let Some((_, run)) = current.as_mut() else {
            if line.is_empty() {
                continue;
            }
            return Err(at_line(n, "text before the first \"sqlio v...\" banner"));
        };
        run.line(n, line)?;
    }
    if let Some((start, run)) = current {
        runs.push(run.finish(start)?);
    }
    Ok(runs)
}

#[derive(Default)]
struct Run {
    version: String,
    threads: Option<u32>,
    write: Option<bool>,
    seconds: Option<f64>,
    file: Option<String>,
    block_kb: Option<u64>,
    random: Option<bool>,
    outstanding: Option<u32>,
    size_mb: Option<u64>,
    iops: Option<f64>,
    mbs: Option<f64>,
    min_ms: Option<f64>,
    avg_ms: Option<f64>,
    max_ms: Option<f64>,
    histogram: Option<Vec<f64>>,
    command: Vec<String>,
}

impl Run {
    fn line(&mut self, n: usize, line: &str) -> Result<(), ParseError> {
        let value = |prefix: &str| line.strip_prefix(prefix).map(str::trim);
        if let Some(v) = value("IOs/sec:") {
            self.iops = Some(number(v).ok_or_else(|| at_line(n, format_args!("IOs/sec {v:?} is not a number")))?);
        } else if let Some(v) = value("MBs/sec:") {
            self.mbs = Some(number(v).ok_or_else(|| at_line(n, format_args!("MBs/sec {v:?} is not a number")))?);
        } else if let Some(v) = value("Min_Latency(ms):") {
            self.min_ms = number(v);
        } else if let Some(v) = value("Avg_Latency(ms):") {
            self.avg_ms = number(v);
        } else if let Some(v) = value("Max_Latency(ms):") {
            self.max_ms = number(v);
        } else if let Some(v) = value("%:") {
            let pct: Option<Vec<f64>> = v.split_whitespace().map(number).collect();
            match pct {
                Some(p) if p.len() == 25 => self.histogram = Some(p),
                _ => return Err(at_line(n, "the histogram's % line does not have 25 numbers")),
            }
        } else if line.contains(" threads reading for ") || line.contains(" threads writing for ") {
            // "64 threads reading for 15 secs from file G:\testfile.dat"
            let mut words = line.split_whitespace();
            self.threads = words.next().and_then(|w| w.parse().ok());
            self.write = Some(line.contains(" writing "));
            let after_for = line.split(" for ").nth(1).unwrap_or("");
            self.seconds = after_for.split_whitespace().next().and_then(number);
            self.file = line.split_once(" file ").map(|(_, f)| f.trim().to_string()).or_else(|| self.file.take());
            self.command.push(line.to_string());
        } else if let Some(rest) = value("using ").filter(|r| r.ends_with("IOs") && r.contains("KB ")) {
            // "using 8KB random IOs"
            let (size, kind) = rest.split_once("KB ").unwrap_or(("", ""));
            self.block_kb = size.trim().parse().ok();
            self.random = Some(kind.starts_with("random"));
            self.command.push(line.to_string());
        } else if let Some(rest) = value("enabling multiple I/Os per thread with") {
            self.outstanding = rest.split_whitespace().next().and_then(|w| w.parse().ok());
        } else if let Some(rest) = value("using specified size:") {
            self.size_mb = rest.split_whitespace().next().and_then(|w| w.parse().ok());
        }
        Ok(())
    }

    fn finish(self, start: usize) -> Result<ForeignRun, ParseError> {
        let (Some(iops), Some(mbs)) = (self.iops, self.mbs) else {
            return Err(at_line(start, "this run has no IOs/sec and MBs/sec lines (the file is cut short?)"));
        };
        let mut notes = Vec::new();
        // Sizes no disk has (beyond 2^64 bytes) are left out rather than wrapped.
        let block = self.block_kb.and_then(|kb| kb.checked_mul(1024));
        let secs = self.seconds;
        let ios = secs.map(|s| (iops * s).round() as u64);
        if ios.is_some() {
            notes.push("SQLIO prints rates only: the I/O count is IOs/sec x the seconds asked for.".into());
        }
        let bytes_per_sec = mbs * 1_048_576.0;
        let total = ForeignStats {
            ios,
            bytes: secs.map(|s| (bytes_per_sec * s).round() as u64),
            iops: Some(iops),
            bytes_per_sec: Some(bytes_per_sec),
            latency_min_ns: self.min_ms.map(ms_to_ns),
            latency_mean_ns: self.avg_ms.map(ms_to_ns),
            latency_max_ns: self.max_ms.map(ms_to_ns),
            ..ForeignStats::default()
        };
        if self.avg_ms.is_some() {
            notes.push("SQLIO's latencies are whole milliseconds.".into());
        }
        let (read, write) = match self.write {
            Some(true) => (ForeignStats::default(), total.clone()),
            _ => (total.clone(), ForeignStats::default()),
        };
        let name = format!(
            "{}{} {}",
            self.block_kb.map(|kb| format!("{kb}KB ")).unwrap_or_default(),
            match self.random {
                Some(true) => "random",
                Some(false) => "sequential",
                None => "",
            },
            if self.write == Some(true) { "write" } else { "read" }
        );
        Ok(ForeignRun {
            tool: Some(Tool::Sqlio),
            tool_version: Some(self.version),
            name,
            command_line: (!self.command.is_empty()).then(|| self.command.join("; ")),
            duration_s: secs,
            target: self.file,
            target_size: self.size_mb.and_then(|mb| mb.checked_mul(1_048_576)),
            block_size: block,
            threads: self.threads,
            // Without the "multiple I/Os" line each thread has one I/O outstanding.
            queue_depth: Some(self.outstanding.unwrap_or(1)),
            read_pct: self.write.map(|w| if w { 0.0 } else { 100.0 }),
            random_pct: self.random.map(|r| if r { 100.0 } else { 0.0 }),
            total,
            read,
            write,
            sqlio_histogram_pct: self.histogram,
            notes,
            ..ForeignRun::default()
        })
    }
}
