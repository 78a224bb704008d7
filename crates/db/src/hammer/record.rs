//! A Hammer run as a run record: GetAccount calls are the reads, UpdateAccount calls the
//! writes, each session a thread, no bytes; the record counts calls.

use super::{RunOutcome, RunPlan, Second, window};
use crate::DbUrl;
use spindle_model::db_spec::HammerSpec;
use spindle_model::record::{CpuUsage, IoStats, RunRecord, RunStatus, TargetResult, ThreadResult};
use spindle_model::series::{add_seconds, time_series};
use spindle_model::{Histogram, KindData};
use std::collections::BTreeMap;

/// The run as a record: GetAccount calls are the reads, UpdateAccount calls the writes, each
/// session a thread; no bytes. `durability` says in words what a commit waits for on this
/// engine and its settings.
/// `settings`: the server settings of an instance spindle started for the run (none otherwise).
pub fn run_record(
    url: &DbUrl,
    plan: &RunPlan,
    out: &RunOutcome,
    durability: &str,
    settings: &[(String, String)],
) -> RunRecord {
    let secs = out.measured.as_secs_f64();
    let empty = Histogram::new();
    let stats = |reads: &Histogram, writes: &Histogram, cpu: CpuUsage| {
        IoStats::from_histograms(reads, writes, &empty, 0, 0, secs, cpu)
    };
    let (mut reads, mut writes) = (Histogram::new(), Histogram::new());
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    let mut seconds: Vec<Second> = Vec::new();
    let mut threads = Vec::with_capacity(out.sessions.len());
    for s in &out.sessions {
        let (r, w) = (Histogram::from(&s.reads), Histogram::from(&s.writes));
        reads.merge(&r);
        writes.merge(&w);
        for (k, n) in &s.errors {
            *errors.entry(k.clone()).or_default() += n;
        }
        add_seconds(&mut seconds, &s.seconds);
        let stats = stats(&r, &w, CpuUsage::default()).without_buckets();
        threads.push(ThreadResult { target: 0, thread: s.session, stats });
    }
    let summary = stats(&reads, &writes, CpuUsage::default());
    // The series ends at the last second any session counted a call in.
    let mut series = time_series(&seconds, secs);
    series.truncate(seconds.len());
    let status = if out.interrupted { RunStatus::Interrupted } else { RunStatus::Complete };
    let end_ns = (plan.warmup + out.measured).as_nanos() as u64;
    let slowest_ns = reads.max().max(writes.max());
    let spec = HammerSpec {
        db: url.to_string(),
        engine: url.engine.name().into(),
        rows: plan.rows,
        sessions: plan.sessions,
        read_pct: plan.read_pct,
        duration_ns: plan.duration.as_nanos() as u64,
        warmup_ns: plan.warmup.as_nanos() as u64,
        think_ns: plan.think.as_nanos() as u64,
        rate_per_session: plan.rate_per_session,
        ramp_up_ns: out.ramp_up.as_nanos() as u64,
        durability: Some(durability.to_string()),
        settings: settings.iter().cloned().collect(),
    };
    RunRecord {
        summary: summary.clone(),
        targets: vec![TargetResult::database(url.to_string(), workload_text(&spec), summary, series.clone())],
        threads,
        timeseries: series,
        errors,
        warnings: window::left_out(plan, &out.sessions, end_ns, slowest_ns),
        in_flight_at_end: out.sessions.iter().filter(|s| s.in_flight_at_end.is_some()).count() as u64,
        sessions_started: Some(window::starts(&out.sessions, end_ns)),
        ..RunRecord::new(KindData::Hammer { spec }, status, out.started_at, secs)
    }
}

/// The run's workload in words, from its spec: a merged run of many agents' shares says the
/// whole run's sessions, not one share's.
pub fn workload_text(spec: &HammerSpec) -> String {
    let pacing = match (spec.rate_per_session, spec.think_ns) {
        (Some(r), _) => format!(", {:.0} calls/s in all", r * f64::from(spec.sessions)),
        (None, 0) => String::new(),
        (None, think) => format!(", {:?} think time", std::time::Duration::from_nanos(think)),
    };
    format!(
        "Hammer: {} session{}, {}% GetAccount / {}% UpdateAccount over {} rows{pacing}",
        spec.sessions,
        if spec.sessions == 1 { "" } else { "s" },
        spec.read_pct,
        100 - spec.read_pct,
        spec.rows
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hammer::SessionResult;
    use spindle_model::histogram::CompactHistogram;
    use std::time::{Duration, Instant, SystemTime};

    fn session(session: u32, latencies: &[u64]) -> SessionResult {
        let (mut reads, mut writes) = (CompactHistogram::new(), CompactHistogram::new());
        for (i, &ns) in latencies.iter().enumerate() {
            if i % 2 == 0 { reads.record(ns) } else { writes.record(ns) }
        }
        SessionResult { session, reads, writes, ..Default::default() }
    }

    #[test]
    fn session_rows_keep_their_summary_and_the_run_its_whole_histogram() {
        let url = crate::parse_url("sqlite:///nowhere/hammer.db").unwrap();
        let plan = RunPlan {
            sessions: 2,
            read_pct: 50,
            rows: 1000,
            warmup: Duration::ZERO,
            duration: Duration::from_secs(1),
            think: Duration::ZERO,
            rate_per_session: None,
            start: None,
        };
        let out = RunOutcome {
            sessions: vec![session(0, &[1_000, 2_000, 3_000, 4_000]), session(1, &[50_000, 60_000])],
            ramp_up: Duration::ZERO,
            time_zero: Instant::now(),
            started_at: SystemTime::now(),
            measured: Duration::from_secs(1),
            interrupted: false,
        };
        let r = run_record(&url, &plan, &out, "each commit waits for fsync", &[]);
        let one = &r.threads[1].stats;
        assert_eq!((one.read.ios, one.write.ios, one.read.latency_ns.max), (1, 1, 50_000));
        assert_eq!((one.read.histogram.count, one.write.histogram.max), (1, 60_000), "the summary stays");
        assert!(r.threads.iter().all(|t| t.stats.read.histogram.buckets.is_empty()), "no session keeps buckets");
        let whole = Histogram::try_from(&r.summary.read.histogram).unwrap();
        assert_eq!((whole.count(), whole.max()), (3, 50_000), "the run's histogram is whole");
        assert_eq!(r.summary.read.histogram.buckets.len(), 3);
    }
}
