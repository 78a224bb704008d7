//! DiskSpd's text output (-Rtext): the optional `Command Line:` and `Input parameters:`
//! blocks, then per timespan the test time, thread count, CPU table, the Total/Read/Write IO
//! tables (columns found by their headers: AvgLat and LatStdDev only with -L, IopsStdDev
//! only with -D, `MB/s` before 2.0.18a) and the latency percentile table. One run per
//! timespan.

use super::{ForeignRun, ForeignStats, ForeignThread, Tool, at_line, ms_to_ns, number};
use crate::ParseError;

#[derive(Default)]
struct Params {
    command_line: Option<String>,
    duration_s: Option<f64>,
    warmup_s: Option<f64>,
    path: Option<String>,
    block_size: Option<u64>,
    random: Option<bool>,
    read_pct: Option<f64>,
    depth: Option<u32>,
    started_at: Option<String>,
    /// `measuring latency` among the input parameters (-L): the latency table must follow.
    latency: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Table {
    Total,
    Read,
    Write,
}

pub fn parse(text: &str) -> Result<Vec<ForeignRun>, ParseError> {
    let mut params = Params::default();
    let mut runs: Vec<(usize, ForeignRun)> = Vec::new();
    let mut header: Vec<String> = Vec::new();
    let mut table: Option<Table> = None;
    let mut in_latency = false;
    // The line of a latency table's header until its `max` row, the table's last, is read: a
    // table cut before it would leave the percentiles after the cut as zeros.
    let mut open_table: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.starts_with("Results for timespan") {
            table_closed(open_table)?;
            runs.push((n, ForeignRun { tool: Some(Tool::Diskspd), ..ForeignRun::default() }));
            table = None;
            in_latency = false;
            continue;
        }
        let Some((_, run)) = runs.last_mut() else {
            input_line(&mut params, line);
            continue;
        };
        if let Some(v) = value(line, "actual test time:") {
            run.duration_s = number(v.trim_end_matches('s'));
        } else if let Some(v) = value(line, "thread count:") {
            run.threads = v.parse().ok();
        } else if let Some(rest) = line.strip_prefix("avg.|") {
            run.cpu_pct = rest.split('|').next().and_then(|c| number(c.trim().trim_end_matches('%')));
        } else if line == "Total IO" || line == "Read IO" || line == "Write IO" {
            table = Some(match line {
                "Total IO" => Table::Total,
                "Read IO" => Table::Read,
                _ => Table::Write,
            });
            in_latency = false;
        } else if line.starts_with("thread |") {
            header = line.split('|').map(|c| c.trim().to_string()).collect();
        } else if line.starts_with("%-ile |") {
            table_closed(open_table)?;
            in_latency = true;
            open_table = Some(n);
            table = None;
        } else if line.starts_with('-') || !line.contains('|') {
            // Rules, blank lines, and table titles (`total:`, `Latency distribution: <path>`).
            continue;
        } else if in_latency {
            latency_row(n, run, line)?;
            if line.starts_with("max ") {
                open_table = None;
            }
        } else if let Some(t) = table {
            io_row(n, run, t, &header, line)?;
        }
    }
    table_closed(open_table)?;
    if runs.is_empty() {
        return Err(ParseError("no \"Results for timespan\" section: the DiskSpd output is cut short".into()));
    }
    runs.into_iter().map(|(start, run)| finish(start, run, &params)).collect()
}

/// An error naming the latency table begun at `open`, if one is not ended by its `max` row.
fn table_closed(open: Option<usize>) -> Result<(), ParseError> {
    match open {
        Some(start) => {
            Err(at_line(start, "the latency table ends before its max row: the file is cut short inside it"))
        }
        None => Ok(()),
    }
}

fn value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.strip_prefix(key).map(str::trim)
}

/// A line of the `Command Line:`, `Input parameters:` or `System information:` blocks.
fn input_line(p: &mut Params, line: &str) {
    if let Some(v) = value(line, "Command Line:") {
        p.command_line = Some(v.to_string());
    } else if let Some(v) = value(line, "duration:") {
        p.duration_s = number(v.trim_end_matches('s'));
    } else if let Some(v) = value(line, "warm up time:") {
        p.warmup_s = number(v.trim_end_matches('s'));
    } else if let Some(v) = value(line, "path:") {
        p.path = Some(v.trim_matches('\'').to_string());
    } else if let Some(v) = value(line, "block size:") {
        p.block_size = size(v);
    } else if line.starts_with("using random I/O") {
        p.random = Some(true);
    } else if line.starts_with("using sequential I/O") || line.starts_with("using interlocked sequential I/O") {
        p.random = Some(false);
    } else if let Some(v) = line.strip_prefix("performing mix test (read/write ratio: ") {
        p.read_pct = v.split('/').next().and_then(number);
    } else if line == "measuring latency" {
        p.latency = true;
    } else if line == "performing write test" {
        p.read_pct = Some(0.0);
    } else if line == "performing read test" {
        p.read_pct = Some(100.0);
    } else if let Some(v) = line.strip_prefix("number of outstanding I/O operations") {
        p.depth = v.rsplit(':').next().and_then(|d| d.trim().parse().ok());
    } else if let Some(v) = value(line, "start time:") {
        p.started_at = start_time(v);
    }
}

/// `4096`, `4KiB`, `1MiB`.
fn size(v: &str) -> Option<u64> {
    let v = v.trim();
    let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
    let n: u64 = digits.parse().ok()?;
    let factor = match v[digits.len()..].trim() {
        "" | "B" => 1,
        "KiB" | "K" | "KB" => 1 << 10,
        "MiB" | "M" | "MB" => 1 << 20,
        "GiB" | "G" | "GB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(factor)
}

/// `2021/04/16 19:03:38 UTC` as RFC 3339.
fn start_time(v: &str) -> Option<String> {
    let v = v.strip_suffix("UTC")?.trim();
    let (date, time) = v.split_once(' ')?;
    let date = date.replace('/', "-");
    (date.len() == 10 && time.len() == 8).then(|| format!("{date}T{time}Z"))
}

/// A row of an IO table: one thread's (`0 | bytes | I/Os | ...`) or the `total:` row.
fn io_row(n: usize, run: &mut ForeignRun, table: Table, header: &[String], line: &str) -> Result<(), ParseError> {
    let mut cells: Vec<&str> = line.split('|').map(str::trim).collect();
    let total = cells.first().is_some_and(|c| c.starts_with("total:"));
    let thread = if total {
        cells[0] = cells[0].trim_start_matches("total:").trim();
        None
    } else {
        Some(
            cells
                .remove(0)
                .parse::<u32>()
                .map_err(|_| at_line(n, "an IO table row that is neither a thread's nor total:"))?,
        )
    };
    // Cells now line up with the header after its `thread` column.
    let col = |name: &str| header.iter().skip(1).position(|h| h == name).and_then(|i| cells.get(i).copied());
    let count = |name: &str| -> Result<Option<u64>, ParseError> {
        match col(name) {
            Some(c) => c.parse().map(Some).map_err(|_| at_line(n, format_args!("{name} {c:?} is not a number"))),
            None => Ok(None),
        }
    };
    let mib = col("MiB/s").and_then(number).map(|v| v * 1_048_576.0);
    let mb = col("MB/s").and_then(number).map(|v| v * 1_048_576.0);
    let stats = ForeignStats {
        bytes: count("bytes")?,
        ios: count("I/Os")?,
        iops: col("I/O per s").and_then(number),
        bytes_per_sec: mib.or(mb),
        latency_mean_ns: col("AvgLat").and_then(number).map(ms_to_ns),
        latency_stddev_ns: col("LatStdDev").and_then(number).map(ms_to_ns),
        ..ForeignStats::default()
    };
    if stats.ios.is_none() || stats.bytes.is_none() {
        return Err(at_line(n, "an IO table row without bytes and I/Os"));
    }
    match (thread, table) {
        (None, Table::Total) => merge(&mut run.total, stats),
        (None, Table::Read) => merge(&mut run.read, stats),
        (None, Table::Write) => merge(&mut run.write, stats),
        (Some(t), Table::Total) => run.threads_detail.push(ForeignThread {
            thread: t,
            target: col("file").map(|f| f.rsplit_once(" (").map_or(f, |(p, _)| p).to_string()),
            stats,
        }),
        (Some(_), _) => {}
    }
    Ok(())
}

/// Keeps latency percentiles already read (the percentile table may come first in no layout,
/// but a second timespan's tables must not mix with the first's).
fn merge(into: &mut ForeignStats, from: ForeignStats) {
    let percentiles = std::mem::take(&mut into.percentiles_ns);
    let (min, max) = (into.latency_min_ns, into.latency_max_ns);
    *into = ForeignStats { percentiles_ns: percentiles, latency_min_ns: min, latency_max_ns: max, ..from };
}

/// `    min |      0.036 |      1.209 |      0.036`, `3-nines | ...`.
fn latency_row(n: usize, run: &mut ForeignRun, line: &str) -> Result<(), ParseError> {
    let cells: Vec<&str> = line.split('|').map(str::trim).collect();
    if cells.len() != 4 {
        return Err(at_line(n, "a latency row without Read, Write and Total columns"));
    }
    let pct = match cells[0] {
        "min" => None,
        "max" => Some(f64::INFINITY),
        name => Some(percentile(name).ok_or_else(|| at_line(n, format_args!("{name:?} is not a percentile")))?),
    };
    for (stats, cell) in [(&mut run.read, cells[1]), (&mut run.write, cells[2]), (&mut run.total, cells[3])] {
        let Some(ms) = number(cell) else { continue };
        match pct {
            None => stats.latency_min_ns = Some(ms_to_ns(ms)),
            Some(p) if p.is_infinite() => stats.latency_max_ns = Some(ms_to_ns(ms)),
            Some(p) => stats.percentiles_ns.push((p, ms_to_ns(ms))),
        }
    }
    Ok(())
}

/// `25th` -> 25, `3-nines` -> 99.9, `9-nines` -> 99.9999999.
fn percentile(name: &str) -> Option<f64> {
    if let Some(n) = name.strip_suffix("th").or_else(|| name.strip_suffix("st")).or_else(|| name.strip_suffix("nd")) {
        return n.parse().ok();
    }
    let nines: i32 = name.strip_suffix("-nines")?.parse().ok()?;
    Some(100.0 - 100.0 * 10f64.powi(-nines))
}

fn finish(start: usize, mut run: ForeignRun, p: &Params) -> Result<ForeignRun, ParseError> {
    if run.total.ios.is_none() {
        return Err(at_line(start, "this timespan has no Total IO table (the file is cut short?)"));
    }
    // DiskSpd writes all three tables, each ending in its total row, whatever the mix (a
    // read-only test's Write IO is zeros), and the latency table whenever -L was given: one
    // missing is a file cut short, whose read/write split would be lost.
    for (table, stats) in [("Read IO", &run.read), ("Write IO", &run.write)] {
        if stats.ios.is_none() {
            return Err(at_line(start, format_args!("this timespan has no {table} total (the file is cut short)")));
        }
    }
    let asked_latency = p.latency || p.command_line.as_deref().is_some_and(|c| c.split_whitespace().any(|w| w == "-L"));
    if asked_latency && run.total.percentiles_ns.is_empty() {
        return Err(at_line(
            start,
            "this timespan has no latency table though -L asked for one (the file is cut short)",
        ));
    }
    run.tool_version = p
        .command_line
        .as_deref()
        .and_then(|c| {
            // The path of VirtualClient's package names the version: ...\diskspd.2.2.0\...
            c.split(['\\', '/'])
                .find_map(|part| part.strip_prefix("diskspd.").filter(|v| v.starts_with(|c: char| c.is_ascii_digit())))
        })
        .map(str::to_string);
    run.command_line = p.command_line.clone();
    run.warmup_s = p.warmup_s;
    run.target = p.path.clone().or_else(|| run.threads_detail.first().and_then(|t| t.target.clone()));
    run.block_size = p.block_size.or_else(|| flag(p, "-b").and_then(size));
    run.random_pct = p.random.map(|r| if r { 100.0 } else { 0.0 }).or_else(|| flag(p, "-r").map(|_| 100.0));
    run.read_pct = p.read_pct.or_else(|| flag(p, "-w").and_then(number).map(|w| 100.0 - w));
    run.queue_depth = p.depth.or_else(|| flag(p, "-o").and_then(|o| o.parse().ok()));
    run.started_at = p.started_at.clone();
    if run.duration_s.is_none() {
        run.duration_s = p.duration_s;
    }
    run.name = super::name_of(run.block_size, run.read_pct);
    if run.command_line.is_none() {
        run.notes.push("The file has no Command Line: the settings are those its Input parameters state.".into());
    }
    Ok(run)
}

/// The value of a flag on the command line (`-b4K` -> `4K`).
fn flag<'a>(p: &'a Params, name: &str) -> Option<&'a str> {
    p.command_line.as_deref()?.split_whitespace().find_map(|w| w.strip_prefix(name).filter(|v| !v.is_empty()))
}
