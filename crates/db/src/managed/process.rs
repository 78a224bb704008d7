//! Whether a server process still runs, and waiting for it to go.

use super::ManagedEngine;
use std::path::Path;
use std::time::{Duration, Instant};

/// Whether `pid` runs and is the server of the instance whose server data directory is
/// `server_data`: the engine's program, working in that directory (PostgreSQL's postmaster
/// and mariadbd both make it their working directory as they start). A command line alone
/// proves nothing: a process that took the recorded number since, or any process named like
/// the server, must never be signalled.
pub(super) fn is_server(pid: u32, engine: ManagedEngine, server_data: &Path) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    // A zombie has exited; its parent has not reaped it yet.
    let zombie = stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z'));
    let name = match engine {
        ManagedEngine::Postgres => "postgres",
        ManagedEngine::Mariadb => "mariadbd",
    };
    let Ok(cwd) = std::fs::read_link(format!("/proc/{pid}/cwd")) else { return false };
    let in_its_data = std::fs::canonicalize(server_data).is_ok_and(|dir| dir == cwd);
    !zombie && String::from_utf8_lossy(&cmdline).contains(name) && in_its_data
}

/// Waits up to `patience` for the server `pid` to exit, then kills it.
pub(super) fn wait_gone(pid: u32, engine: ManagedEngine, server_data: &Path, patience: Duration) {
    let until = Instant::now() + patience;
    while is_server(pid, engine, server_data) {
        if Instant::now() > until {
            // SAFETY: kill with a pid we verified is the server; no memory is involved.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            std::thread::sleep(Duration::from_millis(100));
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_process_named_like_the_server_is_not_it_unless_it_works_in_its_data() {
        let (data, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut lookalike = std::process::Command::new("sleep")
            .arg0("postgres")
            .arg("60")
            .current_dir(elsewhere.path())
            .spawn()
            .unwrap();
        let mut server =
            std::process::Command::new("sleep").arg0("postgres").arg("60").current_dir(data.path()).spawn().unwrap();
        // Until a child has exec'd, /proc shows the test's own name and directory: wait for
        // both to be `sleep`, however slow a loaded machine is to get there.
        for child in [&lookalike, &server] {
            let execd =
                || std::fs::read(format!("/proc/{}/cmdline", child.id())).is_ok_and(|c| c.starts_with(b"postgres"));
            let started = Instant::now();
            while !execd() && started.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let seen = (
            is_server(lookalike.id(), ManagedEngine::Postgres, data.path()),
            is_server(server.id(), ManagedEngine::Postgres, data.path()),
            is_server(server.id(), ManagedEngine::Mariadb, data.path()),
        );
        let _ = (lookalike.kill(), server.kill(), lookalike.wait(), server.wait());
        assert_eq!(seen, (false, true, false), "(look-alike, server, another engine's name)");
    }
}
