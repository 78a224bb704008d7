//! `spindle io`: plan, prepare the targets, run, collect, print, clean up.

use crate::args::IoArgs;
use crate::machine::ThisMachine;
use crate::progress::{Display, note, warn};
use crate::{Outcome, interrupt, output, plan};
use anyhow::Context;
use spindle_io::collect::{RunContext, build_record};
use spindle_io::run::run_job;
use spindle_io::target::{PrepareOptions, PreparedTarget, TargetError, TargetKind};
use spindle_model::spec::{EngineKind, JobSpec};
use spindle_model::units::format_size;

pub fn run(args: &IoArgs) -> anyhow::Result<Outcome> {
    let quiet = args.output.quiet;
    let labels = output::labels(&args.output.labels)?;
    let plan = plan::plan_io(args, &ThisMachine)?;
    for w in &plan.warnings {
        warn(quiet, w);
    }
    let mut job = plan.job;
    let stop = interrupt::stop_flag();
    let display = Display::new(quiet);

    let prepared = match prepare_targets(&mut job, &display, quiet, stop) {
        Ok(p) => p,
        Err(TargetError::Interrupted(path)) => {
            display.finish_line();
            eprintln!("spindle: interrupted while creating {}; nothing was measured", path.display());
            return Ok(Outcome::Interrupted);
        }
        Err(e) => return Err(e.into()),
    };
    let mut warnings = plan.warnings;
    for p in &prepared {
        warnings.extend(p.warnings.iter().cloned());
    }

    let paths: Vec<&std::path::Path> = job.targets.iter().map(|t| t.path.as_path()).collect();
    let environment = spindle_host::environment(&paths);
    let outcome = run_job(&job, stop, &mut |p| display.tick(&p));
    display.finish_line();
    let cleanup = finish_targets(prepared, job.keep_file);
    let outcome = outcome?;
    let record = build_record(
        &job,
        &outcome,
        RunContext { labels, command_line: output::command_line(), environment, warnings },
    );
    output::print(std::slice::from_ref(&record), &args.output)?;
    cleanup?;

    let out_of_space = record.warnings.iter().any(|w| w.contains("out of space"));
    if out_of_space {
        eprintln!("spindle: error: a target ran out of space; the result above covers the run until then");
    }
    Ok(if interrupt::requested() {
        Outcome::Interrupted
    } else if !record.errors.is_empty() || out_of_space {
        Outcome::OperationsFailed
    } else {
        Outcome::Success
    })
}

/// Creates or checks every target before any measurement; the null engine touches no file.
/// On failure, targets already prepared are cleaned up before the error is returned.
fn prepare_targets(
    job: &mut JobSpec,
    display: &Display,
    quiet: bool,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Vec<PreparedTarget>, TargetError> {
    let mut prepared = Vec::new();
    if job.engine == EngineKind::Null {
        return Ok(prepared);
    }
    for target in &mut job.targets {
        let w = &target.workload;
        let options = PrepareOptions {
            force: job.force,
            allow_destroy: job.allow_destroy,
            writes: w.writes(),
            direct: !w.buffered,
        };
        let shown = target.path.display().to_string();
        let result =
            spindle_io::target::prepare(target, &options, &mut |done, total| display.fill(&shown, done, total), stop);
        display.finish_line();
        match result {
            Ok(p) => {
                if p.kind == TargetKind::ReusedTestFile {
                    note(quiet, &format!("reusing test file {shown} ({})", format_size(p.size)));
                }
                target.size = p.size;
                prepared.push(p);
            }
            Err(e) => {
                let _ = finish_targets(prepared, job.keep_file);
                return Err(e);
            }
        }
    }
    Ok(prepared)
}

/// Removes the test files this run created (unless kept); never anything else.
fn finish_targets(prepared: Vec<PreparedTarget>, keep: bool) -> anyhow::Result<()> {
    for p in prepared {
        let path = p.path.clone();
        p.finish(keep).with_context(|| format!("cannot remove test file {}", path.display()))?;
    }
    Ok(())
}
