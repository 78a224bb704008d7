//! A Hammer load as a run record: rows are the operations (written), the database file's
//! growth the bytes; the record counts rows.

use super::LoadOutcome;
use crate::DbUrl;
use spindle_model::db_spec::LoadSpec;
use spindle_model::record::{CpuUsage, IoStats, RunRecord, RunStatus, TargetResult, TimePoint};
use spindle_model::{Histogram, KindData};
use std::path::Path;
use std::time::SystemTime;

/// The load as a run record: rows are the operations (written), the database file's growth
/// the bytes; there is no per-row latency.
pub fn load_record(url: &DbUrl, rows: u64, out: &LoadOutcome, bytes: u64, started_at: SystemTime) -> RunRecord {
    let secs = out.elapsed.as_secs_f64();
    let empty = Histogram::new();
    let mut stats = IoStats::from_histograms(&empty, &empty, &empty, 0, bytes, secs, CpuUsage::default());
    let per_sec = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
    stats.ios = out.rows_loaded;
    stats.iops = per_sec(out.rows_loaded);
    stats.write.ios = out.rows_loaded;
    stats.write.iops = stats.iops;
    let series = TimePoint::per_second(&out.per_second, secs);
    let path = url.path.as_deref().unwrap_or(Path::new("")).display().to_string();
    let status = if out.interrupted { RunStatus::Interrupted } else { RunStatus::Complete };
    let spec = LoadSpec { db: url.to_string(), engine: url.engine.name().into(), rows, rows_before: out.rows_before };
    // What cut the load short is counted as the record's failed operation, as the log test's.
    let errors = out.failure.iter().map(|f| (f.why.clone(), 1)).collect();
    RunRecord {
        errors,
        summary: stats.clone(),
        targets: vec![TargetResult {
            path,
            device: None,
            size: bytes,
            workload: format!("Hammer load: {} rows into TestTransaction ({})", out.rows_loaded, url.engine.name()),
            stats,
            timeseries: series.clone(),
        }],
        timeseries: series,
        ..RunRecord::new(KindData::HammerLoad { spec }, status, started_at, secs)
    }
}
