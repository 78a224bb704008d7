//! `spindle suite ENGINE --dir DIR`: an engine's pattern matrix on one test file in DIR, every
//! member saved as a run of one group, and a summary table at the end.

use crate::args::SuiteArgs;
use crate::console::{Console, Shown};
use crate::machine::ThisMachine;
use crate::origin::{Origin, Setting};
use crate::plan::{self, PlanInput};
use crate::progress::{note, warn};
use crate::runner::{self, IoStep};
use crate::suites::{self, Member, Suite};
use crate::usage::UsageError;
use crate::{Outcome, output, store};
use spindle_model::RunRecord;
use spindle_model::group::Point;
use spindle_model::spec::JobSpec;
use spindle_store::GroupKind;

/// The suite's test file, inside --dir.
const TEST_FILE: &str = "spindle-suite.dat";

/// A member's name and its job (none when its planner left nothing to run).
type Planned = (&'static str, Option<JobSpec>);

pub fn run(args: &SuiteArgs) -> anyhow::Result<Outcome> {
    let suite = suites::find(args.engine.trim()).ok_or_else(|| {
        UsageError::flag(
            "suite",
            &args.engine,
            format_args!("unknown engine; valid engines: {}", suites::names().join(", ")),
        )
    })?;
    let labels = output::labels(&args.output.labels)?;
    let repeats = plan::repeats_of(&args.repeat)?;
    // A new place to test is made, as `mkdir -p` would: the planner checks the test file's
    // directory and its free space, so it must exist first.
    let dir = output::make_dir("--dir", &args.dir)?;
    let planned = plan_members(args, suite).inspect_err(|_| dir.undo())?;
    if dir.is_new() {
        note(args.output.quiet, &format!("created the directory {} (--dir)", args.dir.display()));
    }
    let (planned, warnings) = planned;
    for w in &warnings {
        warn(args.output.quiet, w);
    }
    let mut steps = Vec::new();
    for repeat in 1..=repeats {
        for (name, job) in &planned {
            if let Some(job) = job {
                steps.push(IoStep { job: job.clone(), point: Some(Point::Member(name.to_string())), repeat });
            }
        }
    }
    let group = Some((GroupKind::Suite, format!("suite {}", suite.engine)));
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    let console = Console::new(&args.output, store::location(&args.store)?, Shown::Line);
    let mut runner = runner::new(&console, &args.store, labels, interval)?;
    let (runs, outcome) = runner::io_series(&mut runner, steps, &warnings, group)?;
    let group = runner.groups.first().and_then(|g| g.id);

    if args.output.json || args.output.csv {
        let records: Vec<RunRecord> = runs.iter().map(|f| f.record.clone()).collect();
        output::print_document(&runner.saver.document(&records), &args.output)?;
    } else if !args.output.quiet {
        let rows: Vec<(String, &RunRecord)> = runs
            .iter()
            .map(|f| (format!("{} {}", f.id, f.point.as_ref().map(Point::to_string).unwrap_or_default()), &f.record))
            .collect();
        let mut table = format!("\nsuite {} (group {})", suite.engine, group.unwrap_or(0)).into_bytes();
        table.extend(spindle_report::render_overview(&rows));
        output::write_text(&table)?;
    }
    Ok(outcome)
}

/// Every member planned before anything runs, so a mistake stops the suite up front; with the
/// warnings they raised, each once.
fn plan_members(args: &SuiteArgs, suite: &'static Suite) -> anyhow::Result<(Vec<Planned>, Vec<String>)> {
    let mut planned = Vec::new();
    let mut warnings = Vec::new();
    for m in suite.members {
        let p = plan::plan_io(&member_input(args, suite, m), &ThisMachine)?;
        crate::output::refuse_store_targets(p.jobs.iter().map(|j| &j.job), &crate::store::files(Some(&args.store)))?;
        for w in p.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        planned.push((m.name, p.jobs.into_iter().next().map(|j| j.job)));
    }
    Ok((planned, warnings))
}

/// What one member asks the planner for: its profile, the suite's changes to it (named as
/// the suite's, so a mistake points there), and the suite command's own flags.
fn member_input(args: &SuiteArgs, suite: &'static Suite, m: &'static Member) -> PlanInput {
    let mut input = PlanInput {
        targets: vec![args.dir.join(TEST_FILE)],
        profile: Some(Setting {
            text: m.profile.to_string(),
            origin: Origin::Suite { suite: suite.engine, member: m.name, key: "profile" },
        }),
        keep_file: args.keep_file,
        ..PlanInput::default()
    };
    for (key, value) in m.changes {
        let origin = Origin::Suite { suite: suite.engine, member: m.name, key };
        input.set(key, Some(Setting { text: value.to_string(), origin }));
    }
    input.set("size", Setting::flag("--size", &args.size));
    input.set("engine", Setting::flag("--engine", &args.io_engine));
    let or_default = |v: &Option<String>, default: &str| Some(v.clone().unwrap_or_else(|| default.to_string()));
    input.set("duration", Setting::flag("--duration", &or_default(&args.timing.duration, "30s")));
    input.set("warmup", Setting::flag("--warmup", &or_default(&args.timing.warmup, "5s")));
    input
}
