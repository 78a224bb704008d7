//! Other I/O benchmarks' result files, read into one neutral shape: SQLIO text, DiskSpd text
//! and XML, fio JSON, IOMeter results CSV (../shared/reference/io-tools.md describes each). A figure
//! a file does not give stays `None`, never a made-up zero; what was assumed is in `notes`.
//! A file that breaks anywhere is an error naming the line (or byte), so nothing half-read is
//! ever imported.

mod diskspd;
mod diskspd_xml;
mod fio;
mod iometer;
pub mod record;
mod sqlio;
#[cfg(test)]
mod tests;
mod xml_depth;

use crate::ParseError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Sqlio,
    Diskspd,
    Fio,
    Iometer,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Sqlio => "sqlio",
            Tool::Diskspd => "diskspd",
            Tool::Fio => "fio",
            Tool::Iometer => "iometer",
        }
    }
}

/// One run of another tool, as its file gives it (latencies in ns, sizes in bytes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ForeignRun {
    pub tool: Option<Tool>,
    pub tool_version: Option<String>,
    /// fio's job name, IOMeter's access specification, a short description for the others.
    pub name: String,
    /// RFC 3339 UTC, when the file says when it ran.
    pub started_at: Option<String>,
    pub command_line: Option<String>,
    /// Seconds measured, warm-up excluded.
    pub duration_s: Option<f64>,
    pub warmup_s: Option<f64>,
    pub target: Option<String>,
    pub target_size: Option<u64>,
    pub block_size: Option<u64>,
    pub threads: Option<u32>,
    /// Outstanding I/Os per thread.
    pub queue_depth: Option<u32>,
    pub read_pct: Option<f64>,
    pub random_pct: Option<f64>,
    pub engine: Option<String>,
    pub total: ForeignStats,
    pub read: ForeignStats,
    pub write: ForeignStats,
    /// SQLIO's 25 buckets (0 .. 23 and 24+ ms), percent.
    pub sqlio_histogram_pct: Option<Vec<f64>>,
    /// The host's CPU busy percent, as the tool reported it.
    pub cpu_pct: Option<f64>,
    pub threads_detail: Vec<ForeignThread>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ForeignStats {
    pub ios: Option<u64>,
    pub bytes: Option<u64>,
    pub iops: Option<f64>,
    pub bytes_per_sec: Option<f64>,
    pub latency_min_ns: Option<f64>,
    pub latency_mean_ns: Option<f64>,
    pub latency_max_ns: Option<f64>,
    pub latency_stddev_ns: Option<f64>,
    /// (percentile, ns), e.g. (99.0, 1234.0).
    pub percentiles_ns: Vec<(f64, f64)>,
    /// (bucket value ns, count): fio json+'s bins.
    pub histogram_ns: Vec<(u64, u64)>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ForeignThread {
    pub thread: u32,
    pub target: Option<String>,
    pub stats: ForeignStats,
}

const FORMATS: &str = "SQLIO text, DiskSpd text or XML, fio JSON, IOMeter results CSV";

/// Which tool wrote `text`, from its content.
pub fn detect(text: &str) -> Option<Tool> {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    if start.starts_with("sqlio v") {
        Some(Tool::Sqlio)
    } else if start.starts_with("'Test Type") || start.starts_with("'Version") {
        Some(Tool::Iometer)
    } else if start.starts_with("Command Line:")
        || start.starts_with("Input parameters:")
        || start.contains("\nResults for timespan")
        || start.starts_with("Results for timespan")
        // -Rxml, with or without an XML declaration.
        || start.starts_with("<Results>")
        || (start.starts_with("<?xml") && start.contains("<Results>"))
    {
        Some(Tool::Diskspd)
    } else if start.contains("\"fio version\"") {
        Some(Tool::Fio)
    } else {
        None
    }
}

/// Every run in the file.
pub fn parse(text: &str) -> Result<Vec<ForeignRun>, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let runs = match detect(text) {
        Some(Tool::Sqlio) => sqlio::parse(text)?,
        Some(Tool::Diskspd) if text.trim_start().starts_with('<') => diskspd_xml::parse(text)?,
        Some(Tool::Diskspd) => diskspd::parse(text)?,
        Some(Tool::Fio) => fio::parse(text)?,
        Some(Tool::Iometer) => iometer::parse(text)?,
        None if text.trim().is_empty() => return Err(ParseError("the file is empty".into())),
        None => return Err(ParseError(format!("not a result file spindle imports ({FORMATS})"))),
    };
    if runs.is_empty() {
        return Err(ParseError("the file holds no complete run".into()));
    }
    let mut runs = runs;
    for (i, run) in runs.iter_mut().enumerate() {
        sane(run).map_err(|why| ParseError(format!("run {} ({}): {why}", i + 1, printable(&run.name))))?;
        printable_text(run);
    }
    Ok(runs)
}

/// The file's words with their line breaks written out (`\n`, `\r`): one in a target's name
/// would print as a line of its own wherever the run is listed or reported (every text view
/// writes other control characters out itself, and JSON keeps them as they are).
fn printable_text(run: &mut ForeignRun) {
    run.name = printable(&run.name);
    let texts = [&mut run.tool_version, &mut run.target, &mut run.command_line, &mut run.engine];
    let threads = run.threads_detail.iter_mut().filter_map(|t| t.target.as_mut());
    for text in texts.into_iter().flatten().chain(threads).chain(&mut run.notes) {
        *text = printable(text);
    }
}

/// `text` with its line breaks written as `\n` and `\r`.
fn printable(text: &str) -> String {
    text.replace('\n', "\\n").replace('\r', "\\r")
}

/// A billion I/Os a second, a terabyte a second, a day for one I/O: beyond any device, so a
/// figure past them is a broken or forged file, never imported (one such run made every view
/// of the store fail).
const MAX_IOPS: f64 = 1e9;
const MAX_BYTES_PER_SEC: f64 = 1e12;
const MAX_LATENCY_NS: f64 = 86_400e9;

/// Every figure of a run finite, not negative and within what a device can give; a run with
/// no figure at all (no I/Os, rate or latency in any direction) is none.
fn sane(run: &ForeignRun) -> Result<(), String> {
    let within = |what: &str, v: f64, max: f64| {
        if v.is_finite() && (0.0..=max).contains(&v) {
            Ok(())
        } else {
            // 1e308, not three hundred digits.
            let shown = if v.abs() >= 1e12 { format!("{v:e}") } else { format!("{v}") };
            Err(format!("{what} is {shown}: not a figure any device gives"))
        }
    };
    let stats = [&run.total, &run.read, &run.write].into_iter().chain(run.threads_detail.iter().map(|t| &t.stats));
    // A rate the file does not print is its count over the duration (record::stats_of).
    let per_sec = |n: Option<u64>| Some(n? as f64 / run.duration_s.filter(|d| *d > 0.0)?);
    for s in stats {
        for (what, v, max) in [
            ("the I/O count over the duration", per_sec(s.ios), MAX_IOPS),
            ("the bytes over the duration", per_sec(s.bytes), MAX_BYTES_PER_SEC),
            ("IOPS", s.iops, MAX_IOPS),
            ("bytes a second", s.bytes_per_sec, MAX_BYTES_PER_SEC),
            ("minimum latency", s.latency_min_ns, MAX_LATENCY_NS),
            ("mean latency", s.latency_mean_ns, MAX_LATENCY_NS),
            ("maximum latency", s.latency_max_ns, MAX_LATENCY_NS),
            ("latency's standard deviation", s.latency_stddev_ns, MAX_LATENCY_NS),
        ] {
            v.map_or(Ok(()), |v| within(what, v, max))?;
        }
        for &(p, ns) in &s.percentiles_ns {
            within("a percentile", p, 100.0)?;
            within("a percentile's latency", ns, MAX_LATENCY_NS)?;
        }
        for &(ns, _) in &s.histogram_ns {
            within("a latency bin's value", ns as f64, MAX_LATENCY_NS)?;
        }
        // The bins are summed as spindle's histogram sums (counts in a u64, squares in a
        // u128): counts past those overflowed it.
        let count: f64 = s.histogram_ns.iter().map(|&(_, n)| n as f64).sum();
        let squares: f64 = s.histogram_ns.iter().map(|&(ns, n)| n as f64 * (ns as f64).powi(2)).sum();
        if count >= 2f64.powi(63) || squares >= 2f64.powi(127) {
            return Err(format!("the latency bins hold {count:e} I/Os: past what a histogram can sum"));
        }
    }
    for (what, v, max) in [
        ("the read share", run.read_pct, 100.0),
        ("the random share", run.random_pct, 100.0),
        ("the duration", run.duration_s, MAX_LATENCY_NS / 1e9 * 365.0),
        ("the warm-up", run.warmup_s, MAX_LATENCY_NS / 1e9 * 365.0),
        ("the CPU share", run.cpu_pct, f64::MAX),
    ] {
        v.map_or(Ok(()), |v| within(what, v, max))?;
    }
    for pct in run.sqlio_histogram_pct.iter().flatten() {
        within("a latency bucket's share", *pct, 100.0)?;
    }
    let figures = |s: &ForeignStats| {
        s.ios.is_some() || s.iops.is_some() || s.bytes_per_sec.is_some() || s.latency_mean_ns.is_some()
    };
    if ![&run.total, &run.read, &run.write].into_iter().any(figures) {
        return Err("no I/Os, rate or latency in any direction".into());
    }
    Ok(())
}

/// A run named by what the file says it did: `4096 B 70% read`.
fn name_of(block_size: Option<u64>, read_pct: Option<f64>) -> String {
    let direction = match read_pct {
        Some(r) if r >= 100.0 => "read".to_string(),
        Some(r) if r <= 0.0 => "write".to_string(),
        Some(r) => format!("{r:.0}% read"),
        None => "I/O".to_string(),
    };
    match block_size {
        Some(b) => format!("{b} B {direction}"),
        None => direction,
    }
}

/// `"line N: why"`.
fn at_line(line: usize, why: impl std::fmt::Display) -> ParseError {
    ParseError(format!("line {line}: {why}"))
}

/// A number as these tools print it; `None` for blanks and `N/A`.
fn number(field: &str) -> Option<f64> {
    let f = field.trim();
    if f.is_empty() || f.eq_ignore_ascii_case("n/a") {
        return None;
    }
    f.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Milliseconds as nanoseconds.
fn ms_to_ns(ms: f64) -> f64 {
    ms * 1e6
}
