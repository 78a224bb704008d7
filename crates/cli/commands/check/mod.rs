//! `spindle check [DIR...]`: the main job, which lives in spindle-check. Here its flags become
//! the check's input, the runner is made on the console, and the answer is printed: the
//! summary, the `--json` document or, under `--quiet`, the verdict line; the HTML report is
//! written where the plan put it.

use crate::args::{CheckArgs, OutputArgs};
use crate::console::{Console, Shown};
use crate::progress::note;
use crate::{Outcome, interrupt, output, runner, store};
use spindle_check::{CheckInput, view};
use std::time::Duration;

pub fn run(args: &CheckArgs) -> anyhow::Result<Outcome> {
    // A check owns its directories until it ends: a Ctrl-C pressed again still leaves them as
    // they were, with the report of what was measured.
    interrupt::clean_up_first("removing the check's test files and writing its report");
    let plan = spindle_check::plan(&input(args))?;
    let labels = output::labels(&args.labels)?;
    let quiet = args.quiet || args.json;
    let console_output = OutputArgs { quiet, labels: args.labels.clone(), ..OutputArgs::default() };
    let console = Console::new(&console_output, store::location(&args.store)?, Shown::Saved);
    let open_runner = || runner::new(&console, &args.store, labels, Duration::from_secs(1));
    let checked = spindle_check::run(plan, &store::location(&args.store)?, open_runner, &|line| note(quiet, line))?;
    let answer = &checked.answer;
    if let (Some(path), Some(html)) = (&answer.report, &checked.html) {
        output::write_whole(path, html, args.force)?;
    }
    if args.json {
        output::write_stdout(serde_json::to_string_pretty(&view::json(answer))?.as_bytes())?;
        output::write_stdout(b"\n")?;
    } else if args.quiet {
        eprint!("{}", view::verdict_line(&answer.findings));
    } else {
        output::write_text(view::render(answer).as_bytes())?;
    }
    let problems = args.strict && answer.has_problems();
    Ok(checked.outcome.and(if problems { Outcome::Problems } else { Outcome::Success }))
}

/// The flags as the check takes them.
fn input(args: &CheckArgs) -> CheckInput {
    CheckInput {
        dirs: args.dirs.clone(),
        quick: args.quick,
        thorough: args.thorough,
        for_engine: args.for_engine.clone(),
        db: args.db.clone(),
        managed: args.managed,
        output: args.output.clone(),
        force: args.force,
        expect: args.expect.clone(),
        sustain: args.sustain.clone(),
        store_files: store::files(Some(&args.store)),
    }
}
