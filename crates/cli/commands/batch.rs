//! Runs planned jobs one after another, as `spindle io` (one job, repeats, a sweep) and
//! `spindle suite` need: targets prepared once for all jobs, each job measured, its record
//! saved to the store as soon as it finishes (so an interrupted batch keeps what ran), and
//! printed as text as it finishes.

use crate::args::{OutputArgs, StoreArgs};
use crate::progress::{Display, note, warn};
use crate::{Outcome, interrupt, output, store};
use anyhow::Context;
use spindle_counters::{ProcRoot, Sampler, devices_under};
use spindle_io::collect::{RunContext, build_record};
use spindle_io::run::run_job;
use spindle_io::target::{PrepareOptions, PreparedTarget, TargetError, TargetKind};
use spindle_model::RunRecord;
use spindle_model::spec::{EngineKind, JobSpec};
use spindle_model::units::format_size;
use spindle_store::{GroupKind, Placement, Point, Store};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// One job and where it sits in its group.
pub struct BatchJob {
    pub job: JobSpec,
    /// The sweep point, suite member or A/B side (`depth=8`, `page-read`, `a`).
    pub point: Option<Point>,
    pub repeat: u32,
    /// Labels of this job alone, over the batch's (an A/B run's side and round).
    pub labels: BTreeMap<String, String>,
}

pub struct Batch<'a> {
    pub jobs: Vec<BatchJob>,
    /// Set when the jobs belong together (more than one job).
    pub group: Option<(GroupKind, String)>,
    pub labels: BTreeMap<String, String>,
    /// What the plan found worth saying; kept in every record.
    pub warnings: Vec<String>,
    pub output: &'a OutputArgs,
    pub store: &'a StoreArgs,
    /// How often the counter sampler reads /proc during each job.
    pub sample_interval: Duration,
    /// Print each run's report as it finishes (text output only); off where the command
    /// prints a summary of its own instead (`ab`).
    pub print_runs: bool,
}

/// A job that ran, saved as run `id`.
pub struct Finished {
    pub id: i64,
    pub record: RunRecord,
    pub point: Option<Point>,
}

pub struct BatchResult {
    pub runs: Vec<Finished>,
    pub outcome: Outcome,
    pub group: Option<i64>,
    /// `None` when nothing was saved.
    pub store: Option<Store>,
}

impl BatchResult {
    /// Prints every record as JSON or CSV when that was asked for; `false` when the output
    /// is text, which each command finishes its own way.
    pub fn print_machine_readable(&self, output: &OutputArgs) -> anyhow::Result<bool> {
        if !output.json && !output.csv {
            return Ok(false);
        }
        let doc = spindle_report::Document {
            runs: self
                .runs
                .iter()
                .map(|f| spindle_report::ReportRun {
                    id: Some(f.id),
                    group: self.group,
                    point: f.point.clone(),
                    repeat: 1,
                    record: f.record.clone(),
                })
                .collect(),
            ..spindle_report::Document::default()
        };
        output::print_document(&doc, output)?;
        Ok(true)
    }
}

/// Saves runs, opening (or creating) the store and the group only when the first run is
/// saved, so a command that fails before measuring leaves no store or empty group behind.
pub struct Saver {
    pub path: PathBuf,
    store: Option<Store>,
    group: Option<(GroupKind, String)>,
    group_id: Option<i64>,
    /// Each saved run's id, point and repeat, in the order saved.
    saved: Vec<(i64, Option<Point>, u32)>,
}

impl Saver {
    /// Checks an existing store before any I/O: one that cannot be used stops the command
    /// before it measures.
    pub fn new(args: &StoreArgs, group: Option<(GroupKind, String)>) -> anyhow::Result<Saver> {
        let path = store::path(args)?;
        let store = Store::open_existing(&path)?;
        Ok(Saver { path, store, group, group_id: None, saved: Vec::new() })
    }

    /// Saves `record`; when the store cannot take it (full, read-only, not a store), the
    /// run is written to a recovery file beside the store (or in the current directory) and
    /// the error names that file and the command that imports it: a measured run is never
    /// lost to its store.
    pub fn save(&mut self, record: &RunRecord, point: Option<Point>, repeat: u32) -> anyhow::Result<i64> {
        let id = self.try_save(record, point.clone(), repeat).map_err(|e| keep_unsaved(&self.path, record, e))?;
        self.saved.push((id, point, repeat));
        Ok(id)
    }

    /// The records this saver saved, in order, with their ids and places, as exporters take
    /// them (`--json`, `--csv` say which stored run each is).
    pub fn document(&self, records: &[RunRecord]) -> spindle_report::Document {
        spindle_report::Document {
            runs: records
                .iter()
                .zip(self.saved.iter().map(Some).chain(std::iter::repeat(None)))
                .map(|(record, saved)| spindle_report::ReportRun {
                    id: saved.map(|s| s.0),
                    group: self.group_id,
                    point: saved.and_then(|s| s.1.clone()),
                    repeat: saved.map_or(1, |s| s.2),
                    record: record.clone(),
                })
                .collect(),
            ..spindle_report::Document::default()
        }
    }

    fn try_save(&mut self, record: &RunRecord, point: Option<Point>, repeat: u32) -> anyhow::Result<i64> {
        let store = match &mut self.store {
            Some(s) => s,
            None => self.store.insert(Store::open(&self.path)?),
        };
        if let (None, Some((kind, name))) = (self.group_id, &self.group) {
            self.group_id = Some(store.new_group(*kind, name, &record.started_at)?);
        }
        Ok(store.save(record, &Placement { group: self.group_id, point, repeat })?)
    }

    /// Attaches what the whole group found to it, once some run of it was saved.
    pub fn set_group_summary(&self, summary: &serde_json::Value) -> anyhow::Result<()> {
        if let (Some(store), Some(group)) = (&self.store, self.group_id) {
            store.set_group_summary(group, summary)?;
        }
        Ok(())
    }
}

/// A run in a line: its rate, bandwidth and latency.
fn one_line(r: &RunRecord) -> String {
    let s = &r.summary;
    format!(
        "{} {}, {} MB/s, mean {}, p99 {}",
        spindle_report::view::rate_text(s.iops),
        r.counts.per_sec(),
        spindle_report::view::rate_text(s.mb_per_sec),
        spindle_model::units::format_latency_ns(s.latency_ns.mean),
        spindle_model::units::format_latency_ns(s.latency_ns.p99 as f64)
    )
}

/// Writes a run that could not be saved to a file of its own, and says how to bring it in.
fn keep_unsaved(store: &std::path::Path, record: &RunRecord, e: anyhow::Error) -> anyhow::Error {
    let name = format!(
        "spindle-unsaved-{}-{}.json",
        record.started_at.replace([':', '-'], "").trim_end_matches('Z'),
        std::process::id()
    );
    let beside = store.parent().filter(|d| !d.as_os_str().is_empty()).map(|d| d.join(&name));
    let places = beside.into_iter().chain(std::iter::once(PathBuf::from(&name)));
    let json = spindle_report::render_json(record);
    for file in places {
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &json).and_then(|()| f.sync_all()));
        match written {
            Ok(()) => {
                let shown = file.display();
                return anyhow::anyhow!(
                    "{}; the run was measured but not saved: it is kept in {shown}; once the store works, bring it in with: spindle import {shown}",
                    crate::error_text(&e)
                );
            }
            Err(_) => {
                let _ = std::fs::remove_file(&file);
            }
        }
    }
    anyhow::anyhow!(
        "{}; the run was measured but could not be saved, nor kept in a file beside the store or here",
        crate::error_text(&e)
    )
}

pub fn run_batch(batch: Batch<'_>) -> anyhow::Result<BatchResult> {
    let quiet = batch.output.quiet;
    let text = !batch.output.json && !batch.output.csv && !quiet && batch.print_runs;
    let repeat_word = if matches!(batch.group, Some((GroupKind::Ab, _))) { "round" } else { "repeat" };
    let mut saver = Saver::new(batch.store, batch.group)?;
    let mut jobs = batch.jobs;
    let stop = interrupt::stop_flag();
    let display = Display::new(quiet);

    let prepared = match prepare_targets(&mut jobs, &display, quiet, stop) {
        Ok(p) => p,
        Err(TargetError::Interrupted(path)) => {
            display.finish_line();
            eprintln!("spindle: interrupted while creating {}; nothing was measured", path.display());
            return Ok(BatchResult { runs: Vec::new(), outcome: Outcome::Interrupted, group: None, store: None });
        }
        Err(e) => return Err(e.into()),
    };
    let mut warnings = batch.warnings;
    for w in prepared.iter().flat_map(|p| &p.warnings) {
        warn(quiet, w);
        warnings.push(w.clone());
    }
    let keep = jobs.first().is_some_and(|j| j.job.keep_file);
    let how = Reporting {
        labels: &batch.labels,
        warnings: &warnings,
        display: &display,
        text,
        quiet,
        repeat_word,
        output: batch.output,
    };
    let result = run_jobs(&mut saver, jobs, batch.sample_interval, &how);
    let cleanup = finish_targets(prepared, keep);
    let (runs, outcome) = result?;
    if let Err(e) = cleanup {
        // The runs are measured and saved; a test file left behind (a file system gone
        // read-only) is said, not made into a failure of the command.
        eprintln!("spindle: warning: {}; remove it yourself", crate::error_text(&e));
    }
    Ok(BatchResult { runs, outcome, group: saver.group_id, store: saver.store })
}

/// What every record carries and how progress is shown.
struct Reporting<'a> {
    /// How a run is printed when it cannot be saved.
    output: &'a OutputArgs,
    labels: &'a BTreeMap<String, String>,
    warnings: &'a [String],
    display: &'a Display,
    text: bool,
    quiet: bool,
    /// What a job's repeat number is called in progress lines: `repeat`, or an A/B `round`.
    repeat_word: &'static str,
}

fn run_jobs(
    saver: &mut Saver,
    jobs: Vec<BatchJob>,
    sample_interval: Duration,
    how: &Reporting<'_>,
) -> anyhow::Result<(Vec<Finished>, Outcome)> {
    let Reporting { labels, warnings, display, text, quiet, repeat_word, output: shown_as } = *how;
    let stop = interrupt::stop_flag();
    let mut runs = Vec::new();
    let mut outcome = Outcome::Success;
    let total = jobs.len();
    for (i, BatchJob { job, point, repeat, labels: own_labels }) in jobs.into_iter().enumerate() {
        // Many runs without -v: one line each, said when it ends (on a terminal, also on the
        // live line while it runs); with -v, or for a single run, its full report.
        let one_line_each = total > 1 && !(text && shown_as.verbose);
        let head = (total > 1).then(|| {
            let at = point.as_ref().map(|p| {
                format!(" ({p}{})", if repeat > 1 { format!(", {repeat_word} {repeat}") } else { String::new() })
            });
            format!("run {} of {total}{}", i + 1, at.unwrap_or_default())
        });
        match &head {
            Some(head) if one_line_each => display.announce(head),
            Some(head) => note(quiet, head),
            None => {}
        }
        let paths: Vec<&std::path::Path> = job.targets.iter().map(|t| t.path.as_path()).collect();
        let environment = spindle_host::environment(&paths);
        let sampler = Sampler::start(ProcRoot::default(), devices_under(&paths), sample_interval);
        let result = run_job(&job, stop, &mut |p| display.tick(&p));
        let counters = sampler.stop(Duration::from_nanos(job.warmup_ns));
        display.finish_line();
        let job_outcome = result?;
        let mut labels = labels.clone();
        labels.extend(own_labels);
        let context = RunContext {
            labels,
            command_line: output::command_line(),
            environment,
            counters: Some(counters),
            warnings: warnings.to_vec(),
        };
        let mut record = build_record(&job, &job_outcome, context);
        let page_cache = spindle_report::page_cache_finding(&record);
        record.warnings.extend(page_cache.clone());
        let id = match saver.save(&record, point.clone(), repeat) {
            Ok(id) => id,
            Err(e) => {
                // The figures are shown even so: a finished measurement is never thrown away.
                output::print(std::slice::from_ref(&record), shown_as)?;
                return Err(e);
            }
        };
        if text && (total == 1 || shown_as.verbose) {
            // Every warning is said on stderr as it arises (the plan's before the run, the
            // targets' when they are prepared, the page cache's and running out of space after
            // it), so the report printed now leaves them out; the record keeps them all, and
            // `runs show` prints them.
            let shown = RunRecord { warnings: Vec::new(), ..record.clone() };
            output::write_stdout(&spindle_report::render_text(std::slice::from_ref(&shown)))?;
        }
        // The store is named once; after that, the run's id is enough.
        let saved = if i == 0 {
            format!("saved as run {id} in {}", saver.path.display())
        } else {
            format!("saved as run {id}")
        };
        match &head {
            // Many runs: a line each as it ends; the table of all of them comes at the end.
            Some(head) if one_line_each && text => note(quiet, &format!("{head}: {}; {saved}", one_line(&record))),
            Some(head) if one_line_each => note(quiet, &format!("{head}: {saved}")),
            _ => note(quiet, &saved),
        }
        if let Some(finding) = &page_cache {
            warn(quiet, finding);
        }

        let out_of_space = record.warnings.iter().any(|w| w.contains("out of space"));
        if out_of_space {
            eprintln!("spindle: error: a target ran out of space; the result above covers the run until then");
        }
        let faulty = record.details.verify().map_or(0, |v| v.faulty_sectors());
        if faulty > 0 {
            eprintln!(
                "spindle: error: verification found {faulty} faulty sector(s): the storage did not give back what it acknowledged (listed in the report; `spindle runs show {id}`)"
            );
        }
        if !record.errors.is_empty() || out_of_space || faulty > 0 {
            outcome = Outcome::OperationsFailed;
        }
        runs.push(Finished { id, record, point });
        if out_of_space {
            break;
        }
        if interrupt::requested() {
            outcome = Outcome::Interrupted;
            break;
        }
    }
    Ok((runs, outcome))
}

/// Creates or checks every target once for all jobs, before any measurement; the null engine
/// touches no file. A target is prepared for writing if any job writes to it. On failure,
/// targets already prepared are cleaned up before the error is returned.
fn prepare_targets(
    jobs: &mut [BatchJob],
    display: &Display,
    quiet: bool,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Vec<PreparedTarget>, TargetError> {
    let mut prepared: Vec<PreparedTarget> = Vec::new();
    let Some(first) = jobs.first() else { return Ok(prepared) };
    if first.job.engine == EngineKind::Null {
        return Ok(prepared);
    }
    let (force, allow_destroy, keep) = (first.job.force, first.job.allow_destroy, first.job.keep_file);
    let all_targets: Vec<_> = jobs.iter().flat_map(|j| j.job.targets.iter()).collect();
    let mut sizes = Vec::new();
    for target in &all_targets {
        if sizes.iter().any(|(p, _)| p == &target.path) {
            continue;
        }
        let same_path = || all_targets.iter().filter(|t| t.path == target.path);
        let options = PrepareOptions {
            force,
            allow_destroy,
            writes: same_path().any(|t| t.workload.writes()),
            direct: same_path().any(|t| !t.workload.buffered),
        };
        let shown = target.path.display().to_string();
        let result = spindle_io::target::prepare(
            &target.path,
            target.size,
            &options,
            &mut |done, total| display.fill(&shown, done, total),
            stop,
        );
        display.finish_line();
        match result {
            Ok(p) => {
                if p.kind == TargetKind::ReusedTestFile {
                    note(quiet, &format!("reusing test file {shown} ({})", format_size(p.size)));
                }
                sizes.push((target.path.clone(), p.size));
                prepared.push(p);
            }
            Err(e) => {
                let _ = finish_targets(prepared, keep);
                return Err(e);
            }
        }
    }
    // A device's size is its own; every job sees the prepared size.
    for job in jobs.iter_mut() {
        for t in &mut job.job.targets {
            if let Some((_, size)) = sizes.iter().find(|(p, _)| p == &t.path) {
                t.size = *size;
            }
        }
    }
    Ok(prepared)
}

/// Removes the test files this batch created (unless kept); never anything else.
fn finish_targets(prepared: Vec<PreparedTarget>, keep: bool) -> anyhow::Result<()> {
    for p in prepared {
        let path = p.path.clone();
        p.finish(keep).with_context(|| format!("cannot remove test file {}", path.display()))?;
    }
    Ok(())
}
