//! Experiments: which workload runs which step, in which order, and where each run is saved.
//! `series` runs steps one after another (repeats, a sweep, a suite, session counts,
//! transaction sizes); `ab` alternates two workloads in balanced rounds and compares them pair
//! by pair. Both go through [`Runner`]: workloads prepared before the first step, every run
//! labelled and saved the moment it is measured, the outcome decided from each run's end, and
//! everything spindle made undone at the end (on errors and Ctrl-C too).

pub mod ab;
pub mod placement;
pub mod rounds;
pub mod series;
#[cfg(test)]
mod tests;

use crate::observer::Observer;
use crate::saver::{Group, Saver};
use crate::workload::io::Files;
use crate::workload::{Context, Measured, Workload};
use crate::{Outcome, RunEnd};
use spindle_io::target::TargetError;
use spindle_model::RunRecord;
use spindle_model::group::Point;
use spindle_store::GroupKind;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A run that was measured and saved as run `id`.
#[derive(Clone, Debug)]
pub struct Finished {
    pub id: i64,
    /// Which step of the experiment made it (0-based); `None` for a run made while a workload
    /// was prepared (a load).
    pub step: Option<usize>,
    /// Index of its group in `Runner::groups`.
    pub group: Option<usize>,
    pub record: RunRecord,
    pub part: Option<String>,
    pub point: Option<Point>,
    pub repeat: u32,
    pub end: RunEnd,
}

/// Where a measured run goes: its group (kind and name; the runner starts it with its first
/// run), point, repeat and labels of its own.
pub struct Place {
    pub group: Option<(GroupKind, String)>,
    pub point: Option<Point>,
    pub repeat: u32,
    pub labels: BTreeMap<String, String>,
}

pub struct Runner<'a> {
    pub saver: Saver,
    pub observer: &'a dyn Observer,
    /// Raised by Ctrl-C, and by a worker that ran out of space (to stop its job's others).
    pub stop: &'static AtomicBool,
    /// Whether the user asked to stop (Ctrl-C), as opposed to a stop raised by a workload.
    pub requested: fn() -> bool,
    pub sample_interval: Duration,
    /// Labels every run carries (`--label`).
    pub labels: BTreeMap<String, String>,
    /// The arguments spindle was started with, passwords removed.
    pub command_line: Vec<String>,
    pub files: Files,
    /// Every run saved, in order.
    pub runs: Vec<Finished>,
    /// The groups runs were saved in, in the order they were started.
    pub groups: Vec<Group>,
    pub outcome: Outcome,
    /// How many steps the plan has, for the observer's "run 3 of 8".
    pub total_steps: usize,
    /// The steps run so far.
    steps_run: usize,
    /// The instant an agent's steps start at (`Context::start`).
    pub start: Option<std::sync::Arc<spindle_clock::StartAt>>,
}

impl<'a> Runner<'a> {
    pub fn new(
        saver: Saver,
        observer: &'a dyn Observer,
        stop: &'static AtomicBool,
        requested: fn() -> bool,
    ) -> Runner<'a> {
        Runner {
            saver,
            observer,
            stop,
            requested,
            sample_interval: Duration::from_secs(1),
            labels: BTreeMap::new(),
            command_line: Vec::new(),
            files: Files::default(),
            runs: Vec::new(),
            groups: Vec::new(),
            outcome: Outcome::Success,
            total_steps: 1,
            steps_run: 0,
            start: None,
        }
    }

    /// Readies `workload`; the runs it measures on the way are placed by `place`. `false` when
    /// a Ctrl-C stopped it (said, and the outcome is then `Interrupted`).
    pub fn prepare(
        &mut self,
        workload: &mut dyn Workload,
        place: &mut dyn FnMut(&Measured) -> Place,
    ) -> anyhow::Result<bool> {
        // Saved as each is measured, as a step's runs are.
        let (mut cx, mut kept, saver) = self.lend(None);
        let mut goes_on = true;
        let result = workload.prepare(&mut cx, &mut |m| {
            goes_on &= m.end.goes_on();
            kept.keep(saver, m, place)
        });
        match result {
            Ok(()) => Ok(goes_on),
            Err(e) => match e.downcast_ref::<TargetError>() {
                Some(TargetError::Interrupted(path)) => {
                    self.observer
                        .error(&format!("interrupted while creating {}; nothing was measured", path.display()));
                    self.outcome = Outcome::Interrupted;
                    Ok(false)
                }
                _ => Err(e),
            },
        }
    }

    /// Runs one step of `workload` at `point`, saving each run as it is measured; whether the
    /// experiment goes on after it.
    pub fn step(
        &mut self,
        workload: &mut dyn Workload,
        point: usize,
        place: &mut dyn FnMut(&Measured) -> Place,
    ) -> anyhow::Result<bool> {
        // Each run is saved before the step's next one starts (a large operation's scan is in
        // the store while its update runs).
        let step = self.steps_run;
        self.steps_run += 1;
        let (mut cx, mut kept, saver) = self.lend(Some(step));
        let end = workload.measure(point, &mut cx, &mut |m| kept.keep(saver, m, place))?;
        let interrupted = (self.requested)();
        if interrupted {
            self.outcome = self.outcome.and(Outcome::Interrupted);
        }
        Ok(end.goes_on() && !interrupted)
    }

    /// What a workload's step (or its preparation, `step` `None`) borrows of the runner at
    /// once: the context the workload is given, where its runs are kept, and the saver.
    fn lend(&mut self, step: Option<usize>) -> (Context<'_>, Kept<'_>, &mut Saver) {
        let cx = Context {
            stop: self.stop,
            observer: self.observer,
            sample_interval: self.sample_interval,
            files: &mut self.files,
            start: self.start.clone(),
        };
        let kept = Kept {
            labels: &self.labels,
            command_line: &self.command_line,
            runs: &mut self.runs,
            groups: &mut self.groups,
            outcome: &mut self.outcome,
            observer: self.observer,
            step,
            total: self.total_steps,
        };
        (cx, kept, &mut self.saver)
    }

    /// Undoes what every workload made (their own, then the experiment's test files); a
    /// failure to clean up is said, not made into a failure of the measured runs.
    pub fn finish(&mut self, workloads: &mut [&mut dyn Workload]) {
        for w in workloads.iter_mut() {
            let (mut cx, _, _) = self.lend(None);
            if let Err(e) = w.finish(&mut cx) {
                self.observer.warn(&format!("{}; remove it yourself", crate::saver::error_text(&e)));
            }
        }
        if let Err(e) = self.files.finish() {
            self.observer.warn(&format!("{}; remove it yourself", crate::saver::error_text(&e)));
        }
    }
}

/// What saving a run touches besides the store: the runner's fields a step's sink borrows
/// while the step's context holds the test files.
struct Kept<'k> {
    labels: &'k BTreeMap<String, String>,
    command_line: &'k [String],
    runs: &'k mut Vec<Finished>,
    groups: &'k mut Vec<Group>,
    outcome: &'k mut Outcome,
    observer: &'k dyn Observer,
    /// The step the runs come from (`None` while preparing).
    step: Option<usize>,
    total: usize,
}

impl Kept<'_> {
    /// Marks a measured run's level shift and swing, labels it, saves it where `place` says,
    /// tells the observer, and folds its end into the outcome.
    fn keep(
        &mut self,
        saver: &mut Saver,
        m: Measured,
        place: &mut dyn FnMut(&Measured) -> Place,
    ) -> anyhow::Result<()> {
        let Place { group, point, repeat, labels: own } = place(&m);
        let Measured { mut record, part, point: own_point, end } = m;
        // Decided once, here, where every measured run passes: views and compare read it.
        spindle_analysis::over_time::mark(&mut record);
        let mut labels = self.labels.clone();
        labels.extend(own);
        labels.extend(std::mem::take(&mut record.labels));
        record.labels = labels;
        record.command_line = self.command_line.to_vec();
        let point = point.or(own_point);
        let group = group.map(|(kind, name)| match self.groups.iter().position(|g| g.kind == kind && g.name == name) {
            Some(i) => i,
            None => {
                self.groups.push(Group::new(kind, name));
                self.groups.len() - 1
            }
        });
        let id = match saver.save(&record, group.map(|i| &mut self.groups[i]), point.clone(), repeat) {
            Ok(id) => id,
            Err(e) => {
                // The figures are shown even so: a finished measurement is never thrown away.
                self.observer.unsaved(&record);
                return Err(e);
            }
        };
        *self.outcome = self.outcome.and(end.outcome());
        let finished = Finished { id, step: self.step, group, record, part, point, repeat, end };
        self.observer.saved(&finished, self.runs.len(), self.total);
        self.runs.push(finished);
        Ok(())
    }
}
