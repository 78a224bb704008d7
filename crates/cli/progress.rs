//! Progress on stderr, only when stderr is a terminal: a live line during a run and a bar while
//! test files are filled. Data goes to stdout; this never does.

use spindle_io::run::Progress;
use spindle_model::units::format_latency_ns;
use std::io::{IsTerminal, Write};

pub struct Display {
    enabled: bool,
}

impl Display {
    pub fn new(quiet: bool) -> Display {
        Display { enabled: !quiet && std::io::stderr().is_terminal() }
    }

    /// One line a second: elapsed, IOPS, MB/s and mean latency over the last second.
    pub fn tick(&self, p: &Progress) {
        if !self.enabled {
            return;
        }
        let secs = p.interval_secs.max(1e-9);
        let ios = p.interval.ios as f64;
        let mean = if p.interval.ios == 0 { 0.0 } else { p.interval.latency_sum_ns as f64 / ios };
        let phase = if p.warming_up { " (warm-up)" } else { "" };
        eprint!(
            "\r\x1b[2K{:>5.0}s{phase}  {:>10.0} IOPS  {:>9.2} MB/s  mean {}",
            p.elapsed.as_secs_f64(),
            ios / secs,
            p.interval.bytes as f64 / secs / 1e6,
            format_latency_ns(mean)
        );
        let _ = std::io::stderr().flush();
    }

    /// A bar for something filled or loaded (`creating t.dat`, `loading ...`).
    pub fn fill(&self, what: &str, done: u64, total: u64) {
        if !self.enabled || total == 0 {
            return;
        }
        let width = 30;
        let filled = (done as u128 * width as u128 / total as u128) as usize;
        eprint!(
            "\r\x1b[2K{} [{}{}] {:>3}%",
            crate::style::printable(what),
            "#".repeat(filled),
            " ".repeat(width - filled),
            done as u128 * 100 / total as u128
        );
        let _ = std::io::stderr().flush();
    }

    /// What is running, on the live line (the next tick or `finish_line` replaces it).
    pub fn announce(&self, what: &str) {
        if self.enabled {
            eprint!("\r\x1b[2Kspindle: {}", crate::style::printable(what));
            let _ = std::io::stderr().flush();
        }
    }

    /// Ends the current progress line.
    pub fn finish_line(&self) {
        if self.enabled {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
        }
    }
}

/// A note about what spindle is doing (`reusing test file ...`), unless --quiet.
pub fn note(quiet: bool, message: &str) {
    if !quiet {
        eprintln!("spindle: {}", crate::style::printable(message));
    }
}

/// A warning, always shown (unless --quiet), on stderr.
pub fn warn(quiet: bool, message: &str) {
    if !quiet {
        let warning = crate::style::warning("warning:", crate::style::Stream::Stderr);
        eprintln!("spindle: {warning} {}", crate::style::printable(message));
    }
}
