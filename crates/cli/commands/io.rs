//! `spindle io`: plan (one job, repeats or a sweep), run the batch, print what belongs to the
//! whole batch (the sweep's curve and knee, the repeats' spread).

use crate::args::IoArgs;
use crate::commands::batch::{Batch, BatchJob, run_batch};
use crate::machine::ThisMachine;
use crate::progress::warn;
use crate::{Outcome, output, plan};
use spindle_model::RunRecord;
use spindle_store::GroupKind;

pub fn run(args: &IoArgs) -> anyhow::Result<Outcome> {
    let labels = output::labels(&args.output.labels)?;
    let plan = plan::plan_io(&plan::PlanInput::from(args), &ThisMachine)?;
    for w in &plan.warnings {
        warn(args.output.quiet, w);
    }
    let group = match (&plan.sweep, plan.repeats) {
        (Some(sweep), _) => Some((GroupKind::Sweep, format!("--sweep {}", sweep.text))),
        (None, n) if n > 1 => Some((GroupKind::Repeat, format!("--repeat {n}"))),
        _ => None,
    };
    let sweep = plan.sweep;
    let repeats = plan.repeats;
    let jobs = plan
        .jobs
        .into_iter()
        .map(|p| BatchJob {
            job: p.job,
            point: p.point.and_then(|i| sweep.as_ref().map(|s| s.point(i))),
            repeat: p.repeat,
            labels: Default::default(),
        })
        .collect();
    let batch = Batch {
        jobs,
        group,
        labels,
        warnings: plan.warnings,
        output: &args.output,
        store: &args.store,
        sample_interval: plan::interval_of("--sample-interval", &args.sampler.sample_interval)?,
        print_runs: true,
    };
    let done = run_batch(batch)?;

    // A sweep's JSON is one document with its curve; everything else prints its records.
    let sweep_json = sweep.is_some() && args.output.json;
    let text = !sweep_json && !done.print_machine_readable(&args.output)? && !args.output.quiet;
    // A sweep of single runs says everything in its curve; the table of runs is for repeats
    // (whose spread it shows) and for the ids of a sweep's repeated points.
    let curve_says_it_all = sweep.is_some() && repeats <= 1;
    if text && done.runs.len() > 1 && !curve_says_it_all {
        let rows: Vec<(String, &RunRecord)> = done
            .runs
            .iter()
            .map(|f| (f.point.as_ref().map_or(f.id.to_string(), |p| format!("{} {p}", f.id)), &f.record))
            .collect();
        output::write_stdout(&spindle_report::render_overview(&rows))?;
    }
    if let Some(sweep) = &sweep {
        let points: Vec<(String, Vec<&RunRecord>)> = (0..sweep.points.len())
            .map(|i| {
                let name = sweep.point(i);
                let runs = done.runs.iter().filter(|f| f.point.as_ref() == Some(&name)).map(|f| &f.record).collect();
                (sweep.points[i].text.clone(), runs)
            })
            .collect();
        let curve = spindle_analysis::curve::curve(&points);
        let knee = spindle_analysis::curve::knee(&curve);
        if let (Some(group), Some(store)) = (done.group, &done.store) {
            let summary = serde_json::json!({
                "param": sweep.param.name(),
                "curve": curve,
                "knee": knee.map(|i| &curve[i].value),
            });
            store.set_group_summary(group, &summary)?;
        }
        if text {
            output::write_stdout(&spindle_report::render_sweep(sweep.param.name(), &curve))?;
        }
        if sweep_json {
            let records: Vec<RunRecord> = done.runs.iter().map(|f| f.record.clone()).collect();
            let doc = spindle_report::SweepDocument {
                group: done.group,
                param: sweep.param.name(),
                runs: &records,
                curve: &curve,
                knee: knee.map(|i| curve[i].value.as_str()),
            };
            output::write_stdout(&spindle_report::render_sweep_json(&doc))?;
        }
    }
    Ok(done.outcome)
}
