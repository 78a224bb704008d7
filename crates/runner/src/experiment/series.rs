//! Steps one after another: `io` (one job, repeats, a sweep), `suite`, `hammer run` (a run per
//! session count), `logtest` (a run per transaction size), `largeops` (repeats of the four
//! operations). Every workload is prepared before the first step, so a mistake or a missing
//! file stops the series before anything is measured; the series stops at the first run that
//! cannot go on (Ctrl-C, out of space, a failed statement) with every run before it saved.

use super::{Place, Runner};
use crate::workload::Workload;
use spindle_model::group::Point;
use spindle_store::GroupKind;

/// One step of a series.
#[derive(Clone, Debug)]
pub struct Step {
    /// Index of the workload that runs it.
    pub workload: usize,
    /// The workload's point (a session count's index), 0 when it has one.
    pub point: usize,
    /// As the run's point is stored and shown (`depth=8`, `sessions=32`, a suite member).
    pub point_name: Option<Point>,
    /// 1-based repeat.
    pub repeat: u32,
}

impl Step {
    /// The one step of a workload run once.
    pub fn once() -> Step {
        Step { workload: 0, point: 0, point_name: None, repeat: 1 }
    }
}

/// Runs `steps` in order, every run saved in `group` (kind and name; none for a single run).
pub fn run(
    runner: &mut Runner<'_>,
    workloads: &mut [&mut dyn Workload],
    steps: &[Step],
    group: Option<(GroupKind, String)>,
) -> anyhow::Result<()> {
    runner.total_steps = steps.len();
    let result = run_steps(runner, workloads, steps, &group);
    runner.finish(workloads);
    result
}

fn run_steps(
    runner: &mut Runner<'_>,
    workloads: &mut [&mut dyn Workload],
    steps: &[Step],
    group: &Option<(GroupKind, String)>,
) -> anyhow::Result<()> {
    for w in workloads.iter_mut() {
        let ready = runner.prepare(&mut **w, &mut |_| Place {
            group: group.clone(),
            point: Some(Point::Member("load".into())),
            repeat: 1,
            labels: Default::default(),
        })?;
        if !ready {
            return Ok(());
        }
    }
    let total = steps.len();
    for (i, step) in steps.iter().enumerate() {
        if total > 1 {
            let at = step.point_name.as_ref().map(|p| {
                format!(" ({p}{})", if step.repeat > 1 { format!(", repeat {}", step.repeat) } else { String::new() })
            });
            runner.observer.announce(&format!("run {} of {total}{}", i + 1, at.unwrap_or_default()));
        }
        let goes_on = runner.step(&mut *workloads[step.workload], step.point, &mut |_| Place {
            group: group.clone(),
            point: step.point_name.clone(),
            repeat: step.repeat,
            labels: Default::default(),
        })?;
        if !goes_on {
            break;
        }
    }
    Ok(())
}
