//! What a command-line tool is expected to give its shell: completions and manual pages, all
//! generated from the one description of the commands (`args`), so they never drift.

use crate::Outcome;
use crate::args::{Cli, CompletionsArgs, ManArgs};
use crate::output;
use crate::usage::UsageError;
use clap::CommandFactory;

pub fn completions(args: &CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "spindle", &mut script);
    output::write_stdout(&script)?;
    Ok(Outcome::Success)
}

/// spindle(1) on stdout, or with `--dir` every page: spindle(1) lists the commands as
/// spindle-check(1), spindle-io(1) and so on, and those pages must exist where it is read.
pub fn man(args: &ManArgs) -> anyhow::Result<Outcome> {
    let Some(dir) = &args.dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(command()).render(&mut page)?;
        output::write_stdout(&page)?;
        return Ok(Outcome::Success);
    };
    let made = output::make_dir("--dir", dir)?;
    clap_mangen::generate_to(command(), dir).map_err(|e| {
        made.undo();
        UsageError::flag("--dir", dir.display().to_string(), format_args!("cannot write the pages there: {e}"))
    })?;
    let mut built = command();
    built.build();
    let new = if made.is_new() { ", a new directory" } else { "" };
    let wrote =
        format!("wrote {} manual pages to {}{new} (spindle.1, spindle-check.1, ...)", pages(&built), dir.display());
    crate::progress::note(false, &wrote);
    Ok(Outcome::Success)
}

/// The commands as the pages describe them. No `help` command: it has no page of its own, so
/// spindle(1) must not list it as spindle-help(1).
fn command() -> clap::Command {
    Cli::command().disable_help_subcommand(true).after_long_help(
        "Every command has a page of its own (spindle-check(1), spindle-io(1), spindle-hammer-run(1), ...); \
         `spindle man --dir DIR` writes them all into DIR, this one among them.",
    )
}

/// One page per command, subcommands included, as clap_mangen writes them.
fn pages(cmd: &clap::Command) -> usize {
    1 + cmd.get_subcommands().filter(|s| !s.is_hide_set()).map(pages).sum::<usize>()
}
