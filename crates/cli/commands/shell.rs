//! What a command-line tool is expected to give its shell: completions and a manual page,
//! both generated from the one description of the commands (`args`), so they never drift.

use crate::Outcome;
use crate::args::{Cli, CompletionsArgs};
use crate::output;
use clap::CommandFactory;

pub fn completions(args: &CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "spindle", &mut script);
    output::write_stdout(&script)?;
    Ok(Outcome::Success)
}

pub fn man() -> anyhow::Result<Outcome> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    output::write_stdout(&page)?;
    Ok(Outcome::Success)
}
