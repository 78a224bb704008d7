//! What every measuring command hands the runner: the store to save in (checked before
//! anything runs), `--label`s, the masked command line and the sample interval; the I/O
//! series that `io`, `suite` and `ab` share; and the curve that ends every sweep (`io
//! --sweep`, `hammer run --sessions`).

use crate::args::StoreArgs;
use crate::console::Console;
use crate::{interrupt, output, store};
use spindle_analysis::curve::{CurvePoint, curve};
use spindle_analysis::group_summary::SweepSummary;
use spindle_model::RunRecord;
use spindle_model::group::Point;
use spindle_model::spec::JobSpec;
use spindle_runner::experiment::series::{self, Step};
use spindle_runner::experiment::{Finished, Runner};
use spindle_runner::workload::Workload;
use spindle_runner::workload::io::{Files, IoJob};
use spindle_runner::{Outcome, Saver};
use spindle_store::GroupKind;
use std::collections::BTreeMap;
use std::time::Duration;

pub fn new<'a>(
    console: &'a Console<'_>,
    store_args: &StoreArgs,
    labels: BTreeMap<String, String>,
    sample_interval: Duration,
) -> anyhow::Result<Runner<'a>> {
    let saver = Saver::new(store::location(store_args)?)?;
    let mut runner = Runner::new(saver, console, interrupt::stop_flag(), interrupt::requested);
    runner.labels = labels;
    runner.command_line = output::command_line();
    runner.sample_interval = sample_interval;
    Ok(runner)
}

/// One I/O job of a series, and where it sits.
pub struct IoStep {
    pub job: JobSpec,
    /// The sweep point or suite member (`depth=8`, `page-read`).
    pub point: Option<Point>,
    pub repeat: u32,
}

/// Runs I/O jobs one after another, their test files prepared once for all of them, each run
/// saved in `group` as it ends.
pub fn io_series(
    runner: &mut Runner<'_>,
    steps: Vec<IoStep>,
    warnings: &[String],
    group: Option<(GroupKind, String)>,
) -> anyhow::Result<(Vec<Finished>, Outcome)> {
    runner.files = Files::for_jobs(steps.iter().map(|s| &s.job));
    let mut order = Vec::new();
    let mut jobs = Vec::new();
    for (i, step) in steps.into_iter().enumerate() {
        order.push(Step { workload: i, point: 0, point_name: step.point, repeat: step.repeat });
        jobs.push(IoJob::new(step.job, warnings.to_vec()));
    }
    let mut workloads: Vec<&mut dyn Workload> = jobs.iter_mut().map(|j| j as &mut dyn Workload).collect();
    series::run(runner, &mut workloads, &order, group)?;
    Ok((std::mem::take(&mut runner.runs), runner.outcome))
}

/// A sweep's curve over the runs at each of its values (in order), kept with its knee as the
/// series' group's summary so `runs show --group` and reports say what the command said.
pub fn sweep_curve(
    runner: &Runner<'_>,
    param: &str,
    points: &[(String, Vec<&RunRecord>)],
) -> anyhow::Result<Vec<CurvePoint>> {
    let curve = curve(points);
    if let Some(group) = runner.groups.first() {
        runner.saver.set_group_summary(group, &serde_json::to_value(SweepSummary::of(param, &curve))?)?;
    }
    Ok(curve)
}
