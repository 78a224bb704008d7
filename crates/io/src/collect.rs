//! Turns the workers' raw results into a run record: per thread, per target and in total,
//! with a per-second time series. Pure arithmetic over what the workers measured.

use crate::run::JobOutcome;
use crate::worker::{Second, WorkerResult};
use spindle_model::counters::CounterLog;
use spindle_model::record::{
    CpuUsage, Environment, IoStats, OpStats, RunRecord, RunStatus, TargetResult, ThreadResult,
};
use spindle_model::series::{add_seconds, time_series};
use spindle_model::spec::{JobSpec, Workload};
use spindle_model::verify::VerifySummary;
use spindle_model::{Histogram, KindData};
use std::collections::BTreeMap;

/// Everything about a run that does not come from the workers.
pub struct RunContext {
    pub labels: BTreeMap<String, String>,
    pub command_line: Vec<String>,
    pub environment: Environment,
    /// What the sampler recorded beside the run.
    pub counters: Option<CounterLog>,
    pub warnings: Vec<String>,
}

/// Sums of several workers' histograms and byte counts.
#[derive(Default)]
struct Totals {
    read: Histogram,
    write: Histogram,
    flush: Histogram,
    commit: Histogram,
    bytes_read: u64,
    bytes_written: u64,
    cpu: (f64, f64),
}

impl Totals {
    fn add(&mut self, w: &WorkerResult) {
        self.read.merge(&w.read);
        self.write.merge(&w.write);
        self.flush.merge(&w.flush);
        self.commit.merge(&w.commit);
        self.bytes_read += w.bytes_read;
        self.bytes_written += w.bytes_written;
        self.cpu.0 += w.cpu.0;
        self.cpu.1 += w.cpu.1;
    }

    fn stats(&self, seconds: f64, cpu: (f64, f64)) -> IoStats {
        let ios = self.read.count() + self.write.count();
        IoStats {
            commit: OpStats::of(&self.commit),
            ..IoStats::from_histograms(
                &self.read,
                &self.write,
                &self.flush,
                self.bytes_read,
                self.bytes_written,
                seconds,
                CpuUsage::new(cpu.0, cpu.1, ios),
            )
        }
    }
}

/// `8KiB random read, 4 threads x 8 outstanding` — the workload as a DBA would say it.
pub fn describe_workload(w: &Workload) -> String {
    let access = match w.random_pct() {
        100.0 => "random".to_string(),
        0.0 => "sequential".to_string(),
        p => format!("{p:.0}% random"),
    };
    let direction = match w.read_pct() {
        100.0 => "read".to_string(),
        0.0 => "write".to_string(),
        p => format!("{p:.0}% read"),
    };
    let mut text = format!(
        "{} {access} {direction}, {} thread{} x {} outstanding",
        w.mix_label(),
        w.threads,
        if w.threads == 1 { "" } else { "s" },
        w.depth
    );
    if let Some(rate) = w.rate_iops {
        text.push_str(&format!(", capped at {rate} IOPS"));
    }
    if w.buffered {
        text.push_str(", buffered");
    }
    if w.write_through {
        text.push_str(", write-through");
    }
    if w.fsync_every > 0 {
        text.push_str(&format!(", fdatasync every {} writes", w.fsync_every));
    }
    text
}

/// Builds the run record of an `io` job.
pub fn build_record(spec: &JobSpec, outcome: &JobOutcome, context: RunContext) -> RunRecord {
    let measured = outcome.measured_ns as f64 / 1e9;
    let mut warnings = context.warnings;
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    let mut total = Totals::default();
    let mut total_seconds = Vec::new();
    let mut per_target: Vec<(Totals, Vec<Second>)> = spec.targets.iter().map(|_| Default::default()).collect();
    let mut threads = Vec::new();
    for w in &outcome.workers {
        total.add(w);
        add_seconds(&mut total_seconds, &w.seconds);
        let (target_totals, target_seconds) = &mut per_target[w.target];
        target_totals.add(w);
        add_seconds(target_seconds, &w.seconds);
        for (kind, n) in &w.errors {
            *errors.entry(kind.clone()).or_insert(0) += n;
        }
        let mut one = Totals::default();
        one.add(w);
        threads.push(ThreadResult { target: w.target, thread: w.thread, stats: one.stats(measured, w.cpu) });
    }
    if outcome.workers.iter().any(|w| w.out_of_space) {
        warnings.push("the target ran out of space: the run stopped early".to_string());
    }
    let devices = &context.environment.devices;
    let targets = spec
        .targets
        .iter()
        .zip(&per_target)
        .map(|(t, (totals, seconds))| {
            let path = t.path.display().to_string();
            TargetResult {
                device: devices.iter().find(|d| d.target == path).and_then(|d| d.device.clone()),
                path,
                size: t.size,
                workload: describe_workload(&t.workload),
                stats: totals.stats(measured, totals.cpu),
                timeseries: time_series(seconds, measured),
            }
        })
        .collect();
    let status = if outcome.interrupted { RunStatus::Interrupted } else { RunStatus::Complete };
    let verify = outcome.verify_id.map(|id| {
        let mut all = VerifySummary { id: format!("{id:016x}"), ..VerifySummary::default() };
        for w in &outcome.workers {
            all.merge(w.verify.as_ref().unwrap_or(&VerifySummary::default()));
        }
        all
    });
    RunRecord {
        labels: context.labels,
        command_line: context.command_line,
        summary: total.stats(measured, outcome.cpu),
        targets,
        threads,
        timeseries: time_series(&total_seconds, measured),
        environment: context.environment,
        counters: context.counters,
        errors,
        warnings,
        behind_schedule_ios: outcome.workers.iter().map(|w| w.behind_schedule).sum(),
        in_flight_at_end: outcome.workers.iter().map(|w| w.in_flight_at_end).sum(),
        ..RunRecord::new(KindData::Io { spec: spec.clone(), verify }, status, outcome.started_at, measured)
    }
}
