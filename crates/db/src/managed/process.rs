//! Whether a server process still runs, and waiting for it to go.

use super::ManagedEngine;
use std::time::{Duration, Instant};

/// Whether `pid` runs and is the engine's server (not a process that took its number).
pub(super) fn is_alive(pid: u32, engine: ManagedEngine) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    // A zombie has exited; its parent has not reaped it yet.
    let zombie = stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z'));
    let name = match engine {
        ManagedEngine::Postgres => "postgres",
        ManagedEngine::Mariadb => "mariadbd",
    };
    !zombie && String::from_utf8_lossy(&cmdline).contains(name)
}

/// Waits up to `patience` for `pid` to exit, then kills it.
pub(super) fn wait_gone(pid: u32, engine: ManagedEngine, patience: Duration) {
    let until = Instant::now() + patience;
    while is_alive(pid, engine) {
        if Instant::now() > until {
            // SAFETY: kill with a pid we verified is the server; no memory is involved.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            std::thread::sleep(Duration::from_millis(100));
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
