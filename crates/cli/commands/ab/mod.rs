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
use crate::console::{Console, Shown};
use crate::flags::{rounds_of, threshold_of};
use crate::paired::{comparisons_json, comparisons_text, overview_rows};
use crate::progress::{note, warn};
use crate::usage::UsageError;
use crate::{Outcome, output, plan, runner, store};
use sides::Planned;
use spindle_analysis::compare::{ROUND_LABEL, SIDE_LABEL};
use spindle_runner::experiment::ab::{self, AbPlan, random_bit};
use spindle_runner::experiment::rounds::{self, Side};
use spindle_runner::workload::Workload;
use spindle_runner::workload::io::{Files, IoJob};

/// Rounds unless --rounds says otherwise.
const DEFAULT_ROUNDS: u32 = 5;

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
        json: args.print.json,
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
    let bytes = if args.print.json {
        comparisons_json(&compared)?
    } else if args.quiet {
        Vec::new()
    } else {
        let mut text = spindle_report::render_overview(&overview_rows(&runner));
        text.extend(comparisons_text(&runner, &compared, &a_name, &b_name));
        text
    };
    if args.print.json {
        output::write_stdout(&bytes)?
    } else {
        output::write_report(&bytes)?
    }
    Ok(runner.outcome)
}
