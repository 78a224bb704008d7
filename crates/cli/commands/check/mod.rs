//! `spindle check [DIR...]`: the main job. For each directory, the battery (page reads to the
//! knee, commits, checkpoint-like writes, read-ahead-like reads, a verified pass, the log test
//! on a database) through the one runner, every step an ordinary stored run in the directory's
//! check group; then the evidence judged by the findings rules, the summary on the terminal,
//! and the HTML report. Everything the user could get wrong is refused before any I/O.

mod answer;
mod battery;
mod dirs;
mod evidence;
mod placement;
mod plan;
mod report;
mod run;
mod since;
mod summary;

#[cfg(test)]
mod golden_tests;

use crate::args::{CheckArgs, OutputArgs};
use crate::commands::db::managed_anyhow;
use crate::console::{Console, Shown};
use crate::progress::note;
use crate::{Outcome, output, runner, store};
use answer::Answer;
use battery::Budget;
use run::Eta;
use spindle_analysis::findings::{self, DirEvidence, Evidence, Finding, Level};
use spindle_model::units::format_elapsed;
use spindle_runner::experiment::Runner;
use std::time::{Duration, Instant};

pub fn run(args: &CheckArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let plan = plan::plan(args)?;
    let quiet = args.quiet || args.json;
    note(quiet, &plan.describe(&store::location(&args.store)?));
    // What lies under each directory, read before the battery writes anything.
    let mut facts: Vec<DirEvidence> = plan.dirs.iter().map(|d| dirs::host_facts(&d.dir)).collect();
    let shared = dirs::sharing_a_device(&facts);
    for line in &shared {
        note(quiet, line);
    }

    let console_output = OutputArgs { quiet, labels: args.labels.clone(), ..OutputArgs::default() };
    let console = Console::new(&console_output, store::location(&args.store)?, Shown::Saved);
    let mut runner = runner::new(&console, &args.store, plan.labels, Duration::from_secs(1))?;
    let mut eta = Eta { left: plan.takes, done: 0, total: plan.battery_steps };
    let mut evidence = Evidence { guidance: plan.guidance, dirs: Vec::new() };
    for (dir, mut facts) in plan.dirs.into_iter().zip(facts.drain(..)) {
        let before = runner.runs.len();
        let engine = dir.log_engine;
        let went_on = run::battery(&mut runner, dir, &plan.sizing, &mut eta).map_err(managed_anyhow)?;
        let runs: Vec<_> = runner.runs[before..].iter().collect();
        evidence::gather(&mut facts, plan.guidance, &runs, engine);
        evidence.dirs.push(facts);
        if !went_on {
            break;
        }
    }
    let mut layouts = None;
    if let Some(l) = plan.layouts
        && runner.outcome != Outcome::Interrupted
        && evidence.dirs.len() == 2
    {
        note(
            quiet,
            &format!(
                "data and log: one volume or two? {} rounds of both layouts, alternated (about {} left)",
                l.rounds,
                format_elapsed(l.takes())
            ),
        );
        let shared_disk = dirs::shared_disk(&evidence.dirs[0].device, &evidence.dirs[1].device);
        layouts = l.run(&mut runner, shared_disk.as_deref())?;
    }

    let found = findings::findings(&evidence);
    let since = keep_summaries(&runner, &evidence, &found, plan.budget)?;
    let groups: Vec<i64> = runner.groups.iter().filter_map(|g| g.id).collect();
    let report = report::write(&plan.report, &runner, &groups, args.force)?;
    let answer = Answer {
        verdicts: findings::verdicts(&found),
        findings: found,
        evidence,
        since,
        shared,
        budget: plan.budget,
        elapsed: started.elapsed(),
        groups,
        report,
        interrupted: runner.outcome == Outcome::Interrupted,
        layouts,
    };
    if args.json {
        output::write_stdout(serde_json::to_string_pretty(&report::json(&answer))?.as_bytes())?;
        output::write_stdout(b"\n")?;
    } else if args.quiet {
        eprint!("{}", summary::verdict_line(&answer.findings));
    } else {
        output::write_text(summary::render(&answer).as_bytes())?;
    }
    let problems = args.strict && answer.findings.iter().any(|f| f.level == Level::Problem);
    Ok(runner.outcome.and(if problems { Outcome::Problems } else { Outcome::Success }))
}

/// Each directory's check group keeps its evidence and findings (what `runs show --group`
/// and `report` draw, and what the next check of the place is held against); what moved
/// since the last check of each.
fn keep_summaries(
    runner: &Runner<'_>,
    evidence: &Evidence,
    found: &[Finding],
    budget: Budget,
) -> anyhow::Result<Vec<(String, Option<since::Since>)>> {
    let mut since = Vec::new();
    for dir in &evidence.dirs {
        let name = run::group_of(std::path::Path::new(&dir.dir)).1;
        let Some(group) = runner.groups.iter().find(|g| g.name == name) else { continue };
        let (Some(id), Some(store)) = (group.id, runner.saver.store()) else { continue };
        let before = since::since(store, &name, id, dir, evidence.guidance)?;
        let of_dir: Vec<_> = found.iter().filter(|f| f.dir == dir.dir).collect();
        runner.saver.set_group_summary(
            group,
            &serde_json::json!({
                "schema": report::SCHEMA,
                "budget": budget.name(),
                "guidance": evidence.guidance,
                "evidence": dir,
                "findings": of_dir,
                "since": before,
            }),
        )?;
        since.push((dir.dir.clone(), before));
    }
    Ok(since)
}
