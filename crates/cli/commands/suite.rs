//! `spindle suite ENGINE --dir DIR`: an engine's pattern matrix on one test file in DIR, every
//! member saved as a run of one group, and a summary table at the end.

use crate::args::{IoArgs, SuiteArgs};
use crate::commands::batch::{Batch, BatchJob, run_batch};
use crate::machine::ThisMachine;
use crate::plan::{self, PlanError};
use crate::progress::warn;
use crate::suites::{self, Member};
use crate::{Outcome, output};
use spindle_model::RunRecord;
use spindle_store::GroupKind;

/// The suite's test file, inside --dir.
const TEST_FILE: &str = "spindle-suite.dat";

pub fn run(args: &SuiteArgs) -> anyhow::Result<Outcome> {
    let suite = suites::find(args.engine.trim()).ok_or_else(|| {
        PlanError(format!("suite {}: unknown engine; valid engines: {}", args.engine, suites::names().join(", ")))
    })?;
    if !args.dir.is_dir() {
        return Err(PlanError(format!("--dir {}: not a directory", args.dir.display())).into());
    }
    let labels = output::labels(&args.output.labels)?;
    let repeats = plan::repeats_of(&args.repeat)?;

    // Every member is planned before anything runs, so a mistake stops the suite up front.
    let mut planned = Vec::new();
    let mut warnings = Vec::new();
    for m in suite.members {
        let p = plan::plan_io(&member_args(args, m), &ThisMachine)?;
        for w in p.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        planned.push((m.name, p.jobs.into_iter().next().map(|j| j.job)));
    }
    for w in &warnings {
        warn(args.output.quiet, w);
    }
    let mut jobs = Vec::new();
    for repeat in 1..=repeats {
        for (name, job) in &planned {
            if let Some(job) = job {
                jobs.push(BatchJob { job: job.clone(), point: Some(name.to_string()), repeat });
            }
        }
    }
    let group = Some((GroupKind::Suite, format!("suite {}", suite.engine)));
    let batch = Batch {
        jobs,
        group,
        labels,
        warnings,
        output: &args.output,
        store: &args.store,
        sample_interval: plan::interval_of("--sample-interval", &args.sampler.sample_interval)?,
    };
    let done = run_batch(batch)?;

    if !done.print_machine_readable(&args.output)? && !args.output.quiet {
        let rows: Vec<(String, &RunRecord)> =
            done.runs.iter().map(|f| (format!("{} {}", f.id, f.point.as_deref().unwrap_or("")), &f.record)).collect();
        let mut table = format!("\nsuite {} (group {})", suite.engine, done.group.unwrap_or(0)).into_bytes();
        table.extend(spindle_report::render_overview(&rows));
        output::write_stdout(&table)?;
    }
    Ok(done.outcome)
}

/// The `spindle io` arguments one member stands for.
fn member_args(args: &SuiteArgs, m: &Member) -> IoArgs {
    let change = |key: &str| m.changes.iter().find(|(k, _)| *k == key).map(|(_, v)| v.to_string());
    IoArgs {
        targets: vec![args.dir.join(TEST_FILE)],
        profile: Some(m.profile.to_string()),
        size: args.size.clone(),
        random: change("random"),
        depth: change("depth"),
        duration: Some(args.duration.clone().unwrap_or_else(|| "30s".into())),
        warmup: Some(args.warmup.clone().unwrap_or_else(|| "5s".into())),
        engine: args.io_engine.clone(),
        keep_file: args.keep_file,
        ..IoArgs::default()
    }
}
