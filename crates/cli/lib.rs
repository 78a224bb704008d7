//! spindle: measure storage the way databases use it.
//!
//! The command line lives in this library so the fuzz targets (fuzz/) reach the parsers it
//! holds (workload files, mixes) through [`fuzzing`]; the binary (main.rs) only calls
//! [`main`]. `main` stays thin: parse, run the subcommand, map the outcome to an exit code
//! (0 success, 1 ran but operations failed, 2 usage or fatal error, 130 interrupted).

mod args;
mod commands;
mod console;
mod flags;
pub mod fuzzing;
mod interrupt;
mod io_input;
mod listing;
mod live;
mod output;
mod paired;
#[cfg(test)]
mod plan_tests;
mod progress;
#[cfg(test)]
mod readme_tests;
mod runner;
mod secrets;
mod selection;
mod store;
mod style;
mod suites;

use clap::Parser;
// Planning lives in spindle-plan; its modules are named here as they were when they lived in
// this crate, so commands reach them by the same short paths.
use spindle_plan as plan;
use spindle_plan::{database_url as database, input_file, machine, origin, profiles, usage};
use std::process::ExitCode;

pub use spindle_runner::Outcome;

/// The whole command line: what the binary runs.
pub fn main() -> ExitCode {
    let cli = args::Cli::parse();
    secrets::hide_from_process_list();
    let result = match cli.command {
        args::Command::Check(c) => commands::check::run(&c),
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
        args::Command::Orders(o) => commands::orders::run(&o),
        args::Command::Report(r) => commands::report::run(&r),
        args::Command::Serve(s) => commands::serve::run(&s),
        args::Command::Agent(a) => commands::agents::agent(&a),
        args::Command::Import(i) => commands::import::run(&i),
        args::Command::Verify(v) => commands::verify::run(&v),
        args::Command::Durability(d) => commands::durability::run(&d),
        args::Command::Completions(c) => commands::shell::completions(&c),
        args::Command::Man(m) => commands::shell::man(&m),
    };
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::OperationsFailed | Outcome::Problems) => ExitCode::from(1),
        Ok(Outcome::Interrupted) => ExitCode::from(130),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "spindle: {} {}",
                style::error("error:", style::Stream::Stderr),
                style::printable(&error_text(&e))
            );
            // 2 says nothing was run; a run measured but not saved did run.
            let measured = e.chain().any(|c| c.is::<spindle_runner::saver::Unsaved>());
            ExitCode::from(if measured { 1 } else { 2 })
        }
    }
}

pub(crate) use spindle_runner::saver::error_text;

/// `spindle io --json | head` must not report an error when head exits.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_cause_is_said_once() {
        let os = std::io::Error::from_raw_os_error(17);
        let store = spindle_store::StoreError::Directory { dir: "/x".into(), source: os };
        let e = anyhow::Error::from(store).context("cannot save");
        let text = super::error_text(&e);
        assert_eq!(text.matches("File exists").count(), 1, "{text}");
        assert!(text.starts_with("cannot save: cannot create the store's directory /x"), "{text}");
    }
}
