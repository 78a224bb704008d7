//! Whether a server process still runs, and waiting for it to go.

use super::ManagedEngine;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Whether `pid` runs and is the server of the instance whose server data directory is
/// `server_data`: the engine's program, working in that directory (PostgreSQL's postmaster
/// and mariadbd both make it their working directory as they start). A command line alone
/// proves nothing: a process that took the recorded number since, or any process named like
/// the server, must never be signalled.
pub(super) fn is_server(pid: u32, engine: ManagedEngine, server_data: &Path) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    let name = match engine {
        ManagedEngine::Postgres => "postgres",
        ManagedEngine::Mariadb => "mariadbd",
    };
    let Ok(cwd) = std::fs::read_link(format!("/proc/{pid}/cwd")) else { return false };
    let in_its_data = std::fs::canonicalize(server_data).is_ok_and(|dir| dir == cwd);
    !is_zombie(pid) && String::from_utf8_lossy(&cmdline).contains(name) && in_its_data
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

/// The processes still working in `server_data` (not zombies): a server's, or what is left of
/// one killed a moment ago (PostgreSQL's backends outlive a killed postmaster until they notice).
fn live_in(server_data: &Path) -> Vec<u32> {
    let Ok(dir) = std::fs::canonicalize(server_data) else { return Vec::new() };
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir))
        .filter(|pid| !is_zombie(*pid))
        .collect()
}

/// A zombie has exited; its parent has not reaped it yet.
fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')))
}

/// Makes way for a new PostgreSQL server in `server_data` after one was killed: waits up to
/// `patience` for every process of the old one to be gone, then removes each of its lock
/// files (`locks`: the data directory's and the Unix socket's) whose pid is gone or a zombie.
/// PostgreSQL itself refuses to start while a lock's pid exists, and a killed postmaster stays
/// a zombie until its parent reaps it (for good under a parent that never does); with no live
/// process left in the directory, no backend can still be writing, so the files are stale.
/// Returns the pids still working there when patience ran out.
pub(super) fn clear_stale_locks(server_data: &Path, locks: &[PathBuf], patience: Duration) -> Result<(), Vec<u32>> {
    let until = Instant::now() + patience;
    loop {
        let live = live_in(server_data);
        if live.is_empty() {
            break;
        }
        if Instant::now() > until {
            return Err(live);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    for lock in locks {
        let Ok(text) = std::fs::read_to_string(lock) else { continue };
        let pid = text.lines().next().and_then(|l| l.trim().parse::<u32>().ok());
        if pid.is_none_or(|pid| !Path::new(&format!("/proc/{pid}")).exists() || is_zombie(pid)) {
            let _ = std::fs::remove_file(lock);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_killed_servers_lock_is_cleared_once_nothing_works_in_its_directory() {
        let (data, sockets) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let lock = data.path().join("postmaster.pid");
        // The Unix socket's lock names the postmaster too (PostgreSQL refuses to start while
        // either's pid exists), and lives in another directory.
        let socket_lock = sockets.path().join(".s.PGSQL.5432.lock");
        let locks = [lock.clone(), socket_lock.clone()];
        let mut server = std::process::Command::new("sleep").arg("60").current_dir(data.path()).spawn().unwrap();
        let running_in_data = || live_in(data.path()).contains(&server.id());
        let started = Instant::now();
        while !running_in_data() && started.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::fs::write(&lock, format!("{}\n{}\n", server.id(), data.path().display())).unwrap();
        std::fs::write(&socket_lock, format!("{}\n{}\n", server.id(), data.path().display())).unwrap();
        // Alive: the locks stay, and the process is named.
        assert_eq!(clear_stale_locks(data.path(), &locks, Duration::ZERO), Err(vec![server.id()]));
        assert!(lock.exists() && socket_lock.exists());
        // Killed and not reaped: a zombie, as a killed postmaster under a parent that never
        // reaps stays. The lock is stale and goes.
        server.kill().unwrap();
        let started = Instant::now();
        while !is_zombie(server.id()) && started.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(clear_stale_locks(data.path(), &locks, Duration::from_secs(30)), Ok(()));
        assert!(!lock.exists() && !socket_lock.exists());
        let _ = server.wait();
    }

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
