//! `spindle ab A.toml B.toml`: an A/B experiment. Two workloads run alternately in balanced
//! rounds, every run saved with its side and round as labels, then compared round by round (a
//! paired test), so drift of the host that a round's two runs share cancels. Comparing two
//! groups run one after the other cannot do that: measured here, two `--repeat 3` groups of
//! one configuration run back to back came out 11.8% apart at p = 0.031.
//!
//! A side is a workload file of I/O targets, or of a `[database]` workload (Hammer, the log
//! test, the large operations) on a database or on an instance spindle starts with the file's
//! settings; both sides must measure the same thing. The experiment itself (order, pairing, a
//! comparison per point and part: the scan with the scan) is the runner's (`experiment::ab`);
//! this command plans the two sides and prints the verdicts.

mod sides;

use crate::args::AbArgs;
use crate::commands::compare::threshold_of;
use crate::console::{Console, Shown};
use crate::progress::{note, warn};
use crate::usage::UsageError;
use crate::{Outcome, output, plan, runner, store};
use sides::Planned;
use spindle_analysis::compare::{ROUND_LABEL, SIDE_LABEL};
use spindle_model::RunRecord;
use spindle_runner::experiment::ab::{self, AbPlan, Compared, random_bit};
use spindle_runner::experiment::rounds::{self, Side};
use spindle_runner::experiment::{Finished, Runner};
use spindle_runner::workload::Workload;
use spindle_runner::workload::io::{Files, IoJob};

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
    let planned = sides::plan(args)?;
    for w in planned.warnings() {
        warn(args.quiet, w);
    }
    if !args.quiet {
        eprintln!("{}", planned.differences([&args.a, &args.b]));
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
    let out = crate::args::OutputArgs {
        json: args.json,
        csv: false,
        quiet: args.quiet,
        verbose: false,
        labels: args.labels.clone(),
    };
    let (a_name, b_name) = (args.a.display().to_string(), args.b.display().to_string());
    let mut console = Console::new(&out, store::location(&args.store)?, Shown::Saved);
    console.repeat_word = "round";
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    let mut runner = runner::new(&console, &args.store, labels, interval)?;
    let plan = AbPlan {
        rounds,
        first,
        points: planned.points(),
        threshold_pct,
        name: format!("ab {a_name} {b_name}"),
        names: [a_name.clone(), b_name.clone()],
        side_labels: Default::default(),
    };
    let compared = match planned {
        Planned::Io { a, b, warnings } => {
            runner.files = Files::for_jobs([&a, &b]);
            let (mut a, mut b) = (IoJob::new(a, warnings.clone()), IoJob::new(b, warnings));
            ab::run(&mut runner, [&mut a, &mut b], &plan)?
        }
        Planned::Database { a, b } => {
            let (mut a, mut b): (Box<dyn Workload>, Box<dyn Workload>) = (a.into_workload(), b.into_workload());
            ab::run(&mut runner, [&mut *a, &mut *b], &plan).map_err(spindle_plan::managed::managed_anyhow)?
        }
    };
    // The rounds that ran to the end; a load compared once a side is not a round.
    let complete = compared.iter().map(|c| c.comparison.a_runs.len()).max().unwrap_or(0);
    if complete < rounds as usize {
        note(args.quiet, &format!("{complete} complete rounds of {rounds} are compared"));
    }
    let bytes = if args.json {
        comparisons_json(&compared)?
    } else if args.quiet {
        Vec::new()
    } else {
        let mut text = spindle_report::render_overview(&overview_rows(&runner));
        text.extend(comparisons_text(&runner, &compared, &a_name, &b_name));
        text
    };
    if args.json {
        output::write_stdout(&bytes)?
    } else {
        output::write_report(&bytes)?
    }
    Ok(runner.outcome)
}

/// A comparison's key among several: its point and part (`sessions=8`, `scan`).
pub(crate) fn key(c: &Compared) -> String {
    [c.point.as_deref(), c.part.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" ")
}

/// One comparison as `spindle compare --json` prints it; several as an object by key.
pub(crate) fn comparisons_json(compared: &[Compared]) -> anyhow::Result<Vec<u8>> {
    let json = match compared {
        [only] => serde_json::to_value(&only.comparison)?,
        many => serde_json::Value::Object(
            many.iter().map(|c| Ok((key(c), serde_json::to_value(&c.comparison)?))).collect::<anyhow::Result<_>>()?,
        ),
    };
    Ok(format!("{}\n", serde_json::to_string_pretty(&json)?).into_bytes())
}

/// Each run in a row: its id, point and part, side and round.
pub(crate) fn overview_rows<'r>(runner: &'r Runner<'_>) -> Vec<(String, &'r RunRecord)> {
    runner
        .runs
        .iter()
        .map(|f: &Finished| {
            let side = f.record.labels.get(SIDE_LABEL).map_or("", String::as_str).to_uppercase();
            let at: Vec<&str> = [f.part.as_deref()].into_iter().flatten().collect();
            let at = if at.is_empty() { String::new() } else { format!("{} ", at.join(" ")) };
            (format!("{} {at}{side} round {}", f.id, f.repeat), &f.record)
        })
        .collect()
}

/// Each comparison under its key, with the group it was saved in.
pub(crate) fn comparisons_text(runner: &Runner<'_>, compared: &[Compared], a: &str, b: &str) -> Vec<u8> {
    let mut text = Vec::new();
    for c in compared {
        let key = key(c);
        let group = runner.groups[c.group].id.unwrap_or(0);
        let head = if key.is_empty() { format!("\ngroup {group}\n") } else { format!("\n{key} (group {group}):\n") };
        text.extend(head.into_bytes());
        text.extend(spindle_report::render_compare(&c.comparison, a, b));
    }
    text
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
