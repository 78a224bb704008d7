//! The operations as the article reads them: each one's time, and the I/O its volumes saw
//! (MB/s read and written, the average sizes of a read and a write), cold or warm.

use spindle_model::RunRecord;
use std::fmt::Write;

pub fn render(db: &str, records: &[RunRecord]) -> String {
    let mut out = format!("large operations on {db}\n");
    let _ = writeln!(
        out,
        "{:<11} {:>12} {:>9} {:>11} {:>9} {:>9} {:>11} {:>11}  cache",
        "operation", "rows", "seconds", "rows/s", "read MB/s", "write MB/s", "KB/read", "KB/write"
    );
    for r in records {
        let Some(f) = r.details.large_op() else { continue };
        let secs = f.seconds.max(1e-9);
        let read: u64 = f.volumes.iter().map(|v| v.bytes_read).sum();
        let written: u64 = f.volumes.iter().map(|v| v.bytes_written).sum();
        let (reads, writes): (u64, u64) =
            (f.volumes.iter().map(|v| v.reads).sum(), f.volumes.iter().map(|v| v.writes).sum());
        let kb = |bytes: u64, n: u64| {
            if n == 0 { "-".to_string() } else { format!("{:.1}", bytes as f64 / n as f64 / 1024.0) }
        };
        let cache = match f.cold {
            Some(true) => "cold",
            Some(false) => "warm",
            None => "",
        };
        // A checkpoint writes pages, not rows.
        let rate = if f.operation == "checkpoint" { "-".to_string() } else { format!("{:.0}", f.rows as f64 / secs) };
        let _ = writeln!(
            out,
            "{:<11} {:>12} {:>9.2} {:>11} {:>9.1} {:>9.1} {:>11} {:>11}  {cache}",
            f.operation,
            f.rows,
            f.seconds,
            rate,
            read as f64 / 1e6 / secs,
            written as f64 / 1e6 / secs,
            kb(read, reads),
            kb(written, writes),
        );
    }
    let volumes: Vec<String> = records
        .iter()
        .filter_map(|r| r.details.large_op())
        .flat_map(|f| f.volumes.iter().map(|v| v.device.clone()))
        .collect();
    let mut volumes = volumes;
    volumes.sort();
    volumes.dedup();
    if !volumes.is_empty() {
        let _ = writeln!(
            out,
            "I/O: what the volumes under the data and the log ({}) did, from /proc/diskstats",
            volumes.join(", ")
        );
    }
    for f in records.iter().filter_map(|r| r.details.large_op()) {
        if let Some(why) = &f.cold_why {
            let _ = writeln!(out, "{}: {why}", f.operation);
        }
        if let Some(n) = f.automatic_checkpoints.filter(|n| *n > 0) {
            let _ = writeln!(out, "{}: {n} automatic checkpoint(s) ran during it", f.operation);
        }
    }
    for w in records.first().map(|r| r.warnings.as_slice()).unwrap_or_default() {
        let _ = writeln!(out, "note: {w}");
    }
    out
}
