//! Other I/O benchmarks' result files, read into one neutral shape: SQLIO text, DiskSpd text
//! and XML, fio JSON, IOMeter results CSV (../shared/reference/io-tools.md describes each). A figure
//! a file does not give stays `None`, never a made-up zero; what was assumed is in `notes`.
//! A file that breaks anywhere is an error naming the line (or byte), so nothing half-read is
//! ever imported. fio's JSON is read as a stream (`read`), a job at a time: its files run to
//! hundreds of MB.

mod diskspd;
mod diskspd_xml;
mod fio;
mod fio_stream;
mod iometer;
mod lossy;
pub mod record;
mod sqlio;
#[cfg(test)]
mod tests;
mod xml_depth;

use crate::ParseError;
use std::io::Read;
use std::ops::ControlFlow;

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

/// How much of the start of a file tells which tool wrote it: a file read as a stream is told
/// from the same bytes as one read whole.
const DETECT: usize = 64 << 10;
/// The most of a file read whole (all but fio's JSON): more than any such file holds.
const WHOLE_LIMIT: u64 = 256 << 20;

/// Which tool wrote `text`, from its content (its first `DETECT` bytes).
pub fn detect(text: &str) -> Option<Tool> {
    let mut end = text.len().min(DETECT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let start = text[..end].trim_start_matches('\u{feff}').trim_start();
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

/// Every run in the file, as `read` reads it.
pub fn parse(text: &str) -> Result<Vec<ForeignRun>, ParseError> {
    let mut runs = Vec::new();
    read(text.as_bytes(), |run| {
        runs.push(run);
        ControlFlow::Continue(())
    })?;
    Ok(runs)
}

/// Every run in the file `input` reads, each handed to `each` as soon as it is read, until
/// `each` returns `Break`: fio's JSON a job at a time, in bounded memory; the other formats
/// once the whole file is read (up to `WHOLE_LIMIT`). Bytes that are not UTF-8 are read as
/// U+FFFD. A file that breaks after some of its runs were handed on is an error all the
/// same: the runs handed on are to be dropped.
pub fn read(input: impl Read, mut each: impl FnMut(ForeignRun) -> ControlFlow<()>) -> Result<(), ParseError> {
    let cannot = |e: std::io::Error| ParseError(format!("cannot read the file: {e}"));
    let mut text = lossy::Lossy::new(input);
    let mut head = Vec::with_capacity(DETECT);
    (&mut text).take(DETECT as u64).read_to_end(&mut head).map_err(cannot)?;
    // The first bytes may end inside a character.
    let tool = detect(&String::from_utf8_lossy(&head));
    let bom = if head.starts_with("\u{feff}".as_bytes()) { 3 } else { 0 };
    let mut count = 0;
    let mut checked = |run: ForeignRun| -> Result<ControlFlow<()>, ParseError> {
        count += 1;
        Ok(each(check(count, run)?))
    };
    // fio's JSON is streamed; the others are read whole, then parsed.
    let whole: Option<ParseWhole> = match tool {
        Some(Tool::Fio) => None,
        Some(Tool::Sqlio) => Some(sqlio::parse),
        Some(Tool::Diskspd) => Some(diskspd_text_or_xml),
        Some(Tool::Iometer) => Some(iometer::parse),
        None => Some(no_format),
    };
    if let Some(parse) = whole {
        let mut whole = head;
        (&mut text).take(WHOLE_LIMIT + 1).read_to_end(&mut whole).map_err(cannot)?;
        if whole.len() as u64 > WHOLE_LIMIT {
            return Err(ParseError(format!(
                "larger than {} MiB, more than any {FORMATS} file holds",
                WHOLE_LIMIT >> 20
            )));
        }
        // Valid UTF-8 already: borrowed, not copied.
        for run in parse(&String::from_utf8_lossy(&whole[bom..]))? {
            if checked(run)?.is_break() {
                return Ok(());
            }
        }
    } else {
        fio::read(std::io::Cursor::new(&head[bom..]).chain(text), &mut checked)?;
    }
    if count == 0 {
        return Err(ParseError("the file holds no complete run".into()));
    }
    Ok(())
}

/// A reader of a format read whole.
type ParseWhole = fn(&str) -> Result<Vec<ForeignRun>, ParseError>;

fn diskspd_text_or_xml(text: &str) -> Result<Vec<ForeignRun>, ParseError> {
    if text.trim_start().starts_with('<') { diskspd_xml::parse(text) } else { diskspd::parse(text) }
}

/// A file no tool's: empty, or not one of `FORMATS`.
fn no_format(text: &str) -> Result<Vec<ForeignRun>, ParseError> {
    if text.trim().is_empty() {
        Err(ParseError("the file is empty".into()))
    } else {
        Err(ParseError(format!("not a result file spindle imports ({FORMATS})")))
    }
}

/// The `n`th run of a file, if its figures are sane, with its words made printable.
fn check(n: usize, mut run: ForeignRun) -> Result<ForeignRun, ParseError> {
    sane(&run).map_err(|why| ParseError(format!("run {n} ({}): {why}", printable(&run.name))))?;
    printable_text(&mut run);
    Ok(run)
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
    // A total the file does not print is its reads' and writes' sum (record::stats_of).
    let (r, w) = (&run.read, &run.write);
    for (what, a, b) in [("I/O counts", r.ios, w.ios), ("byte counts", r.bytes, w.bytes)] {
        if let (Some(a), Some(b)) = (a, b)
            && a.checked_add(b).is_none()
        {
            return Err(format!("the read and write {what} ({a} and {b}) add up past any count"));
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
