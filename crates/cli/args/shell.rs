use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell.
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write spindle.1 and a page for every command (spindle-check.1, spindle-hammer-run.1,
    /// ...) into DIR, made if it does not exist, instead of printing spindle(1).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}
