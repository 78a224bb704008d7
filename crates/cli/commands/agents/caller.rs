//! What the agents' library needs from the command line: Ctrl-C, the console, the command
//! line as recorded, `--db` URLs with their passwords.

use crate::args::OutputArgs;
use crate::console::{Console, Shown};
use crate::{interrupt, output};
use spindle_agents::Caller;
use spindle_db::DbUrl;
use spindle_runner::Observer;
use spindle_store::Location;
use std::sync::atomic::AtomicBool;

/// The command line, as the agents' library's caller.
pub struct Here {
    /// No progress said (`--quiet`).
    quiet: bool,
    /// An agent's share prints nothing but what it saved.
    share: OutputArgs,
}

impl Here {
    pub fn new(quiet: bool) -> Here {
        Here { quiet, share: OutputArgs { quiet: true, ..Default::default() } }
    }
}

impl Caller for Here {
    fn stop_flag(&self) -> &'static AtomicBool {
        interrupt::stop_flag()
    }

    fn stop_requested(&self) -> fn() -> bool {
        interrupt::requested
    }

    fn command_line(&self) -> Vec<String> {
        output::command_line()
    }

    fn db_url(&self, text: &str) -> anyhow::Result<DbUrl> {
        Ok(crate::database::url_of(text)?)
    }

    fn say(&self, text: &str) {
        if !self.quiet {
            eprintln!("{text}");
        }
    }

    fn emit(&self, text: &str) -> anyhow::Result<()> {
        output::write_stdout(text.as_bytes())?;
        close_stdout()
    }

    fn observer(&self, store: &Location) -> Box<dyn Observer + '_> {
        Box::new(Console::new(&self.share, store.clone(), Shown::Saved))
    }
}

/// Ends stdout once the launch text is written, so `... --emit | kubectl apply -f -` applies
/// the Job while this spindle goes on coordinating (what it says next goes to stderr).
fn close_stdout() -> anyhow::Result<()> {
    std::io::Write::flush(&mut std::io::stdout())?;
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    // SAFETY: dup2 onto fd 1 replaces stdout with /dev/null; both descriptors are open.
    if unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), 1) } < 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    Ok(())
}
