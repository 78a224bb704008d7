//! What spindle knows of an instance, kept in `DATA/spindle-instance.json` (mode 0600: it
//! holds the password), so a later spindle can reach, report and stop it.

use super::ManagedEngine;
use crate::{DbError, DbUrl, Engine};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

pub const STATE_FILE: &str = "spindle-instance.json";

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct State {
    pub engine: ManagedEngine,
    /// The directory the user named; the server's own data directory is inside it.
    pub data: PathBuf,
    /// The server's data directory (PGDATA, MariaDB's datadir).
    pub server_data: PathBuf,
    /// Where the WAL or redo log is.
    pub wal: PathBuf,
    pub port: u16,
    /// The directory of its Unix socket.
    pub socket_dir: PathBuf,
    /// The server process, while it runs.
    pub pid: Option<u32>,
    /// The user spindle connects as, and its generated password.
    pub user: String,
    pub password: String,
    pub database: String,
    /// The system user the server runs as.
    pub os_user: String,
    /// Directories spindle created, removed by `db down --remove`.
    pub created: Vec<PathBuf>,
    /// What spindle made inside the directories that were there (empty) before `db up`:
    /// `db down --remove` removes these and keeps the directories, which are the user's.
    /// (A state written before spindle recorded them has none.)
    #[serde(default)]
    pub made_inside: Vec<PathBuf>,
    /// The directories that were there (empty) before `db up`, with the owner and mode they
    /// had: spindle gave them to the server's user, and `db down --remove` gives them back.
    #[serde(default)]
    pub found: Vec<FoundDir>,
    pub version: String,
    pub started_at: String,
    pub spindle_version: String,
}

/// A directory as `db up` found it, before making it the server's.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FoundDir {
    pub path: PathBuf,
    pub uid: u32,
    pub gid: u32,
    /// Its permission bits.
    pub mode: u32,
}

impl FoundDir {
    /// How `path` is now.
    pub fn of(path: &Path) -> std::io::Result<FoundDir> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path)?;
        Ok(FoundDir { path: path.to_path_buf(), uid: m.uid(), gid: m.gid(), mode: m.mode() & 0o7777 })
    }

    /// Gives the directory back the owner and mode it was found with (a directory gone since
    /// is left gone). The owner first: a change of owner can clear the set-id bits.
    pub fn restore(&self) -> Result<(), DbError> {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let Ok(now) = std::fs::metadata(&self.path) else { return Ok(()) };
        let io = |e| DbError::Io(self.path.clone(), e);
        if (now.uid(), now.gid()) != (self.uid, self.gid) {
            std::os::unix::fs::chown(&self.path, Some(self.uid), Some(self.gid)).map_err(io)?;
        }
        std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(self.mode)).map_err(io)
    }
}

impl State {
    pub fn url(&self) -> DbUrl {
        DbUrl {
            engine: match self.engine {
                ManagedEngine::Postgres => Engine::Postgres,
                ManagedEngine::Mariadb => Engine::MySql,
            },
            path: None,
            user: Some(self.user.clone()),
            password: Some(self.password.clone()),
            host: Some("127.0.0.1".into()),
            port: Some(self.port),
            database: Some(self.database.clone()),
            connect_timeout: None,
            tls: crate::TlsMode::Disable,
            tls_root: None,
        }
    }

    /// The URL with the password in it, as the user types it.
    pub fn url_text(&self) -> String {
        let scheme = match self.engine {
            ManagedEngine::Postgres => "postgres",
            ManagedEngine::Mariadb => "mysql",
        };
        format!("{scheme}://{}:{}@127.0.0.1:{}/{}", self.user, self.password, self.port, self.database)
    }

    pub fn path(data: &Path) -> PathBuf {
        data.join(STATE_FILE)
    }

    pub fn read(data: &Path) -> Result<State, DbError> {
        let path = State::path(data);
        let text = std::fs::read_to_string(&path).map_err(|e| DbError::Io(path.clone(), e))?;
        serde_json::from_str(&text).map_err(|e| DbError::Managed {
            what: path.display().to_string(),
            why: format!("not a spindle instance's state file: {e}"),
        })
    }

    /// Writes the file anew, readable by its owner alone.
    pub fn write(&self) -> Result<(), DbError> {
        let path = State::path(&self.data);
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| DbError::Managed { what: path.display().to_string(), why: e.to_string() })?;
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|_| f.sync_all()))
            .and_then(|_| std::fs::rename(&tmp, &path));
        written.map_err(|e| DbError::Io(path, e))
    }
}
