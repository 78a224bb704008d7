//! Ctrl-C (and SIGTERM): the first one asks workers to stop so the partial result is saved and
//! printed; a second one exits at once, for a user who really means it.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicU32 = AtomicU32::new(0);

/// Installs the handler (once) and returns the flag workers watch.
pub fn stop_flag() -> &'static AtomicBool {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let installed = ctrlc::set_handler(|| {
            if SIGNALS.fetch_add(1, Ordering::Relaxed) > 0 {
                std::process::exit(130);
            }
            STOP.store(true, Ordering::Relaxed);
        });
        if let Err(e) = installed {
            eprintln!("spindle: warning: Ctrl-C will not save partial results: {e}");
        }
    });
    &STOP
}

/// Whether the user asked to stop (as opposed to a stop raised by out-of-space).
pub fn requested() -> bool {
    SIGNALS.load(Ordering::Relaxed) > 0
}
