//! A store in an SQLite file: made private (0600) in a private directory, waited on while
//! another spindle writes, in WAL mode once known to be a store, and marked by SQLite's own
//! `application_id` and `user_version`.

use super::{Identity, Row, Value};
use crate::schema::APPLICATION_ID;
use crate::{StoreError, private};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(crate) struct SqliteConn {
    conn: Connection,
    /// The file opened, and which file it was (device and inode), to notice it replaced.
    path: PathBuf,
    file: Option<(u64, u64)>,
    pub shown: String,
}

/// How long a spindle waits for another that holds the store (saving, or creating it).
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

impl SqliteConn {
    /// Opens the file, creating it (and its directory) when `create`; `None` when it is
    /// missing and not `create`.
    pub fn open(path: &Path, create: bool) -> Result<Option<SqliteConn>, StoreError> {
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                private::create_dirs(dir).map_err(|source| StoreError::Directory { dir: dir.into(), source })?;
            }
            create_private(path)?;
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        } else if !path.exists() {
            return Ok(None);
        }
        let error = |source: rusqlite::Error| StoreError::Database {
            store: path.display().to_string(),
            cause: source.to_string(),
        };
        let conn = Connection::open_with_flags(path, flags).map_err(error)?;
        // Another spindle may be saving at the same moment (parallel runs).
        conn.busy_timeout(BUSY_TIMEOUT).map_err(error)?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(error)?;
        // A page cache of 512 KiB, not SQLite's 2 MiB: a run's record of a thousand sessions
        // is megabytes, and its pages passing through the cache as it is saved sat on the
        // run's memory peak; spindle reads a store once per command, from the OS's cache. A
        // file that is not a database refuses the setting: what it is gets said when the store
        // identifies it.
        let _ = conn.pragma_update(None, "cache_size", -512);
        Ok(Some(SqliteConn { conn, path: path.to_path_buf(), file: file_id(path), shown: path.display().to_string() }))
    }

    /// Whether the path no longer names the file this connection reads: removed, renamed,
    /// or replaced by another (a store copied over it); the connection would go on reading
    /// the old file's pages.
    pub fn gone(&self) -> bool {
        self.file.is_none() || file_id(&self.path) != self.file
    }

    /// Before every statement (the store's `Conn` asks): an error when the index SQLite shares in memory (`-shm`) was made
    /// immutable (`chattr +i`). SQLite maps that file and writes to it on every transaction,
    /// reads too, and the kernel answers a write to a mapped immutable file with SIGBUS,
    /// which would kill spindle with the run unsaved; said here, the run is kept beside the
    /// store.
    pub fn check_mapped(&self) -> Result<(), StoreError> {
        self.refuse_immutable(&[self.side_file("-shm")])
    }

    /// Before a transaction that writes: an error naming the store's file, its log or its
    /// index when one is immutable, which SQLite would otherwise report as an I/O error or,
    /// for the index, a SIGBUS.
    pub fn check_writable(&self) -> Result<(), StoreError> {
        self.refuse_immutable(&[self.path.clone(), self.side_file("-wal"), self.side_file("-shm")])
    }

    /// SQLite's file beside the store: `-wal` or `-shm` after the store's name.
    fn side_file(&self, suffix: &str) -> PathBuf {
        let mut name = self.path.clone().into_os_string();
        name.push(suffix);
        PathBuf::from(name)
    }

    fn refuse_immutable(&self, files: &[PathBuf]) -> Result<(), StoreError> {
        match files.iter().find(|f| is_immutable(f)) {
            Some(file) => Err(StoreError::Immutable { store: self.shown.clone(), file: file.clone() }),
            None => Ok(()),
        }
    }

    pub fn execute(&self, sql: &str, args: &[Value]) -> rusqlite::Result<u64> {
        let n = self.conn.prepare_cached(sql)?.execute(rusqlite::params_from_iter(args.iter().map(to_sql)))?;
        Ok(n as u64)
    }

    pub fn batch(&self, sql: &str) -> rusqlite::Result<()> {
        self.conn.execute_batch(sql)
    }

    pub fn query(&self, sql: &str, args: &[Value]) -> rusqlite::Result<Vec<Row>> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let columns = stmt.column_count();
        let rows = stmt.query_map(rusqlite::params_from_iter(args.iter().map(to_sql)), |r| {
            (0..columns).map(|i| r.get::<_, rusqlite::types::Value>(i).map(from_sql)).collect::<Result<_, _>>().map(Row)
        })?;
        rows.collect()
    }

    /// The application id, the version and the tables, read in one statement, so from one
    /// snapshot: another spindle creating the store at the same moment is seen before its
    /// first step or after it, never halfway (which would look like another program's
    /// database).
    pub fn identity(&self) -> Result<Identity, StoreError> {
        let identity = self.conn.query_row(
            "SELECT (SELECT application_id FROM pragma_application_id), \
                    (SELECT user_version FROM pragma_user_version), \
                    (SELECT count(*) FROM sqlite_master)",
            [],
            |r| Ok(Identity { application_id: r.get(0)?, version: r.get(1)?, tables: r.get(2)? }),
        );
        match identity {
            Ok(found) => Ok(found),
            Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::NotADatabase => {
                Err(StoreError::NotAStore { store: self.shown.clone(), what: "not an SQLite database".into() })
            }
            Err(e) => Err(StoreError::Database { store: self.shown.clone(), cause: e.to_string() }),
        }
    }

    pub fn mark(&self, version: i64) -> rusqlite::Result<()> {
        self.conn.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {version};"))
    }

    /// Puts the store in WAL mode, which lets `runs list` read while a run saves. The switch
    /// needs the store's write lock, and when another connection holds it (another spindle
    /// creating the same store, or switching it too) SQLite answers "database is locked" at
    /// once instead of waiting: the pragma already holds a read lock, and waiting with it
    /// could deadlock. So the switch is tried again, holding nothing between tries, for as
    /// long as any other wait on the store.
    pub fn use_wal(&self) -> Result<(), StoreError> {
        let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
        let mut pause = Duration::from_millis(1);
        loop {
            match self.conn.pragma_update(None, "journal_mode", "WAL") {
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == rusqlite::ErrorCode::DatabaseBusy && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                done => {
                    return done.map_err(|e| StoreError::Database { store: self.shown.clone(), cause: e.to_string() });
                }
            }
        }
    }
}

/// Which file `path` names now: its device and inode.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Whether the file at `path` carries the immutable attribute (`chattr +i`), as `statx`
/// tells it (a file that is missing, or a file system that keeps no such attribute: not).
/// The standard library's metadata leaves the attributes out, so statx is called itself.
fn is_immutable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
    // SAFETY: statx is plain data, for which all zeroes is a valid value.
    let mut buf: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: `name` is a NUL-terminated path that outlives the call, and `buf` a statx the
    // call fills; nothing else is touched.
    let found = unsafe { libc::statx(libc::AT_FDCWD, name.as_ptr(), 0, libc::STATX_BASIC_STATS, &mut buf) } == 0;
    let immutable = libc::STATX_ATTR_IMMUTABLE as u64;
    found && buf.stx_attributes_mask & immutable != 0 && buf.stx_attributes & immutable != 0
}

fn to_sql(v: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match v {
        Value::Null => V::Null,
        Value::Int(i) => V::Integer(*i),
        Value::Real(r) => V::Real(*r),
        Value::Text(t) => V::Text(t.clone()),
    }
}

fn from_sql(v: rusqlite::types::Value) -> Value {
    use rusqlite::types::Value as V;
    match v {
        V::Null => Value::Null,
        V::Integer(i) => Value::Int(i),
        V::Real(r) => Value::Real(r),
        V::Text(t) => Value::Text(t),
        // spindle stores no blobs; one read where text is expected is said as not text.
        V::Blob(_) => Value::Null,
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
