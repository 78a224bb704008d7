//! The whole check, after its plan: what lies under each directory read first, then each
//! directory's battery through the one runner, the two layouts where there are two
//! directories, and the evidence judged once by the findings rules into the `Answer` every
//! view draws. Data flows one way: a step's record becomes evidence once, findings are computed
//! once, and the summary, `--json` and the HTML report are views of them.

use crate::answer::Answer;
use crate::plan::CheckPlan;
use crate::run::{Eta, battery, why_stopped};
use crate::{dirs, evidence, report, summaries};
use spindle_analysis::check_summary::StoppedEarly;
use spindle_analysis::findings::{self, DirEvidence, Evidence};
use spindle_model::units::format_elapsed;
use spindle_plan::managed::managed_anyhow;
use spindle_runner::experiment::Runner;
use spindle_runner::{Outcome, RunEnd};
use spindle_store::Location;

/// A finished check: its answer, the HTML report to write where `answer.report` says, and how
/// the runs went.
pub struct Checked {
    pub answer: Answer,
    pub html: Option<Vec<u8>>,
    pub outcome: Outcome,
}

/// Runs the planned check. `open_runner` makes the runner once the host has been read (it
/// opens the store); `note` says what the check is about to do (the plan, shared devices,
/// the layouts' rounds).
pub fn run<'a>(
    mut plan: CheckPlan,
    store: &Location,
    open_runner: impl FnOnce() -> anyhow::Result<Runner<'a>>,
    note: &dyn Fn(&str),
) -> anyhow::Result<Checked> {
    note(&plan.describe(store));
    // Held until the check's answer is made, whatever happens before.
    let _locks = std::mem::take(&mut plan.locks);
    // What lies under each directory, read before the battery writes anything.
    let facts: Vec<DirEvidence> = plan.dirs.iter().map(|d| dirs::host_facts(&d.dir)).collect();
    let shared = dirs::sharing_a_device(&facts);
    for line in &shared {
        note(line);
    }
    let mut runner = open_runner()?;
    let (budget, report_path, plan_started) = (plan.budget, plan.report.clone(), plan.started);
    let Measures { evidence, layouts, stopped_dirs, stopped } = measure(&mut runner, plan, facts, note)?;
    let found = findings::findings(&evidence);
    let since = summaries::keep(&runner, &evidence, &stopped_dirs, &found, budget)?;
    let groups: Vec<i64> = runner.groups.iter().filter_map(|g| g.id).collect();
    let html = report::html(&runner, &groups, stopped)?;
    let answer = Answer {
        verdicts: findings::verdicts(&found),
        findings: found,
        evidence,
        since,
        shared,
        budget,
        elapsed: plan_started.elapsed(),
        groups,
        report: html.as_ref().map(|_| report_path),
        stopped,
        layouts,
    };
    Ok(Checked { answer, html, outcome: runner.outcome })
}

/// What the check measured: each directory's evidence (and, beside it, whether its battery
/// stopped early), the layouts of two directories, and whether the whole check stopped early.
struct Measures {
    evidence: Evidence,
    layouts: Option<crate::placement::Answer>,
    stopped_dirs: Vec<Option<StoppedEarly>>,
    stopped: Option<StoppedEarly>,
}

/// Every directory's battery, its runs turned into the directory's evidence as it ends; then
/// the layouts of two directories, unless the check stopped early.
fn measure(
    runner: &mut Runner<'_>,
    plan: CheckPlan,
    facts: Vec<DirEvidence>,
    note: &dyn Fn(&str),
) -> anyhow::Result<Measures> {
    let mut eta = Eta { left: plan.takes, done: 0, total: plan.battery_steps, measured: 0 };
    let layout_steps = plan.layouts.as_ref().map_or(0, crate::placement::Layouts::steps);
    let mut m = Measures {
        evidence: Evidence { guidance: plan.guidance, dirs: Vec::new() },
        layouts: None,
        stopped_dirs: Vec::new(),
        stopped: None,
    };
    for (dir, mut facts) in plan.dirs.into_iter().zip(facts) {
        let before = runner.runs.len();
        let (total_before, measured_before) = (eta.total, eta.measured);
        let planned = dir.steps(&plan.sizing);
        let engine = dir.log_engine;
        let stopped = battery(runner, dir, &plan.sizing, &mut eta).map_err(managed_anyhow)?;
        let runs: Vec<_> = runner.runs[before..].iter().collect();
        facts.expected = plan.expected;
        evidence::gather(&mut facts, plan.guidance, &runs, engine);
        m.evidence.dirs.push(facts);
        let steps = eta.measured - measured_before;
        m.stopped_dirs.push(stopped.map(|why| StoppedEarly { why, steps, of: planned + eta.total - total_before }));
        if let Some(why) = stopped {
            m.stopped = Some(StoppedEarly { why, steps: eta.measured, of: eta.total + layout_steps });
            return Ok(m);
        }
    }
    let Some(l) = plan.layouts else { return Ok(m) };
    if m.evidence.dirs.len() != 2 {
        return Ok(m);
    }
    note(&format!(
        "data and log: one volume or two? {} rounds of both layouts, alternated (about {} left)",
        l.rounds,
        format_elapsed(l.takes())
    ));
    let shared_disk = dirs::shared_disk(&m.evidence.dirs[0].device, &m.evidence.dirs[1].device);
    let before = runner.runs.len();
    m.layouts = l.run(runner, shared_disk.as_deref())?;
    if let Some(why) = why_stopped(runner, before) {
        let done = runner.runs[before..].iter().filter(|f| matches!(f.end, RunEnd::Complete { .. })).count();
        m.stopped = Some(StoppedEarly { why, steps: eta.measured + done, of: eta.total + layout_steps });
    }
    Ok(m)
}
