//! spindle's results store: every measured run, kept in one SQLite file with its labels, spec,
//! environment, summary, time series and histograms, so runs can be listed, shown, removed
//! and compared later. The run record (spindle-model) is the only thing stored; the summary
//! columns are copies of its fields, for fast listing and selection.

mod error;
mod location;
pub mod private;
pub mod progress;
mod query;
mod records_v2;
mod save;
mod schema;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod v1_store_tests;

pub use error::StoreError;
pub use location::{data_dir, store_path};
pub use query::{Filter, RunSummary, StoredGroup, StoredRun, TimeBound};
pub use save::Placement;
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use spindle_model::group::{GroupKind, Point, SweepPoint};

use rusqlite::{Connection, OpenFlags};
use schema::Found;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens the store at `path` for saving, creating it (and its directory) when missing.
    /// A file that is not a spindle store, or one from a newer spindle, is refused untouched.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            private::create_dirs(dir).map_err(|source| StoreError::Directory { dir: dir.into(), source })?;
        }
        create_private(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = connect(path, flags)?;
        let from = match schema::inspect(&conn, path)? {
            Found::Store(v) => v,
            Found::Empty => 0,
        };
        schema::migrate(&mut conn, from, path)?;
        // Set once the file is known to be ours.
        use_wal(&conn, path)?;
        Ok(Store { conn, path: path.into() })
    }

    /// Opens an existing store for reading and removing. `None` when there is no store yet
    /// (no file, or an empty one): there are no runs. Never creates anything.
    pub fn open_existing(path: &Path) -> Result<Option<Store>, StoreError> {
        if !path.exists() {
            return Ok(None);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = connect(path, flags)?;
        match schema::inspect(&conn, path)? {
            Found::Empty => Ok(None),
            Found::Store(v) => {
                schema::migrate(&mut conn, v, path)?;
                Ok(Some(Store { conn, path: path.into() }))
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        sqlite(&self.path, source)
    }
}

/// A new store is readable by its owner only (mode 0600): it holds command lines, host names
/// and labels. SQLite gives its -wal and -shm files the same mode. An existing file is left as
/// it is.
fn create_private(path: &Path) -> Result<(), StoreError> {
    let error = |source| StoreError::Create { path: path.into(), source };
    match private::create_file(path) {
        Ok(_) => Ok(()),
        // A symbolic link to a file not there yet (creating anew never follows a link): SQLite
        // would make its target with the umask's mode, so it is made here, through the link.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && !path.exists() => {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            // Never truncated: another spindle may have made and filled it meanwhile.
            let open = std::fs::OpenOptions::new().write(true).create(true).truncate(false).mode(0o600).open(path);
            let file = open.map_err(error)?;
            // Empty: made just now, so its mode is spindle's to set.
            if file.metadata().map_err(error)?.len() == 0 {
                file.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(error)?;
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(source) => Err(error(source)),
    }
}

/// How long a spindle waits for another that holds the store (saving, or creating it).
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

fn connect(path: &Path, flags: OpenFlags) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(path, flags).map_err(|source| sqlite(path, source))?;
    // Another spindle may be saving at the same moment (parallel runs, several hosts later).
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|source| sqlite(path, source))?;
    conn.pragma_update(None, "foreign_keys", "ON").map_err(|source| sqlite(path, source))?;
    Ok(conn)
}

/// Puts the store in WAL mode, which lets `runs list` read while a run saves. The switch needs
/// the store's write lock, and when another connection holds it (another spindle creating the
/// same store, or switching it too) SQLite answers "database is locked" at once instead of
/// waiting: the pragma already holds a read lock, and waiting with it could deadlock. So the
/// switch is tried again, holding nothing between tries, for as long as any other wait on the
/// store.
fn use_wal(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    let mut pause = Duration::from_millis(1);
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            done => return done.map_err(|source| sqlite(path, source)),
        }
    }
}

fn sqlite(path: &Path, source: rusqlite::Error) -> StoreError {
    StoreError::Sqlite { path: path.into(), source }
}
