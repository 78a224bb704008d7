//! One large operation as a run record: the rows are the operations (loaded, scanned,
//! updated), the bytes those its volumes read and wrote, and the details' figures those the
//! article compares (time, I/O sizes, cold or warm).

use super::OpOutcome;
use crate::DbUrl;
use spindle_model::db::LargeOpFigures;
use spindle_model::db_spec::LargeOpSpec;
use spindle_model::record::{CpuUsage, IoStats, RunStatus, TargetResult, TimePoint};
use spindle_model::{Histogram, KindData, RunRecord};
use std::collections::BTreeMap;

/// What every operation's record shares.
pub struct Context<'a> {
    pub url: &'a DbUrl,
    pub version: &'a str,
    pub settings: &'a BTreeMap<String, String>,
    pub rows: u64,
    pub batch: u64,
}

pub fn record(o: &OpOutcome, figures: LargeOpFigures, warnings: Vec<String>, cx: &Context<'_>) -> RunRecord {
    let secs = o.elapsed.as_secs_f64();
    let read: u64 = figures.volumes.iter().map(|v| v.bytes_read).sum();
    let written: u64 = figures.volumes.iter().map(|v| v.bytes_written).sum();
    let empty = Histogram::new();
    let mut stats = IoStats::from_histograms(&empty, &empty, &empty, read, written, secs, CpuUsage::default());
    // A checkpoint's rows are the table's: its rate is kept for `compare` (the same table in
    // less time), and the views show none for it (`RunRecord::rate`).
    stats.ios = o.rows;
    stats.iops = if secs > 0.0 { o.rows as f64 / secs } else { 0.0 };
    let series = TimePoint::per_second(&o.per_second, secs);
    let mut errors = BTreeMap::new();
    if let Some(e) = &o.error {
        errors.insert(e.to_string(), 1);
    }
    let status = if o.interrupted { RunStatus::Interrupted } else { RunStatus::Complete };
    let spec = LargeOpSpec {
        db: cx.url.to_string(),
        engine: cx.url.engine.name().into(),
        server_version: cx.version.into(),
        settings: cx.settings.clone(),
        operation: o.op.name().into(),
        rows: cx.rows,
        batch: cx.batch,
    };
    RunRecord {
        summary: stats.clone(),
        targets: vec![TargetResult::database(
            cx.url.to_string(),
            format!("large operations: {} of {} TPC-C customer rows", o.op.name(), cx.rows),
            stats,
            series.clone(),
        )],
        timeseries: series,
        errors,
        warnings,
        ..RunRecord::new(KindData::LargeOps { spec, figures }, status, o.started_at, secs)
    }
}
