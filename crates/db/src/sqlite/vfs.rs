//! A counting VFS: SQLite's I/O statistics per file, as a server keeps its own. SQLite counts
//! nothing of the I/O it asks of the OS, so spindle registers a shim over the default VFS
//! that forwards every call and counts, per kind of file (the database, the WAL, the rollback
//! journal, the rest), reads, writes and their bytes, syncs, and the time spent writing and
//! syncing. A write is what reaches the file as one: SQLite's calls that continue where the
//! last one on that kind of file ended, with no sync between, are one write (a WAL frame is
//! two calls, its header and its page, and a commit's frames follow each other), as
//! PostgreSQL's one `write()` of its WAL buffers and the one request the volume then sees. Each counted connection has a VFS of its own, unregistered when it is dropped, so
//! two databases in one process never mix their figures.
//!
//! The shim's file object is SQLite's `sqlite3_file` header, a pointer to the counters of its
//! kind, then the real VFS's file object, which SQLite allocates for us (`szOsFile` is the sum).

use crate::file_stats::FileIo;
use rusqlite::ffi;
use std::ffi::{CString, c_char, c_int, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// One kind of file's counts, kept by the shim as the calls happen.
#[derive(Debug, Default)]
struct Counters {
    reads: AtomicU64,
    bytes_read: AtomicU64,
    writes: AtomicU64,
    bytes_written: AtomicU64,
    syncs: AtomicU64,
    write_ns: AtomicU64,
    sync_ns: AtomicU64,
    /// The offset where the open run of writes ends, plus one; 0 when none is open
    /// (nothing written yet, or a sync closed it).
    run_end: AtomicU64,
}

impl Counters {
    fn snapshot(&self) -> FileIo {
        let get = |a: &AtomicU64| Some(a.load(Ordering::Relaxed));
        FileIo {
            reads: get(&self.reads),
            bytes_read: get(&self.bytes_read),
            writes: get(&self.writes),
            bytes_written: get(&self.bytes_written),
            syncs: get(&self.syncs),
            write_ns: get(&self.write_ns),
            sync_ns: get(&self.sync_ns),
        }
    }
}

/// The kinds of file SQLite opens, from its open flags.
#[derive(Debug, Default)]
struct Kinds {
    main: Counters,
    wal: Counters,
    journal: Counters,
    other: Counters,
}

impl Kinds {
    fn of(&self, flags: c_int) -> &Counters {
        if flags & ffi::SQLITE_OPEN_MAIN_DB != 0 {
            &self.main
        } else if flags & ffi::SQLITE_OPEN_WAL != 0 {
            &self.wal
        } else if flags & ffi::SQLITE_OPEN_MAIN_JOURNAL != 0 {
            &self.journal
        } else {
            &self.other
        }
    }
}

/// A reading of every kind's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VfsCounts {
    pub main: FileIo,
    pub wal: FileIo,
    pub journal: FileIo,
    /// Temporary files, super-journals, and anything else.
    pub other: FileIo,
}

impl VfsCounts {
    /// The log and the data as SQLite writes them in `journal_mode`: in WAL mode the log is
    /// the WAL; otherwise commits go through the rollback journal, which is the log, and the
    /// database file is the data.
    pub fn log_and_data(&self, journal_mode: &str) -> (FileIo, FileIo) {
        if journal_mode.eq_ignore_ascii_case("wal") { (self.wal, self.main) } else { (self.journal, self.main) }
    }
}

/// A registered counting VFS and its counts; dropping it unregisters the VFS, so every
/// connection opened through it must be dropped first.
pub struct Counted {
    vfs: *mut Shim,
    kinds: Arc<Kinds>,
    pub name: String,
}

// SAFETY: the VFS is only registered and unregistered through this handle, and SQLite's
// registry is serialized by its own mutex; the counters are atomics.
unsafe impl Send for Counted {}

impl Counted {
    pub fn snapshot(&self) -> VfsCounts {
        VfsCounts {
            main: self.kinds.main.snapshot(),
            wal: self.kinds.wal.snapshot(),
            journal: self.kinds.journal.snapshot(),
            other: self.kinds.other.snapshot(),
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        // SAFETY: `vfs` came from Box::into_raw in `register`, was registered there, and no
        // connection uses it any more (the owner drops its connections first).
        unsafe {
            ffi::sqlite3_vfs_unregister(self.vfs.cast());
            drop(Box::from_raw(self.vfs));
        }
    }
}

/// The shim: SQLite's VFS struct first (SQLite sees only that), then what the shim needs.
#[repr(C)]
struct Shim {
    base: ffi::sqlite3_vfs,
    real: *mut ffi::sqlite3_vfs,
    kinds: Arc<Kinds>,
    _name: CString,
}

/// A file opened through the shim: SQLite's header, the counters of its kind, then the real
/// VFS's file object.
#[repr(C)]
struct ShimFile {
    base: ffi::sqlite3_file,
    counters: *const Counters,
}

/// Where the real file object starts, after the shim's header (kept 8-byte aligned).
const REAL_OFFSET: usize = std::mem::size_of::<ShimFile>().next_multiple_of(8);

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// Registers a new counting VFS over the default one (not as the default).
pub fn register() -> Result<Counted, String> {
    // SAFETY: sqlite3_vfs_find(NULL) returns the default VFS, which lives as long as the
    // process; its struct is plain data that we copy.
    let real = unsafe { ffi::sqlite3_vfs_find(std::ptr::null()) };
    if real.is_null() {
        return Err("SQLite has no default VFS".into());
    }
    let name = format!("spindle-counting-{}", NEXT_ID.fetch_add(1, Ordering::Relaxed));
    let c_name = CString::new(name.clone()).map_err(|e| e.to_string())?;
    // SAFETY: `real` is valid (above). The copy keeps every method and field of the real VFS
    // (its methods get the shim's struct, whose fields other than the name, the file size and
    // xOpen are the real one's), so only opening goes through the shim.
    let mut base = unsafe { *real };
    base.szOsFile = (REAL_OFFSET as c_int).saturating_add(base.szOsFile);
    base.zName = c_name.as_ptr();
    base.pNext = std::ptr::null_mut();
    base.xOpen = Some(shim_open);
    let kinds = Arc::new(Kinds::default());
    let shim = Box::into_raw(Box::new(Shim { base, real, kinds: kinds.clone(), _name: c_name }));
    // SAFETY: `shim` is a valid, leaked-until-unregistered VFS whose first field is the
    // sqlite3_vfs SQLite reads.
    let rc = unsafe { ffi::sqlite3_vfs_register(shim.cast(), 0) };
    if rc != ffi::SQLITE_OK {
        // SAFETY: not registered, so nothing else refers to it.
        drop(unsafe { Box::from_raw(shim) });
        return Err(format!("SQLite refused the counting VFS (error {rc})"));
    }
    Ok(Counted { vfs: shim, kinds, name })
}

/// The real file object behind a shim file.
///
/// # Safety
/// `file` must be a file opened by `shim_open`.
unsafe fn real_of(file: *mut ffi::sqlite3_file) -> *mut ffi::sqlite3_file {
    // SAFETY: the caller's file is a ShimFile followed by the real object at REAL_OFFSET.
    unsafe { file.cast::<u8>().add(REAL_OFFSET).cast() }
}

/// # Safety
/// `file` must be a file opened by `shim_open`.
unsafe fn counters_of<'a>(file: *mut ffi::sqlite3_file) -> &'a Counters {
    // SAFETY: shim_open stored a pointer to counters owned by the Shim's Arc, which outlives
    // every file opened through it.
    unsafe { &*(*file.cast::<ShimFile>()).counters }
}

/// The real file's methods.
///
/// # Safety
/// `real` must be an open real file.
unsafe fn methods<'a>(real: *mut ffi::sqlite3_file) -> &'a ffi::sqlite3_io_methods {
    // SAFETY: an open file's pMethods points at its VFS's static method table.
    unsafe { &*(*real).pMethods }
}

unsafe extern "C" fn shim_open(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: SQLite calls xOpen with our registered Shim and a zeroed block of szOsFile bytes.
    unsafe {
        let shim = &*vfs.cast::<Shim>();
        let real = real_of(file);
        let Some(open) = (*shim.real).xOpen else { return ffi::SQLITE_ERROR };
        let rc = open(shim.real, name, real, flags, out_flags);
        let shim_file = &mut *file.cast::<ShimFile>();
        if rc != ffi::SQLITE_OK || (*real).pMethods.is_null() {
            // SQLite calls xClose only on files whose pMethods is set.
            shim_file.base.pMethods = std::ptr::null();
            return rc;
        }
        shim_file.counters = shim.kinds.of(flags);
        shim_file.base.pMethods = &METHODS;
        rc
    }
}

static METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 3,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: Some(shm_map),
    xShmLock: Some(shm_lock),
    xShmBarrier: Some(shm_barrier),
    xShmUnmap: Some(shm_unmap),
    xFetch: Some(fetch),
    xUnfetch: Some(unfetch),
};

/// Forwards a call to the real file's method, or returns `missing` when the real VFS does not
/// have that method (an older io_methods version).
macro_rules! forward {
    ($file:ident, $method:ident, $missing:expr $(, $arg:expr)*) => {{
        // SAFETY: SQLite calls our methods only on files shim_open opened.
        unsafe {
            let real = real_of($file);
            match methods(real).$method {
                Some(f) => f(real $(, $arg)*),
                None => $missing,
            }
        }
    }};
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    forward!(file, xClose, ffi::SQLITE_OK)
}

unsafe extern "C" fn read(file: *mut ffi::sqlite3_file, buf: *mut c_void, amount: c_int, offset: i64) -> c_int {
    let rc = forward!(file, xRead, ffi::SQLITE_IOERR, buf, amount, offset);
    if rc == ffi::SQLITE_OK || rc == ffi::SQLITE_IOERR_SHORT_READ {
        // SAFETY: as in forward!.
        let c = unsafe { counters_of(file) };
        c.reads.fetch_add(1, Ordering::Relaxed);
        c.bytes_read.fetch_add(amount.max(0) as u64, Ordering::Relaxed);
    }
    rc
}

unsafe extern "C" fn write(file: *mut ffi::sqlite3_file, buf: *const c_void, amount: c_int, offset: i64) -> c_int {
    let start = Instant::now();
    let rc = forward!(file, xWrite, ffi::SQLITE_IOERR, buf, amount, offset);
    if rc == ffi::SQLITE_OK {
        // SAFETY: as in forward!.
        let c = unsafe { counters_of(file) };
        c.write_ns.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        let (from, bytes) = (offset.max(0) as u64, amount.max(0) as u64);
        if c.run_end.swap(from + bytes + 1, Ordering::Relaxed) != from + 1 {
            c.writes.fetch_add(1, Ordering::Relaxed);
        }
        c.bytes_written.fetch_add(bytes, Ordering::Relaxed);
    }
    rc
}

unsafe extern "C" fn sync(file: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    let start = Instant::now();
    let rc = forward!(file, xSync, ffi::SQLITE_IOERR, flags);
    if rc == ffi::SQLITE_OK {
        // SAFETY: as in forward!.
        let c = unsafe { counters_of(file) };
        c.sync_ns.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        c.syncs.fetch_add(1, Ordering::Relaxed);
        c.run_end.store(0, Ordering::Relaxed);
    }
    rc
}

unsafe extern "C" fn truncate(file: *mut ffi::sqlite3_file, size: i64) -> c_int {
    forward!(file, xTruncate, ffi::SQLITE_IOERR, size)
}

unsafe extern "C" fn file_size(file: *mut ffi::sqlite3_file, size: *mut i64) -> c_int {
    forward!(file, xFileSize, ffi::SQLITE_IOERR, size)
}

unsafe extern "C" fn lock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    forward!(file, xLock, ffi::SQLITE_IOERR, level)
}

unsafe extern "C" fn unlock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    forward!(file, xUnlock, ffi::SQLITE_IOERR, level)
}

unsafe extern "C" fn check_reserved_lock(file: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    forward!(file, xCheckReservedLock, ffi::SQLITE_IOERR, out)
}

unsafe extern "C" fn file_control(file: *mut ffi::sqlite3_file, op: c_int, arg: *mut c_void) -> c_int {
    forward!(file, xFileControl, ffi::SQLITE_NOTFOUND, op, arg)
}

unsafe extern "C" fn sector_size(file: *mut ffi::sqlite3_file) -> c_int {
    forward!(file, xSectorSize, 4096)
}

unsafe extern "C" fn device_characteristics(file: *mut ffi::sqlite3_file) -> c_int {
    forward!(file, xDeviceCharacteristics, 0)
}

unsafe extern "C" fn shm_map(
    file: *mut ffi::sqlite3_file,
    page: c_int,
    size: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    forward!(file, xShmMap, ffi::SQLITE_IOERR, page, size, extend, out)
}

unsafe extern "C" fn shm_lock(file: *mut ffi::sqlite3_file, offset: c_int, n: c_int, flags: c_int) -> c_int {
    forward!(file, xShmLock, ffi::SQLITE_IOERR, offset, n, flags)
}

unsafe extern "C" fn shm_barrier(file: *mut ffi::sqlite3_file) {
    forward!(file, xShmBarrier, ())
}

unsafe extern "C" fn shm_unmap(file: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    forward!(file, xShmUnmap, ffi::SQLITE_OK, delete)
}

unsafe extern "C" fn fetch(file: *mut ffi::sqlite3_file, offset: i64, amount: c_int, out: *mut *mut c_void) -> c_int {
    // SAFETY: as in forward!; without memory mapping in the real VFS, no page is returned.
    unsafe { *out = std::ptr::null_mut() };
    forward!(file, xFetch, ffi::SQLITE_OK, offset, amount, out)
}

unsafe extern "C" fn unfetch(file: *mut ffi::sqlite3_file, offset: i64, page: *mut c_void) -> c_int {
    forward!(file, xUnfetch, ffi::SQLITE_OK, offset, page)
}

#[cfg(test)]
mod tests;
