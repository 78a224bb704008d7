//! The test's result as the original article's `io_results` table: one row per transaction
//! size, the optimum marked and explained. The leading columns are what the log's volume did
//! where the log has one of its own (the article counted the log file's own I/Os), otherwise
//! the engine's counters, said why; the other source sits beside them, named for what it is.

use serde::Serialize;
use spindle_analysis::log_optimum::{Point, optimum, still_rising};
use spindle_model::RunRecord;
use spindle_model::db::{LogLead, LogTestFigures};
use spindle_model::record::RunStatus;
use std::fmt::Write;

/// One transaction size as `--json` prints it: the record's figures, the leading columns,
/// and whether it is the optimum (with why, on that row).
#[derive(Serialize)]
pub struct Row {
    #[serde(flatten)]
    pub figures: LogTestFigures,
    pub lead: LogLead,
    pub optimum: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimum_why: Option<String>,
    /// The largest size tried, with log MB/s still rising into it: no size levelled off.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub still_rising: bool,
}

/// The log test's records as the table's rows, the optimum chosen among the sizes that ran whole.
pub fn rows(records: &[RunRecord]) -> Vec<Row> {
    let figures: Vec<(LogTestFigures, bool)> =
        records.iter().filter_map(|r| Some((r.details.log_test()?.clone(), r.status == RunStatus::Complete))).collect();
    // Only sizes that ran to the end compete for the optimum.
    let points: Vec<Point> = figures
        .iter()
        .map(|(f, whole)| {
            let lead = f.lead();
            let mb_per_sec = if *whole { lead.mb_per_sec.unwrap_or(0.0) } else { 0.0 };
            Point { size: f.transaction_size, mb_per_sec, queue: lead.queue }
        })
        .collect();
    let best = optimum(&points);
    let rising = still_rising(&points);
    figures
        .into_iter()
        .enumerate()
        .map(|(i, (figures, _))| {
            let why = best.as_ref().filter(|b| b.index == i).map(|b| b.why.clone());
            Row {
                lead: figures.lead(),
                figures,
                optimum: why.is_some(),
                optimum_why: why,
                still_rising: rising == Some(i),
            }
        })
        .collect()
}

/// What a curve still rising at its largest size says, and what to try.
pub fn rising_words(largest: u64) -> String {
    format!(
        "log MB/s was still rising at {largest} rows per transaction, the largest tried, so no size has levelled \
         off yet: try larger sizes (--batch {largest},{})",
        largest.saturating_mul(10)
    )
}

/// The table's columns: what leads (the log's own volume, else the engine's counters) and what
/// sits beside it.
struct Columns<'r> {
    first: &'r LogTestFigures,
    volume: Option<String>,
    frames: bool,
    device_beside: bool,
}

impl<'r> Columns<'r> {
    fn of(rows: &'r [Row]) -> Option<Columns<'r>> {
        let first = rows.first().map(|r| &r.figures)?;
        let volume = rows.iter().find_map(|r| r.lead.volume.clone());
        let frames = rows.iter().any(|r| r.figures.log_frames.is_some());
        let device_beside = volume.is_none() && rows.iter().any(|r| r.figures.device.is_some());
        Some(Columns { first, volume, frames, device_beside })
    }

    /// The heading, and the column where the other source's columns start.
    fn head(&self) -> (Vec<&'r str>, usize) {
        let first = self.first;
        let mut head: Vec<&str> = vec!["xact rows"];
        match self.volume {
            Some(_) => head.extend(["writes", "bytes", "bytes/write", "writes/xact", "MB/s", "flushes", "queue"]),
            None => {
                head.extend([first.writes_name(), first.bytes_name(), "bytes/write", "writes/xact", "MB/s", "syncs"])
            }
        }
        head.push("seconds");
        let beside_from = head.len();
        if self.volume.is_some() {
            head.extend([first.writes_name(), first.bytes_name(), "syncs"]);
        }
        if self.frames {
            head.push("frames");
        }
        if self.device_beside {
            head.extend(["dev writes", "dev bytes"]);
        }
        (head, beside_from)
    }

    /// One transaction size's cells, in the heading's order.
    fn cells(&self, r: &Row) -> Vec<String> {
        let n = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
        let f = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |v| format!("{v:.p$}"));
        let (x, l) = (&r.figures, &r.lead);
        let mut cells = vec![x.transaction_size.to_string(), n(l.writes), n(l.bytes), f(l.bytes_per_write, 0)];
        cells.extend([f(l.writes_per_transaction, 3), f(l.mb_per_sec, 2), n(l.flushes)]);
        if self.volume.is_some() {
            cells.push(f(l.queue, 2));
        }
        cells.push(format!("{:.2}", x.duration_s));
        if self.volume.is_some() {
            cells.extend([n(x.log_write_ios), n(x.log_bytes_written), n(x.log_syncs)]);
        }
        if self.frames {
            cells.push(n(x.log_frames));
        }
        if self.device_beside {
            let d = x.device.as_ref();
            cells.extend([n(d.map(|d| d.data_writes())), n(d.map(|d| d.bytes_written))]);
        }
        cells
    }

    /// Where the leading figures come from, what sits beside them, and the engine's notes.
    fn sources(&self, out: &mut String) {
        let first = self.first;
        match (&self.volume, &first.engine_leads) {
            (Some(v), _) => {
                let _ = writeln!(
                    out,
                    "leading: what the log's own volume ({v}) did over each size's run, from /proc/diskstats \
                     (queue: its mean queue length); beside them, the engine's counters from {}",
                    first.source
                );
            }
            (None, why) => {
                let why = why.as_deref().unwrap_or("this record does not say where the log is");
                let _ = writeln!(out, "leading: the engine's counters, from {}: {why}", first.source);
                if let Some(d) = first.device.as_ref().filter(|_| self.device_beside) {
                    let _ = writeln!(
                        out,
                        "dev: what the log's volume ({}) did over the same time (its writes that carried data), from /proc/diskstats",
                        d.device
                    );
                }
            }
        }
        for note in &first.notes {
            let _ = writeln!(out, "note: {note}");
        }
        for m in &first.missing {
            let _ = writeln!(out, "not measured: {m}");
        }
    }
}

/// The test's table as `spindle logtest` prints it: a line per transaction size, right-aligned
/// columns, the optimum marked and explained, then where the figures come from.
pub fn render(db: &str, rows: &[Row]) -> String {
    let mut out = format!("log test on {db}\n");
    let Some(columns) = Columns::of(rows) else { return out };
    let (head, beside_from) = columns.head();
    let mut lines: Vec<Vec<String>> = vec![head.iter().map(|h| h.to_string()).collect()];
    lines.extend(rows.iter().map(|r| columns.cells(r)));
    let widths: Vec<usize> =
        (0..head.len()).map(|c| lines.iter().map(|l| l.get(c).map_or(0, String::len)).max().unwrap_or(0)).collect();
    for (i, line) in lines.iter().enumerate() {
        let mut text = String::new();
        for (c, cell) in line.iter().enumerate() {
            // Three spaces set the other source's columns apart from the leading ones.
            let gap = if c == 0 {
                ""
            } else if c == beside_from {
                "   "
            } else {
                " "
            };
            let _ = write!(text, "{gap}{cell:>w$}", w = widths[c]);
        }
        let mark = match rows.get(i.wrapping_sub(1)) {
            Some(r) if r.optimum => "  <- optimum",
            Some(r) if r.still_rising => "  <- still rising",
            _ => "",
        };
        let _ = writeln!(out, "{text}{mark}");
    }
    if let Some(why) = rows.iter().find_map(|r| r.optimum_why.as_deref()) {
        let _ = writeln!(out, "\noptimum: {why}");
    }
    if let Some(r) = rows.iter().find(|r| r.still_rising) {
        let _ = writeln!(out, "\nno optimum: {}", rising_words(r.figures.transaction_size));
    }
    columns.sources(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::KindData;
    use spindle_model::db::DeviceIo;

    /// A PostgreSQL size whose WAL volume wrote `dev_mb` MB with mean queue `queue`, while
    /// the engine's counters said something else.
    fn record(size: u64, dev_mb: f64, queue: f64, own: bool) -> RunRecord {
        let device = DeviceIo {
            device: "loop7".into(),
            writes: 1000 / size,
            bytes_written: (dev_mb * 1e6) as u64,
            flushes: Some(1000 / size),
            queue_ms: Some((queue * 1000.0) as u64),
            seconds: Some(1.0),
            ..DeviceIo::default()
        };
        let mut figures = LogTestFigures {
            transaction_size: size,
            rows: 1000,
            commits: 1000 / size,
            log_write_ios: Some(3 * 1000 / size),
            // The engine's MB/s peaks at the largest size; the volume's levels off at 10.
            log_bytes_written: Some(size * 1_000_000),
            log_syncs: Some(1000 / size),
            duration_s: 1.0,
            device: Some(device),
            own_volume: own,
            engine_leads: (!own).then(|| "the log shares its volume (loop7) with the data".into()),
            log_writes_are: "write() calls".into(),
            log_bytes_are: "WAL generated".into(),
            source: "pg_stat_wal".into(),
            ..LogTestFigures::default()
        };
        figures.derive();
        let details = KindData::LogTest { spec: Default::default(), figures };
        RunRecord::new(details, RunStatus::Complete, std::time::SystemTime::UNIX_EPOCH, 1.0)
    }

    #[test]
    fn the_logs_own_volume_leads_and_chooses_the_optimum() {
        let curve = [(1, 10.0, 0.5), (10, 38.0, 0.6), (100, 40.0, 1.5), (1000, 40.0, 2.0)];
        let own: Vec<RunRecord> = curve.iter().map(|&(s, mb, q)| record(s, mb, q, true)).collect();
        let rows = rows(&own);
        let best = rows.iter().find(|r| r.optimum).unwrap();
        assert_eq!(best.figures.transaction_size, 10, "the volume's curve, not the engine's");
        assert!(best.optimum_why.as_deref().unwrap().contains("the write queue grows past it"));
        let text = render("postgres://x", &rows);
        let head = text.lines().nth(1).unwrap();
        assert!(head.contains("writes") && head.contains("flushes") && head.contains("queue"), "{head}");
        assert!(head.find("queue").unwrap() < head.find("write() calls").unwrap(), "the engine's sit beside: {head}");
        assert!(text.contains("leading: what the log's own volume (loop7) did"), "{text}");
        assert!(text.contains("optimum: 10 rows per transaction: log MB/s within 10% of the best"), "{text}");

        let shared: Vec<RunRecord> = curve.iter().map(|&(s, mb, q)| record(s, mb, q, false)).collect();
        let rows = super::rows(&shared);
        // The engine's curve rises tenfold at every size: still rising at the largest, no optimum.
        assert!(rows.iter().all(|r| !r.optimum));
        assert_eq!(rows.iter().find(|r| r.still_rising).unwrap().figures.transaction_size, 1000, "the engine's curve");
        let text = render("postgres://x", &rows);
        assert!(text.contains("  <- still rising\n"), "{text}");
        assert!(
            text.contains(
                "no optimum: log MB/s was still rising at 1000 rows per transaction, the largest tried, so no \
                           size has levelled off yet: try larger sizes (--batch 1000,10000)"
            ),
            "{text}"
        );
        let head = text.lines().nth(1).unwrap();
        assert!(head.contains("write() calls") && head.contains("dev writes") && !head.contains("queue"), "{head}");
        assert!(text.contains("leading: the engine's counters, from pg_stat_wal: the log shares its volume"), "{text}");
    }
}
