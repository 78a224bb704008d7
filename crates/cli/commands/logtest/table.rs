//! The test's result as the original article's `io_results` table: one row per transaction
//! size, the optimum marked, the volume's own counts beside the engine's.

use serde::Serialize;
use spindle_db::logtest::optimum;
use spindle_model::RunRecord;
use spindle_model::db::LogTestFigures;
use spindle_model::record::RunStatus;
use std::fmt::Write;

/// One transaction size as `--json` prints it: the record's figures, and whether it is the
/// optimum.
#[derive(Serialize)]
pub struct Row {
    #[serde(flatten)]
    pub figures: LogTestFigures,
    pub optimum: bool,
}

pub fn rows(records: &[RunRecord]) -> Vec<Row> {
    let figures: Vec<(LogTestFigures, bool)> =
        records.iter().filter_map(|r| Some((r.details.log_test()?.clone(), r.status == RunStatus::Complete))).collect();
    // Only sizes that ran to the end compete for the optimum.
    let points: Vec<(u64, f64)> = figures
        .iter()
        .map(|(f, whole)| (f.transaction_size, if *whole { f.mb_per_sec.unwrap_or(0.0) } else { 0.0 }))
        .collect();
    let best = optimum(&points);
    figures.into_iter().enumerate().map(|(i, (figures, _))| Row { figures, optimum: Some(i) == best }).collect()
}

pub fn render(db: &str, rows: &[Row]) -> String {
    let mut out = format!("log test on {db}\n");
    let _ = writeln!(
        out,
        "{:>11} {:>9} {:>12} {:>10} {:>9} {:>10} {:>12} {:>8} {:>9}   {:>10} {:>12}",
        "xact rows",
        "write IOs",
        "bytes",
        "IOs/row",
        "IOs/xact",
        "syncs",
        "bytes/IO",
        "MB/s",
        "seconds",
        "dev writes",
        "dev bytes"
    );
    let n = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    let f = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |v| format!("{v:.p$}"));
    for r in rows {
        let x = &r.figures;
        let (dw, db) =
            x.device.as_ref().map_or(("-".into(), "-".into()), |d| (d.writes.to_string(), d.bytes_written.to_string()));
        let _ = writeln!(
            out,
            "{:>11} {:>9} {:>12} {:>10} {:>9} {:>10} {:>12} {:>8} {:>9.2}   {:>10} {:>12}{}",
            x.transaction_size,
            n(x.log_write_ios),
            n(x.log_bytes_written),
            f(x.ios_per_row, 3),
            f(x.ios_per_transaction, 3),
            n(x.log_syncs),
            f(x.bytes_per_io, 0),
            f(x.mb_per_sec, 2),
            x.duration_s,
            dw,
            db,
            if r.optimum { "  <- optimum" } else { "" }
        );
    }
    if let Some(best) = rows.iter().find(|r| r.optimum) {
        let _ = writeln!(
            out,
            "\noptimum: {} rows per transaction, the smallest size within 10% of the best log MB/s",
            best.figures.transaction_size
        );
    }
    if let Some(first) = rows.first() {
        let _ = writeln!(out, "log figures from {}", first.figures.source);
        let device = first.figures.device.as_ref().map(|d| d.device.clone());
        if let Some(d) = device {
            let _ = writeln!(out, "dev: what the log's volume ({d}) did over the same time, from /proc/diskstats");
        }
        for n in &first.figures.notes {
            let _ = writeln!(out, "note: {n}");
        }
        for m in &first.figures.missing {
            let _ = writeln!(out, "not measured: {m}");
        }
    }
    out
}
