//! The operations as the article reads them: each one's time, then what the data's volume and
//! the log's did during it, apart (reads, writes that carried data, flushes, KB a read and a
//! write, MB/s, queue), or one "data and log" row where they share a volume; cold or warm.

use spindle_model::RunRecord;
use spindle_model::db::{LargeOpFigures, RoleIo};
use std::fmt::Write;

pub fn render(db: &str, records: &[RunRecord]) -> String {
    let ops: Vec<&LargeOpFigures> = records.iter().filter_map(|r| r.details.large_op()).collect();
    let mut out = format!("large operations on {db}\n");
    let _ = writeln!(
        out,
        "{:<13} {:>11} {:>9} {:>9} {:>10} {:>8} {:>8} {:>9} {:>9} {:>8} {:>6}  cache",
        "operation", "rows", "seconds", "rows/s", "reads", "writes", "flushes", "KB/read", "KB/write", "MB/s", "queue"
    );
    for f in &ops {
        let cache = match f.cold {
            Some(true) => "cold",
            Some(false) => "warm",
            None => "",
        };
        // A checkpoint writes pages, not rows: it has no rate of rows.
        let rate =
            if f.has_row_rate() { format!("{:.0}", f.rows as f64 / f.seconds.max(1e-9)) } else { "-".to_string() };
        let line = format!("{:<13} {:>11} {:>9.2} {:>9} {:>64}  {cache}", f.operation, f.rows, f.seconds, rate, "");
        let _ = writeln!(out, "{}", line.trim_end());
        for r in f.roles() {
            let _ = writeln!(out, "{}", role_line(&r));
        }
    }
    let roles: Vec<RoleIo> = ops.iter().flat_map(|f| f.roles()).collect();
    let mut named: Vec<String> =
        roles.iter().map(|r| format!("{} on {}", r.role.name(), r.devices.join("+"))).collect();
    named.dedup();
    named.sort();
    named.dedup();
    if !named.is_empty() {
        let _ = writeln!(
            out,
            "I/O: what each volume did during each operation, from /proc/diskstats ({}); writes are those that \
             carried data, flushes counted apart; MB/s read+written",
            named.join("; ")
        );
    }
    if roles.iter().any(|r| r.shared) {
        let _ = writeln!(out, "a volume holds both data and log files: its I/O is in both rows");
    }
    for f in &ops {
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

/// One role's row under its operation: `  data  loop1` and its figures.
pub fn role_line(r: &RoleIo) -> String {
    let kb = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    let queue = r.queue.map_or("-".to_string(), |q| format!("{q:.2}"));
    let flushes = r.flushes.map_or("-".to_string(), |n| n.to_string());
    format!(
        "  {:<43} {:>10} {:>8} {:>8} {:>9} {:>9} {:>8.1} {:>6}",
        format!("{} ({})", r.role.name(), r.devices.join("+")),
        r.reads,
        r.writes,
        flushes,
        kb(r.kb_per_read),
        kb(r.kb_per_write),
        r.read_mb_per_sec + r.write_mb_per_sec,
        queue
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::KindData;
    use spindle_model::db::DeviceIo;
    use spindle_model::record::RunStatus;

    fn volume(device: &str, writes: u64, bytes_written: u64) -> DeviceIo {
        DeviceIo {
            device: device.into(),
            reads: 10,
            bytes_read: 40_960,
            writes,
            bytes_written,
            queue_ms: Some(3000),
            seconds: Some(2.0),
            ..DeviceIo::default()
        }
    }

    fn op(operation: &str, data: &[&str], log: &[&str], volumes: Vec<DeviceIo>) -> RunRecord {
        let mut figures = LargeOpFigures {
            operation: operation.into(),
            rows: 1000,
            seconds: 2.0,
            volumes,
            data_volumes: data.iter().map(|s| s.to_string()).collect(),
            log_volumes: log.iter().map(|s| s.to_string()).collect(),
            ..LargeOpFigures::default()
        };
        figures.roles = figures.by_role();
        let details = KindData::LargeOps { spec: Default::default(), figures };
        RunRecord::new(details, RunStatus::Complete, std::time::SystemTime::UNIX_EPOCH, 2.0)
    }

    #[test]
    fn data_and_log_each_have_a_row_under_their_operation() {
        let vols = vec![volume("loop1", 100, 100 * 64 * 1024), volume("loop2", 10, 10 * 934 * 1024)];
        let text = render("postgres://x", &[op("update", &["loop1"], &["loop2"], vols.clone())]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[2].starts_with("update") && lines[2].contains("500"), "{text}");
        let data = lines[3].split_whitespace().collect::<Vec<_>>();
        assert_eq!(data, ["data", "(loop1)", "10", "100", "-", "4.0", "64.0", "3.3", "1.50"], "{text}");
        let log = lines[4].split_whitespace().collect::<Vec<_>>();
        assert_eq!(log, ["log", "(loop2)", "10", "10", "-", "4.0", "934.0", "4.8", "1.50"], "{text}");
        assert!(!text.contains("IOs/sec") && !text.contains("data and log"), "{text}");
        // One volume for both: one row, said so.
        let shared = render("x", &[op("load", &["vda"], &["vda"], vec![volume("vda", 110, 100)])]);
        assert!(shared.lines().nth(3).unwrap().trim_start().starts_with("data and log (vda)"), "{shared}");
    }

    #[test]
    fn a_log_row_counts_the_writes_that_carried_data_and_its_flushes_beside() {
        // The log's volume counted 288 writes, 60 of them flushes this kernel counts as writes
        // too: 228 writes of 1 MiB (1,024 KB a write, not 811), and 60 flushes.
        let log = DeviceIo { flushes: Some(60), empty_writes: Some(60), ..volume("loop2", 288, 228 << 20) };
        let text = render("x", &[op("load", &["loop1"], &["loop2"], vec![volume("loop1", 5, 5 * 8192), log])]);
        let row: Vec<&str> = text.lines().nth(4).unwrap().split_whitespace().collect();
        assert_eq!(row, ["log", "(loop2)", "10", "228", "60", "4.0", "1024.0", "119.6", "1.50"], "{text}");
        assert!(text.contains("writes are those that carried data"), "{text}");
    }

    #[test]
    fn a_checkpoint_has_no_rate_of_rows() {
        let text = render("x", &[op("checkpoint", &["loop1"], &["loop2"], vec![volume("loop1", 5, 5 * 8192)])]);
        let head: Vec<&str> = text.lines().nth(2).unwrap().split_whitespace().collect();
        assert_eq!(head, ["checkpoint", "1000", "2.00", "-"], "{text}");
    }
}
