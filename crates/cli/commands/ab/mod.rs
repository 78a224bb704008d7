//! `spindle ab A.toml B.toml`: an A/B experiment. Two workloads run alternately in balanced
//! rounds (see `rounds`), every run saved in one group with its side and round as labels, then
//! compared round by round (a paired test), so drift of the host that a round's two runs share
//! cancels. Comparing two groups run one after the other cannot do that: measured here, two
//! `--repeat 3` groups of one configuration run back to back came out 11.8% apart at p = 0.031.
//!
//! A side is a workload file today; the experiment's order, pairing and comparison do not
//! depend on what a side runs, so a side can later be a Hammer or log-test workload.

pub(crate) mod rounds;

use crate::args::AbArgs;
use crate::commands::batch::{Batch, BatchJob, Finished, run_batch};
use crate::commands::compare::threshold_of;
use crate::machine::ThisMachine;
use crate::origin::Setting;
use crate::plan::{self, PlanInput};
use crate::progress::{note, warn};
use crate::usage::UsageError;
use crate::{Outcome, output};
use rounds::Side;
use spindle_analysis::compare::{ROUND_LABEL, SIDE_LABEL, compare_rounds, spec_differences};
use spindle_model::RunRecord;
use spindle_model::spec::JobSpec;
use spindle_store::{GroupKind, Point};
use std::collections::BTreeMap;
use std::path::Path;

/// Rounds unless --rounds says otherwise.
const DEFAULT_ROUNDS: u32 = 5;
/// More rounds than this is a typo.
const MAX_ROUNDS: u64 = 1000;

pub fn run(args: &AbArgs) -> anyhow::Result<Outcome> {
    let rounds = rounds_of(&args.rounds, DEFAULT_ROUNDS)?;
    let threshold_pct = threshold_of(&args.verdict)?;
    let labels = output::labels(&args.labels)?;
    for key in [SIDE_LABEL, ROUND_LABEL] {
        if labels.contains_key(key) {
            return Err(UsageError::flag("--label", key, "spindle ab sets this label on every run itself").into());
        }
    }
    let (job_a, warnings_a) = plan_side(args, &args.a)?;
    let (job_b, warnings_b) = plan_side(args, &args.b)?;
    let mut warnings = warnings_a;
    for w in warnings_b {
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    }
    for w in &warnings {
        warn(args.quiet, w);
    }
    let differences = differences(&job_a, &job_b);
    if !args.quiet {
        eprintln!("{differences}");
    }

    let first = if random_bit() { Side::A } else { Side::B };
    let order = rounds::order(rounds, first);
    note(
        args.quiet,
        &format!(
            "{rounds} rounds, {} first (chosen at random): {}",
            first.label().to_uppercase(),
            rounds::order_text(&order)
        ),
    );
    let jobs = order
        .iter()
        .map(|&(side, round)| BatchJob {
            job: if side == Side::A { job_a.clone() } else { job_b.clone() },
            point: Some(Point::Member(side.label().to_string())),
            repeat: round,
            labels: BTreeMap::from([(SIDE_LABEL.into(), side.label().into()), (ROUND_LABEL.into(), round.to_string())]),
        })
        .collect();
    let out = crate::args::OutputArgs {
        json: args.json,
        csv: false,
        quiet: args.quiet,
        verbose: false,
        labels: args.labels.clone(),
    };
    let group_name = format!("ab {} {}", args.a.display(), args.b.display());
    let batch = Batch {
        jobs,
        group: Some((GroupKind::Ab, group_name)),
        labels,
        warnings,
        output: &out,
        store: &args.store,
        sample_interval: plan::interval_of("--sample-interval", &args.sampler.sample_interval)?,
        print_runs: false,
    };
    let done = run_batch(batch)?;

    let sided: Vec<(Side, u32, &Finished)> =
        done.runs.iter().zip(&order).map(|(f, &(side, round))| (side, round, f)).collect();
    let ids: Vec<(i64, &RunRecord)> = done.runs.iter().map(|f| (f.id, &f.record)).collect();
    let comparison = compare_rounds(&ids, threshold_pct);
    if let (Some(group), Some(store)) = (done.group, &done.store) {
        let summary = serde_json::json!({
            "a": args.a.display().to_string(),
            "b": args.b.display().to_string(),
            "order": rounds::order_text(&order),
            "comparison": comparison,
        });
        store.set_group_summary(group, &summary)?;
    }
    let complete = comparison.a_runs.len();
    if complete < sided.len().div_ceil(2) {
        note(args.quiet, &format!("{complete} complete rounds of {rounds} are compared"));
    }
    let bytes = if args.json {
        let mut text = serde_json::to_string_pretty(&comparison)?;
        text.push('\n');
        text.into_bytes()
    } else if args.quiet {
        Vec::new()
    } else {
        let rows: Vec<(String, &RunRecord)> = sided
            .iter()
            .map(|(side, round, f)| (format!("{} {} round {round}", f.id, side.label().to_uppercase()), &f.record))
            .collect();
        let mut text = spindle_report::render_overview(&rows);
        text.extend(format!("\ngroup {}\n", done.group.unwrap_or(0)).into_bytes());
        text.extend(spindle_report::render_compare(
            &comparison,
            &args.a.display().to_string(),
            &args.b.display().to_string(),
        ));
        text
    };
    if args.json {
        output::write_stdout(&bytes)?
    } else {
        output::write_report(&bytes)?
    }
    Ok(done.outcome)
}

/// `--rounds N`: pairs need two rounds at least.
pub(crate) fn rounds_of(text: &Option<String>, default: u32) -> Result<u32, UsageError> {
    let Some(t) = text else { return Ok(default) };
    let n: u64 = t.trim().parse().map_err(|_| UsageError::flag("--rounds", t, "a whole number of rounds, e.g. 5"))?;
    if n < 2 {
        return Err(UsageError::flag(
            "--rounds",
            t,
            "at least 2: the test is on the differences between rounds, and one round's difference cannot be told \
             from noise",
        ));
    }
    if n > MAX_ROUNDS {
        return Err(UsageError::flag("--rounds", t, format_args!("at most {MAX_ROUNDS}")));
    }
    Ok(n as u32)
}

/// One side's workload file, with the flags that apply to both over it; exactly one job.
fn plan_side(args: &AbArgs, file: &Path) -> Result<(JobSpec, Vec<String>), UsageError> {
    let mut input = PlanInput { spec: Some(file.to_path_buf()), keep_file: args.keep_file, ..PlanInput::default() };
    input.set("duration", Setting::flag("--duration", &args.duration));
    input.set("warmup", Setting::flag("--warmup", &args.warmup));
    input.set("engine", Setting::flag("--engine", &args.engine));
    let plan = plan::plan_io(&input, &ThisMachine)?;
    let job = plan.jobs.into_iter().next().map(|j| j.job).ok_or_else(|| UsageError::file(file, "no job to run"))?;
    Ok((job, plan.warnings))
}

/// Every setting in which A and B differ, said before the first run, so a difference the user
/// did not mean to test is seen before the time is spent.
fn differences(a: &JobSpec, b: &JobSpec) -> String {
    let to_json = |j: &JobSpec| serde_json::to_value(j).unwrap_or_default();
    let diffs = spec_differences(&to_json(a), &to_json(b));
    if diffs.is_empty() {
        return "A and B are the same workload: expect them to come out equivalent".into();
    }
    let mut text = "A and B differ in:".to_string();
    for (key, va, vb) in diffs {
        text.push_str(&format!("\n  {key}: A {va}; B {vb}"));
    }
    text
}

/// A fair coin for which side goes first: the clock's nanoseconds, mixed.
pub(crate) fn random_bit() -> bool {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    spindle_model::rng::Rng::new(u64::from(nanos) ^ u64::from(std::process::id())).next_u64() & 1 == 1
}
