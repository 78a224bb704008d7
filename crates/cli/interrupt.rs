//! Ctrl-C (and SIGTERM): the first one asks workers to stop so the partial result is saved and
//! printed; a second one exits at once, for a user who really means it, unless the command
//! must clean up first (`clean_up_first`).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicU32 = AtomicU32::new(0);
/// What a command that cleans up first is doing meanwhile, said to a later Ctrl-C.
static CLEANING_UP: OnceLock<&'static str> = OnceLock::new();

/// Installs the handler (once) and returns the flag workers watch.
pub fn stop_flag() -> &'static AtomicBool {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let installed = ctrlc::set_handler(|| {
            let earlier = SIGNALS.fetch_add(1, Ordering::Relaxed);
            if earlier == 0 {
                STOP.store(true, Ordering::Relaxed);
                return;
            }
            match CLEANING_UP.get() {
                // Said once: the cleanup is quick, and a held-down Ctrl-C is many signals.
                Some(doing) if earlier == 1 => eprintln!("spindle: stopping: {doing} first"),
                Some(_) => {}
                None => std::process::exit(130),
            }
        });
        if let Err(e) = installed {
            eprintln!("spindle: warning: Ctrl-C will not save partial results: {e}");
        }
    });
    &STOP
}

/// For a command that owns what it made until it ends (a check's test files, its database,
/// its lock, the report of what it measured): a later Ctrl-C does not exit before the
/// command has cleaned up, but is told what it waits for (`doing`). Installs the handler now,
/// so a Ctrl-C from here on is never the default one that leaves everything behind.
pub fn clean_up_first(doing: &'static str) {
    let _ = CLEANING_UP.set(doing);
    stop_flag();
}

/// Whether the user asked to stop (as opposed to a stop raised by out-of-space).
pub fn requested() -> bool {
    SIGNALS.load(Ordering::Relaxed) > 0
}
