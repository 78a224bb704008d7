//! spindle: measure storage the way databases use it.
//!
//! `main` stays thin: parse, run the subcommand, map the outcome to an exit code
//! (0 success, 1 ran but operations failed, 2 usage or fatal error, 130 interrupted).

mod args;
mod commands;
mod database;
mod interrupt;
mod machine;
mod measure;
mod origin;
mod output;
mod plan;
mod profiles;
mod progress;
mod selection;
mod store;
mod suites;
mod usage;

use clap::Parser;
use std::process::ExitCode;

/// How a command ended, when it did not fail outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// The run completed, but some operations failed.
    OperationsFailed,
    /// Stopped early (Ctrl-C or out of space); partial results were printed.
    Interrupted,
}

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let result = match cli.command {
        args::Command::Io(io) => commands::io::run(&io),
        args::Command::Profiles(p) => commands::profiles::run(&p),
        args::Command::Suite(s) => commands::suite::run(&s),
        args::Command::Runs(r) => commands::runs::run(&r),
        args::Command::Compare(c) => commands::compare::run(&c),
        args::Command::Ab(a) => commands::ab::run(&a),
        args::Command::Record(r) => commands::record::run(&r),
        args::Command::Characterize(c) => commands::characterize::run(&c),
        args::Command::Hammer(h) => commands::hammer::run(&h),
        args::Command::Logtest(l) => commands::logtest::run(&l),
        args::Command::Db(d) => commands::db::run(&d),
        args::Command::Placement(p) => commands::placement::run(&p),
        args::Command::Largeops(l) => commands::largeops::run(&l),
    };
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::OperationsFailed) => ExitCode::from(1),
        Ok(Outcome::Interrupted) => ExitCode::from(130),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spindle: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// `spindle io --json | head` must not report an error when head exits.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}
