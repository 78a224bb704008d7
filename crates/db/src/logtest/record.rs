//! One transaction size as a run record: rows are the operations (each insert's latency its
//! write latency, each COMMIT timed as a commit), the log's bytes the bytes, and the original
//! article's `io_results` columns as the details' figures, with the log volume's own beside
//! them and whether they lead.

use super::{BatchOutcome, LogTestPlan};
use crate::DbUrl;
use spindle_model::db::{DeviceIo, LogTestFigures};
use spindle_model::db_spec::LogTestSpec;
use spindle_model::record::{CpuUsage, IoStats, OpStats, RunStatus, TargetResult, TimePoint};
use spindle_model::{Histogram, KindData, RunRecord};
use std::collections::BTreeMap;

/// What every run of one test shares.
pub struct Context<'a> {
    pub url: &'a DbUrl,
    pub version: &'a str,
    pub settings: &'a BTreeMap<String, String>,
    pub plan: &'a LogTestPlan,
    /// What settling could not do (caches the engine keeps).
    pub notes: &'a [String],
    /// Why the engine's counters lead, where the log has no volume of its own here; `None`
    /// where it has.
    pub engine_leads: Option<&'a str>,
}

pub fn build(b: &BatchOutcome, volume: Option<DeviceIo>, cx: &Context<'_>) -> RunRecord {
    let secs = b.elapsed.as_secs_f64();
    let files = b.files.clone().unwrap_or_default();
    let mut figures = LogTestFigures {
        transaction_size: b.transaction_size,
        rows: b.rows,
        commits: b.commits,
        row_bytes: cx.plan.row_bytes,
        log_write_ios: files.log.writes,
        log_bytes_written: files.log.bytes_written,
        log_syncs: files.log.syncs,
        duration_s: secs,
        log_write_ms: mean_ms(files.log.write_ns, files.log.writes),
        log_sync_ms: mean_ms(files.log.sync_ns, files.log.syncs),
        own_volume: cx.engine_leads.is_none() && volume.is_some(),
        engine_leads: match (cx.engine_leads, &volume) {
            (Some(why), _) => Some(why.to_string()),
            (None, Some(_)) => None,
            (None, None) => Some("the log's volume could not be read in /proc/diskstats".into()),
        },
        device: volume,
        log_writes_are: files.log_writes_are.into(),
        log_bytes_are: files.log_bytes_are.into(),
        log_frames: files.log_frames,
        source: files.source.clone(),
        missing: files.missing.clone(),
        notes: files.notes.clone(),
        ..LogTestFigures::default()
    };
    if b.files.is_none() {
        figures.missing.push("every log figure: the statistics could not be read after the batch".into());
    }
    figures.derive();
    let empty = Histogram::new();
    // The run's bytes are the leading ones: the log volume's where it has one of its own.
    let bytes = figures.lead().bytes.unwrap_or(0);
    let mut stats = IoStats::from_histograms(&empty, &b.inserts, &empty, 0, bytes, secs, CpuUsage::default());
    // The rows counted are those committed; inserts of a transaction cut short are not.
    stats.ios = b.rows;
    stats.iops = if secs > 0.0 { b.rows as f64 / secs } else { 0.0 };
    stats.write.ios = b.rows;
    stats.write.iops = stats.iops;
    stats.commit = OpStats::of(&b.commit_latency);
    let series = TimePoint::per_second(&b.per_second, secs);
    let status = if b.interrupted { RunStatus::Interrupted } else { RunStatus::Complete };
    let mut errors = BTreeMap::new();
    if let Some(e) = &b.error {
        errors.insert(e.to_string(), 1);
    }
    let mut warnings: Vec<String> = cx.notes.to_vec();
    warnings.extend(figures.missing.iter().map(|m| format!("not measured: {m}")));
    let spec = LogTestSpec {
        db: cx.url.to_string(),
        engine: cx.url.engine.name().into(),
        server_version: cx.version.into(),
        settings: cx.settings.clone(),
        rows: cx.plan.rows,
        row_bytes: cx.plan.row_bytes,
        transaction_size: b.transaction_size,
    };
    RunRecord {
        summary: stats.clone(),
        targets: vec![TargetResult::database(
            cx.url.to_string(),
            format!(
                "log test: {} rows of {} bytes, a commit every {} rows",
                cx.plan.rows, cx.plan.row_bytes, b.transaction_size
            ),
            stats,
            series.clone(),
        )],
        timeseries: series,
        errors,
        warnings,
        ..RunRecord::new(KindData::LogTest { spec, figures }, status, b.started_at, secs)
    }
}

fn mean_ms(total_ns: Option<u64>, n: Option<u64>) -> Option<f64> {
    match (total_ns, n) {
        (Some(t), Some(n)) if n > 0 => Some(t as f64 / n as f64 / 1e6),
        _ => None,
    }
}
