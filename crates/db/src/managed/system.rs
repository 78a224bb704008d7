//! What a managed instance needs of the machine: the server's binaries, a user to run it as,
//! a free port, empty directories it may own, a password, and a way to empty the OS cache.

use crate::DbError;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn managed(what: impl Into<String>, why: impl Into<String>) -> DbError {
    DbError::Managed { what: what.into(), why: why.into() }
}

/// A server binary: the first of `candidates` that exists, else `name` on PATH.
pub(super) fn binary(name: &str, candidates: &[PathBuf], package: &str) -> Result<PathBuf, DbError> {
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        return Ok(found.clone());
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    on_path.ok_or_else(|| {
        managed(name, format!("not found; install the Debian package {package} (apt-get install {package})"))
    })
}

/// The system user a server runs as: `preferred` when spindle runs as root (servers refuse
/// root, or should), else whoever runs spindle.
#[derive(Clone, Debug)]
pub(super) struct RunAs {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

impl RunAs {
    pub fn choose(preferred: &str) -> Result<RunAs, DbError> {
        // SAFETY: geteuid/getegid take nothing and cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        if uid != 0 {
            let name = std::env::var("USER").unwrap_or_else(|_| uid.to_string());
            return Ok(RunAs { name, uid, gid });
        }
        for name in [preferred, "nobody"] {
            if let Some(user) = lookup(name) {
                return Ok(user);
            }
        }
        Err(managed(
            preferred,
            "spindle runs as root and there is no unprivileged user to run the server as; create one",
        ))
    }

    /// A command run as this user (its uid and gid set when spindle is root).
    pub fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        // SAFETY: geteuid takes nothing and cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            c.uid(self.uid).gid(self.gid);
        }
        c.env_remove("PGDATA").current_dir("/");
        c
    }

    /// An error naming the first directory above `dir` this user cannot pass through, when
    /// the server runs as another user than spindle's.
    pub fn check_reach(&self, dir: &Path, flag: &str) -> Result<(), DbError> {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid takes nothing and cannot fail.
        if unsafe { libc::geteuid() } != 0 || self.uid == 0 {
            return Ok(());
        }
        for a in dir.ancestors().skip(1) {
            let Ok(m) = std::fs::metadata(a) else { continue };
            let mode = m.mode();
            let passes = (m.uid() == self.uid && mode & 0o100 != 0)
                || (m.gid() == self.gid && mode & 0o010 != 0)
                || mode & 0o001 != 0;
            if !passes {
                return Err(managed(
                    format!("{flag} {}", dir.display()),
                    format!(
                        "the server runs as {}, who cannot enter {} (mode {:o}); choose a directory it can reach, or chmod o+x {}",
                        self.name,
                        a.display(),
                        mode & 0o7777,
                        a.display()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Makes `dir` (and what is in it) this user's.
    pub fn own(&self, dir: &Path) -> Result<(), DbError> {
        // SAFETY: as above.
        if unsafe { libc::geteuid() } != 0 {
            return Ok(());
        }
        std::os::unix::fs::chown(dir, Some(self.uid), Some(self.gid)).map_err(|e| DbError::Io(dir.to_path_buf(), e))
    }
}

/// The user `name` from /etc/passwd.
fn lookup(name: &str) -> Option<RunAs> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let f: Vec<&str> = line.split(':').collect();
        if f.len() < 4 || f[0] != name {
            return None;
        }
        Some(RunAs { name: name.to_string(), uid: f[2].parse().ok()?, gid: f[3].parse().ok()? })
    })
}

/// `port` if it is free on 127.0.0.1, else an error; without one, a free port.
pub(super) fn port(port: Option<u16>) -> Result<u16, DbError> {
    match port {
        Some(p) => match TcpListener::bind(("127.0.0.1", p)) {
            Ok(_) => Ok(p),
            Err(e) => {
                Err(managed(format!("--port {p}"), format!("port {p} is in use on 127.0.0.1 ({e}); pick another")))
            }
        },
        None => TcpListener::bind(("127.0.0.1", 0))
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| managed("port", format!("no free port on 127.0.0.1: {e}"))),
    }
}

/// Directories made for an instance, removed again if setting it up fails; and those found
/// there (empty), given back their owner and mode if it fails.
pub(super) struct Made {
    pub dirs: Vec<PathBuf>,
    pub found: Vec<super::state::FoundDir>,
    keep: bool,
}

impl Made {
    pub fn new() -> Made {
        Made { dirs: Vec::new(), found: Vec::new(), keep: false }
    }

    /// `dir`, which must not exist or be empty, created (with its missing parents) for `owner`.
    pub fn empty_dir(&mut self, dir: &Path, flag: &str, owner: &RunAs) -> Result<PathBuf, DbError> {
        let absolute = std::path::absolute(dir).map_err(|e| DbError::Io(dir.to_path_buf(), e))?;
        owner.check_reach(&absolute, flag)?;
        let found_there = match std::fs::read_dir(dir) {
            Ok(mut entries) => {
                if entries.next().is_some() {
                    return Err(managed(
                        format!("{flag} {}", dir.display()),
                        "the directory is not empty; name a new or empty directory (spindle never writes over files it did not make)",
                    ));
                }
                true
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut missing = Vec::new();
                let mut cur = Some(dir);
                while let Some(d) = cur.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
                    missing.push(d.to_path_buf());
                    cur = d.parent();
                }
                for d in missing.iter().rev() {
                    std::fs::create_dir(d).map_err(|e| {
                        managed(format!("{flag} {}", dir.display()), format!("cannot create {}: {e}", d.display()))
                    })?;
                    self.dirs.push(d.clone());
                }
                false
            }
            Err(e) => return Err(managed(format!("{flag} {}", dir.display()), e.to_string())),
        };
        let probe = dir.join(".spindle-write-test");
        std::fs::write(&probe, b"")
            .map_err(|e| managed(format!("{flag} {}", dir.display()), format!("not writable: {e}")))?;
        let _ = std::fs::remove_file(&probe);
        let canonical = std::fs::canonicalize(dir).map_err(|e| DbError::Io(dir.to_path_buf(), e))?;
        // The user's directory is about to become the server's: how it was is kept to give back.
        if found_there {
            let found = super::state::FoundDir::of(&canonical).map_err(|e| DbError::Io(canonical.clone(), e))?;
            self.found.push(found);
        }
        owner.own(&canonical)?;
        // The server's user must be able to reach it.
        let _ = std::fs::set_permissions(&canonical, std::fs::Permissions::from_mode(0o700));
        Ok(canonical)
    }

    /// A directory of spindle's own inside one it prepared, for `owner`.
    pub fn sub_dir(&mut self, dir: &Path, owner: &RunAs) -> Result<PathBuf, DbError> {
        std::fs::create_dir_all(dir).map_err(|e| DbError::Io(dir.to_path_buf(), e))?;
        self.dirs.push(dir.to_path_buf());
        owner.own(dir)?;
        Ok(dir.to_path_buf())
    }

    /// Keeps what was made: the directories made, and those found with how they were found.
    pub fn keep(mut self) -> (Vec<PathBuf>, Vec<super::state::FoundDir>) {
        self.keep = true;
        (std::mem::take(&mut self.dirs), std::mem::take(&mut self.found))
    }
}

impl Drop for Made {
    fn drop(&mut self) {
        if !self.keep {
            for d in self.dirs.iter().rev() {
                let _ = std::fs::remove_dir_all(d);
            }
            for f in &self.found {
                let _ = f.restore();
            }
        }
    }
}

/// What every instance is set up in: the user it runs as, its port, and its directories,
/// made or found empty.
pub(super) struct Setup {
    pub owner: RunAs,
    pub port: u16,
    pub data: PathBuf,
    pub wal: Option<PathBuf>,
    pub socket_dir: PathBuf,
    made: Made,
}

impl Setup {
    /// Checks and makes what `spec` asks, for a server run as `os_user` (when spindle is root).
    pub fn prepare(spec: &super::InstanceSpec, os_user: &str) -> Result<Setup, DbError> {
        let owner = RunAs::choose(os_user)?;
        let port = port(spec.port)?;
        let mut made = Made::new();
        let data = made.empty_dir(&spec.data, "--data", &owner)?;
        let wal = match &spec.wal {
            Some(w) => Some(made.empty_dir(w, "--wal", &owner)?),
            None => None,
        };
        let socket_dir = socket_dir(&owner, &mut made)?;
        Ok(Setup { owner, port, data, wal, socket_dir, made })
    }

    /// What every instance's state holds, for the engine to complete.
    pub fn state(
        &self,
        engine: super::ManagedEngine,
        server_data: PathBuf,
        wal: PathBuf,
    ) -> Result<super::State, DbError> {
        Ok(super::State {
            engine,
            data: self.data.clone(),
            server_data,
            wal,
            port: self.port,
            socket_dir: self.socket_dir.clone(),
            pid: None,
            user: "spindle".into(),
            password: password()?,
            database: "spindle".into(),
            os_user: self.owner.name.clone(),
            created: Vec::new(),
            made_inside: Vec::new(),
            found: Vec::new(),
            version: String::new(),
            started_at: spindle_model::time::rfc3339_utc(std::time::SystemTime::now()),
            spindle_version: env!("CARGO_PKG_VERSION").into(),
        })
    }

    /// A started instance keeps what was made, and its state is written; a failed one leaves
    /// nothing: what spindle made is removed, and the user's empty directories are empty again.
    pub fn finish(self, result: Result<super::State, DbError>) -> Result<super::State, DbError> {
        match result {
            Ok(mut state) => {
                // The user's directories were empty: all they hold now is the instance's.
                state.made_inside = self
                    .users_dirs()
                    .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()))
                    .collect();
                (state.created, state.found) = self.made.keep();
                state.write()?;
                Ok(state)
            }
            Err(e) => {
                self.users_dirs().for_each(|dir| clear(dir));
                Err(e)
            }
        }
    }

    /// The data and WAL directories that were there before, which spindle did not make.
    fn users_dirs(&self) -> impl Iterator<Item = &PathBuf> {
        std::iter::once(&self.data).chain(&self.wal).filter(|dir| !self.made.dirs.contains(dir))
    }
}

/// Empties what a directory user-given but already there holds of ours after a failure.
pub(super) fn clear(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            let _ = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
        }
    }
}

/// 24 random letters and digits, from the kernel's generator.
pub(super) fn password() -> Result<String, DbError> {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .map_err(|e| DbError::Io("/dev/urandom".into(), e))?;
    Ok(bytes.iter().map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char).collect())
}

/// A short private directory for the server's Unix socket: socket paths must stay under
/// about 100 bytes, which a data directory deep in a tree may not.
pub(super) fn socket_dir(owner: &RunAs, made: &mut Made) -> Result<PathBuf, DbError> {
    let dir = std::env::temp_dir().join(format!("spindle-{}", password()?.get(..10).unwrap_or("sock").to_lowercase()));
    made.sub_dir(&dir, owner)
}

/// Writes the OS's dirty pages and drops its clean page cache, so the next reads come from
/// the device; an error says why it could not (it needs root).
pub fn drop_os_cache() -> Result<(), String> {
    // SAFETY: sync takes nothing and cannot fail.
    unsafe { libc::sync() };
    std::fs::write("/proc/sys/vm/drop_caches", b"1")
        .map_err(|e| format!("the OS page cache could not be dropped (/proc/sys/vm/drop_caches: {e}); run as root"))
}

/// Starts a server in a session of its own (out of reach of the terminal's signals), its
/// output appended to `log`, and waits up to a minute until `ready` says it accepts
/// connections; returns its pid. The server is started directly, never through a shell, so
/// a path with quotes or backticks in it is only a path.
pub(super) fn start_server(mut cmd: Command, what: &str, log: &Path, ready: &dyn Fn() -> bool) -> Result<u32, DbError> {
    let out =
        std::fs::OpenOptions::new().create(true).append(true).open(log).map_err(|e| DbError::Io(log.into(), e))?;
    let err = out.try_clone().map_err(|e| DbError::Io(log.into(), e))?;
    cmd.stdin(std::process::Stdio::null()).stdout(out).stderr(err);
    // SAFETY: setsid in the child before exec touches no memory of the parent; it only makes
    // the server the leader of a new session.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(|e| managed(what, e.to_string()))?;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < until {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(managed(what, format!("exited at start ({status}); see {}", log.display())));
        }
        if ready() {
            let pid = child.id();
            // The child is reaped by the system once spindle exits; it runs on its own.
            std::mem::forget(child);
            return Ok(pid);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(managed(what, format!("not ready after 60 s; see {}", log.display())))
}

/// Runs a setup command, its output kept for the error when it fails.
pub(super) fn run(mut cmd: Command, what: &str) -> Result<(), DbError> {
    let out = cmd.output().map_err(|e| managed(what, e.to_string()))?;
    if out.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let text = if text.is_empty() { String::from_utf8_lossy(&out.stdout).trim().to_string() } else { text };
    Err(managed(
        what,
        format!("failed ({}): {}", out.status, text.lines().rev().take(5).collect::<Vec<_>>().join(" | ")),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_and_ports() {
        let (a, b) = (password().unwrap(), password().unwrap());
        assert_eq!(a.len(), 24);
        assert_ne!(a, b);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()));
        let held = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let p = held.local_addr().unwrap().port();
        assert!(port(Some(p)).unwrap_err().to_string().contains("in use"));
        assert!(port(None).unwrap() > 0);
    }

    #[test]
    fn directories_must_be_new_or_empty_and_are_removed_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let me = RunAs::choose("nobody").unwrap();
        let full = dir.path().join("full");
        std::fs::create_dir(&full).unwrap();
        std::fs::write(full.join("mine.txt"), b"x").unwrap();
        let mut made = Made::new();
        assert!(made.empty_dir(&full, "--data", &me).unwrap_err().to_string().contains("not empty"));
        let fresh = dir.path().join("a/b/c");
        made.empty_dir(&fresh, "--data", &me).unwrap();
        assert!(fresh.is_dir());
        drop(made);
        assert!(!dir.path().join("a").exists(), "what was made is removed when setup fails");
        assert!(full.join("mine.txt").exists(), "what the user owns stays");
    }

    #[test]
    fn a_directory_found_empty_is_given_back_as_it_was() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let theirs = dir.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o751)).unwrap();
        let mode = || std::fs::metadata(&theirs).unwrap().mode() & 0o7777;
        let me = RunAs::choose("nobody").unwrap();
        // A setup that fails: the directory is the server's while it lasts, then as it was.
        let mut made = Made::new();
        made.empty_dir(&theirs, "--data", &me).unwrap();
        assert_eq!(mode(), 0o700);
        drop(made);
        assert_eq!(mode(), 0o751, "a failed setup gives the directory back");
        // One that succeeds keeps how it was found, for `db down --remove`.
        let mut made = Made::new();
        made.empty_dir(&theirs, "--data", &me).unwrap();
        let (created, found) = made.keep();
        assert!(created.is_empty());
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].mode, mode()), (0o751, 0o700));
        found[0].restore().unwrap();
        assert_eq!(mode(), 0o751);
    }
}
