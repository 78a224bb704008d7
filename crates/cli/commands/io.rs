//! `spindle io`: plan (one job, repeats or a sweep), run the series, print what belongs to the
//! whole series (the sweep's curve and knee, the repeats' spread).

use crate::args::IoArgs;
use crate::console::{Console, Shown};
use crate::machine::{AgentsElsewhere, ThisMachine};
use crate::progress::warn;
use crate::runner::{self, IoStep};
use crate::{Outcome, output, plan, store};
use spindle_analysis::curve::{close_call, knee};
use spindle_analysis::findings::Level;
use spindle_analysis::findings::expected::delivery;
use spindle_model::RunRecord;
use spindle_model::db::Counts;
use spindle_store::GroupKind;

pub fn run(args: &IoArgs) -> anyhow::Result<Outcome> {
    let labels = output::labels(&args.output.labels)?;
    let agents = crate::commands::agents::request_of(&args.agents)?;
    // Agents on other hosts find their targets there, not here.
    let machine: &dyn spindle_plan::Machine =
        if agents.as_ref().is_some_and(|r| r.launch.remote()) { &AgentsElsewhere } else { &ThisMachine };
    let plan = plan::plan_io(&plan::PlanInput::from(args), machine)?;
    output::refuse_store_targets(plan.jobs.iter().map(|p| &p.job), &store::files(Some(&args.store)))?;
    for w in &plan.warnings {
        warn(args.output.quiet, w);
    }
    if let Some(request) = agents {
        if plan.jobs.len() != 1 {
            return Err(crate::usage::UsageError::request(
                "--agents measures one job: run it once per --sweep point or --repeat instead",
            )
            .into());
        }
        let job = plan.jobs.into_iter().next().map(|p| p.job).expect("one job");
        let asked = crate::commands::agents::Asked { store: &args.store, output: &args.output, db: None };
        return crate::commands::agents::run(asked, request, crate::commands::agents::Work::Io { job });
    }
    let group = match (&plan.sweep, plan.repeats) {
        (Some(sweep), _) => Some((GroupKind::Sweep, format!("--sweep {}", sweep.text))),
        (None, n) if n > 1 => Some((GroupKind::Repeat, format!("--repeat {n}"))),
        _ => None,
    };
    let (sweep, repeats, expected) = (plan.sweep, plan.repeats, plan.expected);
    let steps = plan
        .jobs
        .into_iter()
        .map(|p| IoStep {
            job: p.job,
            point: p.point.and_then(|i| sweep.as_ref().map(|s| s.point(i))),
            repeat: p.repeat,
        })
        .collect();
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    let console = Console::new(&args.output, store::location(&args.store)?, Shown::Line);
    let mut runner = runner::new(&console, &args.store, labels, interval)?;
    let (runs, outcome) = runner::io_series(&mut runner, steps, &plan.warnings, group)?;
    let group = runner.groups.first().and_then(|g| g.id);

    // A sweep's JSON is one document with its curve; everything else prints its records.
    let sweep_json = sweep.is_some() && args.output.json;
    let records: Vec<RunRecord> = runs.iter().map(|f| f.record.clone()).collect();
    let machine_readable = !sweep_json && (args.output.json || args.output.csv);
    if machine_readable {
        output::print_document(&runner.saver.document(&records), &args.output)?;
    }
    let text = !sweep_json && !machine_readable && !args.output.quiet;
    // A sweep of single runs says everything in its curve; the table of runs is for repeats
    // (whose spread it shows) and for the ids of a sweep's repeated points.
    let curve_says_it_all = sweep.is_some() && repeats <= 1;
    if text && runs.len() > 1 && !curve_says_it_all {
        let rows: Vec<(String, &RunRecord)> = runs
            .iter()
            .map(|f| (f.point.clone().map_or(f.id.to_string(), |p| format!("{} {p}", f.id)), &f.record))
            .collect();
        output::write_text(&spindle_report::render_overview(&rows))?;
    }
    if let Some(sweep) = &sweep {
        let points: Vec<(String, Vec<&RunRecord>)> = (0..sweep.points.len())
            .map(|i| {
                let point = sweep.point(i);
                let runs = runs.iter().filter(|f| f.point.as_ref() == Some(&point)).map(|f| &f.record).collect();
                (sweep.points[i].text.clone(), runs)
            })
            .collect();
        let curve = runner::sweep_curve(&runner, sweep.param.name(), &points)?;
        if text {
            output::write_text(&spindle_report::render_sweep(sweep.param.name(), &curve, Counts::Ios))?;
        }
        if sweep_json {
            let doc = spindle_report::SweepDocument {
                group,
                param: sweep.param.name(),
                runs: &records,
                curve: &curve,
                knee: knee(&curve).map(|i| curve[i].value.as_str()),
                knee_range: close_call(&curve).map(|r| r.span(&curve)),
            };
            output::write_stdout(&spindle_report::render_sweep_json(&doc))?;
        }
    }
    let ids: Vec<(i64, &RunRecord)> = runs.iter().map(|f| (f.id, &f.record)).collect();
    match expected.and_then(|e| delivery(&e, &ids)) {
        // Beside a document on stdout the answer goes to stderr, which keeps the document whole.
        Some((level, said)) => {
            if text {
                output::write_text(format!("{said}\n").as_bytes())?
            } else {
                eprintln!("{said}")
            }
            let short = args.strict && level == Level::Problem;
            Ok(outcome.and(if short { Outcome::Problems } else { Outcome::Success }))
        }
        None => Ok(outcome),
    }
}
