//! Managed instances: a private PostgreSQL or MariaDB server whose data and WAL/redo
//! directories the user chooses, with spindle's own settings (room for thousands of sessions,
//! checkpoints pushed out when asked, the engine's I/O timing on), listening on 127.0.0.1 and a
//! Unix socket of its own with a generated password, run as an unprivileged user when spindle
//! runs as root. Its state is kept in a file in its data directory (mode 0600, it holds the
//! password) and listed in a registry, so `spindle db status` finds it again later.
//!
//! An `Instance` an experiment starts is stopped when it is dropped (on errors and Ctrl-C too,
//! since those unwind through the experiment); `db up` detaches its instance instead.

mod cert;
mod mariadb;
mod postgres;
mod process;
pub mod registry;
mod state;
mod system;

pub use cert::cert_path;
pub use state::State;
pub use system::drop_os_cache;

use crate::{DbError, DbUrl};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The engines spindle can run an instance of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ManagedEngine {
    Postgres,
    Mariadb,
}

impl ManagedEngine {
    pub fn name(self) -> &'static str {
        match self {
            ManagedEngine::Postgres => "postgres",
            ManagedEngine::Mariadb => "mariadb",
        }
    }

    /// `postgres`/`postgresql`, `mariadb`/`mysql`.
    pub fn parse(text: &str) -> Option<ManagedEngine> {
        match text.trim().to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" | "pg" => Some(ManagedEngine::Postgres),
            "mariadb" | "mysql" => Some(ManagedEngine::Mariadb),
            _ => None,
        }
    }
}

/// How the instance checkpoints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Checkpoints {
    /// The engine's defaults.
    #[default]
    Normal,
    /// Automatic checkpoints pushed out as far as the engine allows, so a manual one can be
    /// timed on its own (the large-operations experiment).
    PushedOut,
}

#[derive(Clone, Debug)]
pub struct InstanceSpec {
    pub engine: ManagedEngine,
    /// Must not exist, or be empty.
    pub data: PathBuf,
    /// The WAL (PostgreSQL) or redo log (InnoDB) directory; inside `data` when not given.
    pub wal: Option<PathBuf>,
    /// A free port on 127.0.0.1; one is picked when not given.
    pub port: Option<u16>,
    /// Shared buffers / buffer pool, bytes [default: 256 MiB].
    pub memory: Option<u64>,
    pub checkpoints: Checkpoints,
    /// Where the registry lists instances.
    pub registry: PathBuf,
    /// Server settings over spindle's own (`effective_io_concurrency = 200`), as the engine's
    /// configuration file spells them; an experiment's side can differ from the other in them.
    pub settings: Vec<(String, String)>,
}

/// The default cache of a managed instance: modest, so it starts on a small machine.
pub const DEFAULT_MEMORY: u64 = 256 << 20;
/// Connections a managed instance accepts: enough for thousands of Hammer sessions.
pub const MAX_CONNECTIONS: u32 = 2000;

/// A running instance.
pub struct Instance {
    pub state: State,
    /// Stop the server when this handle is dropped (an experiment's instance).
    stop_on_drop: bool,
}

impl Instance {
    /// Creates and starts an instance; nothing is left behind when it fails.
    pub fn up(spec: &InstanceSpec) -> Result<Instance, DbError> {
        // A registry the instance could not be added to is found before anything is made.
        registry::list(&spec.registry)?;
        let state: State = match spec.engine {
            #[cfg(feature = "postgres")]
            ManagedEngine::Postgres => postgres::up(spec),
            #[cfg(feature = "mysql")]
            ManagedEngine::Mariadb => mariadb::up(spec),
            // Making one takes its driver (spindle makes its user and database through it).
            #[cfg(not(all(feature = "postgres", feature = "mysql")))]
            other => {
                let (what, feature) = match other {
                    ManagedEngine::Postgres => ("the PostgreSQL driver", "postgres"),
                    ManagedEngine::Mariadb => ("the MySQL/MariaDB driver", "mysql"),
                };
                Err(DbError::NotBuilt { db: format!("a managed {}", other.name()), what, feature })
            }
        }?;
        registry::add(&spec.registry, &state.data)?;
        Ok(Instance { state, stop_on_drop: true })
    }

    /// The instance whose data directory is `data`, as its state file says.
    pub fn find(data: &Path) -> Result<Instance, DbError> {
        Ok(Instance { state: State::read(data)?, stop_on_drop: false })
    }

    /// Leaves the server running when this handle goes (`db up`).
    pub fn detach(mut self) -> State {
        self.stop_on_drop = false;
        self.state.clone()
    }

    /// The URL that reaches it, with its password.
    pub fn url(&self) -> DbUrl {
        self.state.url()
    }

    pub fn is_running(&self) -> bool {
        self.state.pid.is_some_and(|pid| process::is_server(pid, self.state.engine, &self.state.server_data))
    }

    /// Stops the server cleanly, waiting until its process is gone (killed after a minute).
    pub fn stop(&mut self) -> Result<(), DbError> {
        let stopped = match self.state.engine {
            ManagedEngine::Postgres => postgres::stop(&self.state),
            ManagedEngine::Mariadb => mariadb::stop(&self.state),
        };
        if let Err(e) = stopped {
            // A server already on its way out (killed, or shutting down on its own) has
            // nothing left for the stop command to stop: what matters is that it is gone.
            if let Some(pid) = self.state.pid {
                process::wait_gone(pid, self.state.engine, &self.state.server_data, Duration::from_secs(10));
            }
            if self.is_running() {
                return Err(e);
            }
        }
        if let Some(pid) = self.state.pid.take() {
            process::wait_gone(pid, self.state.engine, &self.state.server_data, Duration::from_secs(60));
        }
        self.state.write()
    }

    /// Stops and starts the server: its caches are empty afterwards.
    pub fn restart(&mut self) -> Result<(), DbError> {
        self.stop()?;
        self.start()
    }

    /// Starts the server of an instance that is stopped (`db down`, or a server that died),
    /// on its own data, port and password.
    pub fn start(&mut self) -> Result<(), DbError> {
        self.state.pid = Some(match self.state.engine {
            ManagedEngine::Postgres => postgres::start(&self.state)?,
            ManagedEngine::Mariadb => mariadb::start(&self.state)?,
        });
        self.state.write()
    }

    /// Stops the server if it runs, and removes the directories spindle created for it, what
    /// it made in directories that were there before, and its entry in the registry. Returns
    /// what was kept, and why, one line each.
    pub fn remove(mut self, registry: &Path) -> Result<Vec<String>, DbError> {
        // A registry that cannot be updated stops the removal before anything is gone.
        registry::list(registry)?;
        if self.is_running() {
            self.stop()?;
        }
        self.stop_on_drop = false;
        for dir in self.state.created.iter().rev() {
            let _ = std::fs::remove_dir_all(dir);
        }
        for made in &self.state.made_inside {
            let _ = if made.is_dir() { std::fs::remove_dir_all(made) } else { std::fs::remove_file(made) };
        }
        // The state file (it holds the password) is the instance's wherever it is.
        let _ = std::fs::remove_file(State::path(&self.state.data));
        let _ = std::fs::remove_dir_all(&self.state.socket_dir);
        registry::remove(registry, &self.state.data)?;
        // Directories that were there before `db up` are given back as they were found.
        for found in &self.state.found {
            found.restore()?;
        }
        // The user's directories: the data directory unless spindle made it, and those it
        // made things in.
        let mut theirs: Vec<&Path> = self.state.made_inside.iter().filter_map(|p| p.parent()).collect();
        theirs.push(&self.state.data);
        theirs.sort();
        theirs.dedup();
        let recorded = !self.state.made_inside.is_empty();
        Ok(theirs
            .into_iter()
            .filter(|dir| dir.exists() && !self.state.created.iter().any(|c| c == dir))
            .map(|dir| kept_why(dir, recorded))
            .collect())
    }
}

/// Why a directory that was there before `db up` is kept, and what is left in it. `recorded`:
/// the state says what spindle made in it (an older spindle's does not).
fn kept_why(dir: &Path, recorded: bool) -> String {
    let mut left: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    left.sort();
    let removed = if recorded {
        "only what spindle made in it was removed"
    } else {
        "and the instance's state (from an older spindle) does not say what was made in it, so only that state was removed"
    };
    let left = if left.is_empty() { "it is empty now".to_string() } else { format!("left in it: {}", left.join(", ")) };
    format!("{} kept: it was there before `db up`, {removed}; {left}", dir.display())
}

impl Drop for Instance {
    fn drop(&mut self) {
        if self.stop_on_drop && self.is_running() {
            let _ = self.stop();
        }
    }
}
