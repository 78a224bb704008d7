//! An I/O job as a workload: its targets prepared once for the whole experiment (`Files`), then
//! measured by the I/O engine with the harness's sampler beside it.

mod files;

pub use files::Files;

use super::{Context, Measured, Sink, Workload};
use crate::RunEnd;
use crate::harness::Measure;
use spindle_io::collect::{RunContext, build_record};
use spindle_io::run::run_job_at;
use spindle_model::spec::{EngineKind, JobSpec};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::time::Duration;

pub struct IoJob {
    pub job: JobSpec,
    /// What the plan found worth saying; kept in every record.
    warnings: Vec<String>,
}

impl IoJob {
    pub fn new(job: JobSpec, warnings: Vec<String>) -> IoJob {
        IoJob { job, warnings }
    }
}

/// A block device's verification state is kept in the current directory (a file's is beside
/// it): said, so that `spindle verify` is run from there.
fn say_where_device_states_go(job: &JobSpec, observer: &dyn crate::observer::Observer) {
    if !job.verify || job.engine == EngineKind::Null {
        return;
    }
    for t in job.targets.iter().filter(|t| t.workload.writes()) {
        if std::fs::metadata(&t.path).is_ok_and(|m| m.file_type().is_block_device()) {
            let state = spindle_io::verify::state::path_for(&t.path);
            let here = std::env::current_dir().map(|d| d.join(&state)).unwrap_or(state);
            observer.note(&format!(
                "the write state of {} is kept in {}: run `spindle verify -t {}` from this directory",
                t.path.display(),
                here.display(),
                t.path.display()
            ));
        }
    }
}

impl Workload for IoJob {
    fn prepare(&mut self, cx: &mut Context<'_>, _: &mut Sink<'_>) -> anyhow::Result<()> {
        let found = cx.files.prepare(&mut self.job, cx.observer, cx.stop)?;
        self.warnings.extend(found);
        Ok(())
    }

    fn measure(&mut self, _: usize, cx: &mut Context<'_>, sink: &mut Sink<'_>) -> anyhow::Result<RunEnd> {
        let job = &self.job;
        let paths: Vec<&Path> = job.targets.iter().map(|t| t.path.as_path()).collect();
        let measure = Measure::start(&paths, Vec::new(), cx.sample_interval, Vec::new());
        let sampling_from = std::time::Instant::now();
        let observer = cx.observer;
        say_where_device_states_go(job, observer);
        let result = run_job_at(job, cx.stop, cx.start.as_deref(), &mut |p| observer.tick(&p));
        // Counters cover the measured window: not the warm-up, nor an agent's wait for the
        // run's start.
        let warmup = Duration::from_nanos(job.warmup_ns);
        let unmeasured =
            result.as_ref().map_or(warmup, |o| o.time_zero.saturating_duration_since(sampling_from) + warmup);
        let measured = measure.finish(unmeasured);
        crate::workload::started(cx)?;
        observer.finish_line();
        let outcome = result?;
        let mut warnings = self.warnings.clone();
        for w in &outcome.warnings {
            observer.warn(w);
            warnings.push(w.clone());
        }
        let context = RunContext {
            labels: Default::default(),
            command_line: Vec::new(),
            environment: measured.environment,
            counters: Some(measured.counters),
            warnings,
        };
        let mut record = build_record(job, &outcome, context);
        if let Some(finding) = spindle_analysis::findings::page_cache::page_cache_finding(&record) {
            cx.observer.warn(&finding);
            record.warnings.push(finding);
        }
        let faulty = record.details.verify().is_some_and(|v| v.faulty_sectors() > 0);
        let end = if outcome.workers.iter().any(|w| w.out_of_space) {
            RunEnd::OutOfSpace
        } else if outcome.interrupted {
            RunEnd::Interrupted
        } else {
            RunEnd::Complete { failed_operations: !record.errors.is_empty() || faulty }
        };
        sink(Measured::new(record, end.clone()))?;
        Ok(end)
    }

    fn finish(&mut self, _: &mut Context<'_>) -> anyhow::Result<()> {
        // The files are the experiment's, removed once every job is done (`Files::finish`).
        Ok(())
    }
}
