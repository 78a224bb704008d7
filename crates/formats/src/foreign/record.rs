//! A run read from another tool's result file as a run record: the figures the file gives,
//! in spindle's units, and nothing the file does not give. What is absent is said in the
//! record's origin, so `compare` and `report` never treat a missing figure as a zero.

use super::{ForeignRun, ForeignStats};
use spindle_model::record::{DirectionStats, IoStats, LatencySummary, RunStatus, TargetResult, ThreadResult};
use spindle_model::units::format_size;
use spindle_model::{Histogram, ImportedSpec, KindData, Origin, RunRecord, Unrecorded};

/// The file a run came from, and when it was imported.
pub struct Source<'a> {
    pub file: &'a str,
    pub sha256: &'a str,
    pub imported_at: std::time::SystemTime,
    /// When the file does not say when it ran: its modification time, else the import's.
    pub file_time: Option<std::time::SystemTime>,
}

pub fn record_of(run: &ForeignRun, run_in_file: u32, src: &Source<'_>) -> RunRecord {
    let secs = run.duration_s.unwrap_or(0.0);
    let total = total_of(run);
    let mut notes = run.notes.clone();
    let started_at = match (&run.started_at, src.file_time) {
        (Some(t), _) => t.clone(),
        (None, Some(t)) => {
            notes
                .push("The file does not say when the run started: started_at is the file's modification time.".into());
            spindle_model::time::rfc3339_utc(t)
        }
        (None, None) => {
            notes.push("The file does not say when the run started: started_at is the time of the import.".into());
            spindle_model::time::rfc3339_utc(src.imported_at)
        }
    };
    let origin = Origin {
        tool: run.tool.map_or("unknown", |t| t.name()).to_string(),
        tool_version: run.tool_version.clone(),
        file: src.file.to_string(),
        sha256: src.sha256.to_string(),
        run_in_file,
        imported_at: spindle_model::time::rfc3339_utc(src.imported_at),
        absent: absent(run, &total),
        notes,
    };
    let details = KindData::Imported { origin, spec: spec_of(run) };
    let mut r = RunRecord::new(details, RunStatus::Complete, src.imported_at, secs);
    r.started_at = started_at;
    r.summary = stats_of(&total, &run.read, &run.write, secs);
    if let Some(h) = &run.sqlio_histogram_pct {
        r.summary.sqlio_histogram_pct = h.clone();
    } else if let Some(h) = histogram_of(&run.total) {
        r.summary.sqlio_histogram_pct = spindle_model::record::sqlio_histogram(&h);
    }
    r.targets = vec![TargetResult {
        path: run.target.clone().unwrap_or_default(),
        device: None,
        size: run.target_size.unwrap_or(0),
        workload: workload_words(run),
        stats: r.summary.clone(),
        timeseries: Vec::new(),
    }];
    r.threads = run
        .threads_detail
        .iter()
        .map(|t| ThreadResult {
            target: 0,
            thread: t.thread,
            stats: stats_of(&t.stats, &ForeignStats::default(), &ForeignStats::default(), secs),
        })
        .collect();
    r
}

/// The run's reads and writes together, with the minimum, maximum and standard deviation of
/// latency that a file gives only for each direction (fio's mixed jobs) made from theirs.
fn total_of(run: &ForeignRun) -> ForeignStats {
    let mut total = run.total.clone();
    let done: Vec<&ForeignStats> = [&run.read, &run.write].into_iter().filter(|d| d.ios.unwrap_or(0) > 0).collect();
    let each = |figure: fn(&ForeignStats) -> Option<f64>| -> Option<Vec<f64>> {
        if done.is_empty() { None } else { done.iter().map(|d| figure(d)).collect() }
    };
    if total.latency_min_ns.is_none() {
        total.latency_min_ns = each(|d| d.latency_min_ns).map(|v| v.into_iter().fold(f64::INFINITY, f64::min));
    }
    if total.latency_max_ns.is_none() {
        total.latency_max_ns = each(|d| d.latency_max_ns).map(|v| v.into_iter().fold(0.0, f64::max));
    }
    if total.latency_stddev_ns.is_none()
        && let (Some(means), Some(sds)) = (each(|d| d.latency_mean_ns), each(|d| d.latency_stddev_ns))
    {
        // Pooled: each direction's variance about its mean, and its mean's about the total's.
        let n: Vec<f64> = done.iter().map(|d| d.ios.unwrap_or(0) as f64).collect();
        let all: f64 = n.iter().sum();
        let mean = n.iter().zip(&means).map(|(n, m)| n * m).sum::<f64>() / all;
        let var = (0..n.len()).map(|i| n[i] * (sds[i] * sds[i] + (means[i] - mean).powi(2))).sum::<f64>() / all;
        total.latency_stddev_ns = Some(var.sqrt()).filter(|v| v.is_finite());
    }
    total
}

/// What the file's tool did not record, in the words every view reads (`Unrecorded`).
fn absent(run: &ForeignRun, t: &ForeignStats) -> Vec<String> {
    let mut out = vec![Unrecorded::Environment, Unrecorded::Series, Unrecorded::Cpu];
    if t.histogram_ns.is_empty() {
        out.push(Unrecorded::Histogram);
    }
    // Each of the six a report shows, or none: one the file lacks would read as 0 ns.
    let given = |p: f64| percentile_in_file(t, p).is_some();
    if t.histogram_ns.is_empty() && !spindle_model::record::PERCENTILES.into_iter().all(given) {
        out.push(Unrecorded::Percentiles);
    }
    if t.latency_mean_ns.is_none() {
        out.push(Unrecorded::Latency);
    } else {
        for (figure, unrecorded) in [
            (t.latency_min_ns, Unrecorded::LatencyMin),
            (t.latency_max_ns, Unrecorded::LatencyMax),
            (t.latency_stddev_ns, Unrecorded::LatencyStddev),
        ] {
            if figure.is_none() {
                out.push(unrecorded);
            }
        }
    }
    if run.duration_s.is_none() {
        out.push(Unrecorded::Duration);
    }
    let detail =
        |s: &ForeignStats| s.latency_min_ns.is_some() && s.latency_max_ns.is_some() && !s.percentiles_ns.is_empty();
    if !run.threads_detail.iter().all(|t| detail(&t.stats)) {
        out.push(Unrecorded::ThreadDetail);
    }
    out.into_iter().map(|u| u.words().to_string()).collect()
}

fn spec_of(run: &ForeignRun) -> ImportedSpec {
    ImportedSpec {
        tool: run.tool.map(|t| t.name().to_string()),
        name: run.name.clone(),
        command_line: run.command_line.clone(),
        target: run.target.clone(),
        target_size: run.target_size,
        block_size: run.block_size,
        threads: run.threads,
        depth: run.queue_depth,
        read_pct: run.read_pct,
        random_pct: run.random_pct,
        engine: run.engine.clone(),
        warmup_s: run.warmup_s,
        tool_cpu_pct: run.cpu_pct,
    }
}

/// `8KiB random read, 64 threads x 8 outstanding`, as far as the file says.
fn workload_words(run: &ForeignRun) -> String {
    let mut parts = Vec::new();
    if let Some(bs) = run.block_size {
        parts.push(format_size(bs));
    }
    match run.random_pct {
        Some(p) if p >= 100.0 => parts.push("random".into()),
        Some(p) if p <= 0.0 => parts.push("sequential".into()),
        Some(p) => parts.push(format!("{p:.0}% random")),
        None => {}
    }
    match run.read_pct {
        Some(p) if p >= 100.0 => parts.push("read".into()),
        Some(p) if p <= 0.0 => parts.push("write".into()),
        Some(p) => parts.push(format!("{p:.0}% read")),
        None => {}
    }
    let mut text = parts.join(" ");
    if let (Some(t), Some(d)) = (run.threads, run.queue_depth) {
        text.push_str(&format!(", {t} thread{} x {d} outstanding", if t == 1 { "" } else { "s" }));
    }
    if text.is_empty() { run.name.clone() } else { text }
}

fn stats_of(total: &ForeignStats, read: &ForeignStats, write: &ForeignStats, secs: f64) -> IoStats {
    // `sane` refused counts whose sum overflows.
    let ios = total.ios.or_else(|| read.ios?.checked_add(write.ios?)).unwrap_or(0);
    let bytes = total.bytes.or_else(|| read.bytes?.checked_add(write.bytes?)).unwrap_or(0);
    let rate = |given: Option<f64>, n: u64| given.unwrap_or(if secs > 0.0 { n as f64 / secs } else { 0.0 });
    let bps = rate(total.bytes_per_sec, bytes);
    IoStats {
        ios,
        bytes,
        iops: rate(total.iops, ios),
        bytes_per_sec: bps,
        mb_per_sec: bps / 1e6,
        mib_per_sec: bps / (1u64 << 20) as f64,
        latency_ns: latency_of(total),
        read: direction_of(read, secs),
        write: direction_of(write, secs),
        ..IoStats::default()
    }
}

fn direction_of(s: &ForeignStats, secs: f64) -> DirectionStats {
    let ios = s.ios.unwrap_or(0);
    let bytes = s.bytes.unwrap_or(0);
    let per_sec = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    DirectionStats {
        ios,
        bytes,
        iops: s.iops.unwrap_or(per_sec(ios)),
        bytes_per_sec: s.bytes_per_sec.unwrap_or(per_sec(bytes)),
        latency_ns: latency_of(s),
        histogram: histogram_of(s).as_ref().map(Into::into).unwrap_or_default(),
    }
}

/// fio's json+ bins, as spindle's histogram (each bin's count at its value).
fn histogram_of(s: &ForeignStats) -> Option<Histogram> {
    if s.histogram_ns.is_empty() {
        return None;
    }
    let mut h = Histogram::new();
    for &(ns, n) in &s.histogram_ns {
        h.record_n(ns, n);
    }
    Some(h)
}

/// The `p`th percentile's latency, ns, as the file gives it.
fn percentile_in_file(s: &ForeignStats, p: f64) -> Option<f64> {
    s.percentiles_ns.iter().find(|(q, _)| (q - p).abs() < 1e-6).map(|(_, ns)| *ns)
}

/// The file's percentiles, where it gives them; else those of its bins; else none (0, which
/// `absent` names as not recorded, as it does each other figure the file lacks).
fn latency_of(s: &ForeignStats) -> LatencySummary {
    let bins = histogram_of(s);
    let pct = |p: f64| -> u64 {
        percentile_in_file(s, p).map(|ns| ns as u64).or_else(|| bins.as_ref().map(|h| h.percentile(p))).unwrap_or(0)
    };
    LatencySummary {
        min: s.latency_min_ns.map_or(0, |v| v as u64),
        mean: s.latency_mean_ns.unwrap_or(0.0),
        max: s.latency_max_ns.map_or(0, |v| v as u64),
        stddev: s.latency_stddev_ns.unwrap_or(0.0),
        p50: pct(50.0),
        p90: pct(90.0),
        p95: pct(95.0),
        p99: pct(99.0),
        p99_9: pct(99.9),
        p99_99: pct(99.99),
        shown: None,
    }
}
