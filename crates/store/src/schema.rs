//! The store's layout and its versions. A store is marked as spindle's, with its schema
//! version (SQLite: `application_id` and `user_version`; PostgreSQL: the `spindle_store`
//! table); each migration moves it one version up inside a transaction, so a store is never
//! left half-migrated. The steps are written once for both databases.

use crate::StoreError;
use crate::backend::Conn;

/// "SPDL": marks a database as a spindle store.
pub const APPLICATION_ID: i64 = 0x5350_444C;

/// One step of a store's layout: SQL (with the layout's type words, see `Dialect::layout`),
/// or a rewrite of what is stored.
enum Step {
    Sql(&'static str),
    Rewrite(fn(&Conn) -> Result<(), StoreError>),
}

/// Migrations in order; the store's schema version is how many have been applied.
const MIGRATIONS: &[Step] = &[
    // 1: runs with their summary columns (what `runs list` and `compare` read without
    // parsing JSON), labels for selection, groups (repeats, sweeps, suites), and the full run
    // record as JSON in its own table so listing never reads it.
    Step::Sql(
        "CREATE TABLE groups (
        id {id},
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        summary TEXT
    );
    CREATE TABLE runs (
        id {id},
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        started_at TEXT NOT NULL,
        measured_seconds {real} NOT NULL,
        hostname TEXT NOT NULL,
        spindle_version TEXT NOT NULL,
        workload TEXT NOT NULL,
        group_id {int} REFERENCES groups(id) ON DELETE SET NULL,
        point TEXT,
        repeat {int} NOT NULL,
        ios {int} NOT NULL,
        iops {real} NOT NULL,
        bytes_per_sec {real} NOT NULL,
        latency_mean_ns {real} NOT NULL,
        latency_p50_ns {int} NOT NULL,
        latency_p99_ns {int} NOT NULL,
        latency_p99_9_ns {int} NOT NULL,
        latency_max_ns {int} NOT NULL,
        cpu_us_per_io {real} NOT NULL,
        errors {int} NOT NULL
    );
    CREATE INDEX runs_started_at ON runs(started_at);
    CREATE INDEX runs_group ON runs(group_id);
    CREATE TABLE labels (
        run_id {int} NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
    ){without_rowid};
    CREATE INDEX labels_key_value ON labels(key, value);
    CREATE TABLE records (
        run_id {int} PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        schema TEXT NOT NULL,
        json TEXT NOT NULL
    );",
    ),
    // 2: every record in the current record schema (v2: the kind's data typed in `details`).
    Step::Rewrite(crate::records_v2::rewrite),
    // 3: runs in progress, as their writers publish them for `spindle serve` (progress.rs).
    Step::Sql(
        "CREATE TABLE live_runs (
        id {id},
        pid {int} NOT NULL,
        hostname TEXT NOT NULL,
        what TEXT NOT NULL,
        started_at TEXT NOT NULL,
        updated_ms {int} NOT NULL,
        points TEXT NOT NULL
    );",
    ),
    // 4: runs measured by several agents and their agents, coordinated through a store on a
    // PostgreSQL server (agents.rs).
    Step::Sql(
        "CREATE TABLE agent_runs (
        id {id},
        created_at TEXT NOT NULL,
        agents {int} NOT NULL,
        spec TEXT NOT NULL,
        spec_hash TEXT NOT NULL,
        spindle_version TEXT NOT NULL,
        state TEXT NOT NULL,
        start_at_ns {int},
        group_id {int} NOT NULL,
        note TEXT
    );
    CREATE TABLE agents (
        run_id {int} NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
        idx {int} NOT NULL,
        hostname TEXT NOT NULL,
        pid {int} NOT NULL,
        spindle_version TEXT NOT NULL,
        offset_ns {int} NOT NULL,
        rtt_ns {int} NOT NULL,
        state TEXT NOT NULL,
        heartbeat_ns {int} NOT NULL,
        started_ns {int},
        run_saved {int},
        note TEXT,
        PRIMARY KEY (run_id, idx)
    ){without_rowid};",
    ),
    // 5: each run's commits in its summary row (their count, mean and p99), so a listing
    // leads with a committing run's commit latency, as every view does, without reading its
    // record.
    Step::Sql(
        "ALTER TABLE runs ADD COLUMN commit_count {int} NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN commit_mean_ns {real} NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN commit_p99_ns {int} NOT NULL DEFAULT 0;",
    ),
    // 6: the commit columns of the runs saved before 5, from their records.
    Step::Rewrite(crate::commit_columns::backfill),
    // 7: the run a live row was saved as, so the address of a run that was in progress leads
    // to its saved run once it has ended (progress.rs).
    Step::Sql("ALTER TABLE live_runs ADD COLUMN run_id {int};"),
];

/// The schema version this spindle writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// What an opened database turned out to be.
#[derive(Debug, PartialEq)]
pub(crate) enum Found {
    /// A spindle store at this schema version.
    Store(i64),
    /// An empty database (a new or zero-length file, a database without tables): free to
    /// become a store.
    Empty,
}

/// Identifies the database without changing it: a store (at a version this spindle reads),
/// an empty database, or else refused: another program's, or a newer spindle's.
pub(crate) fn inspect(conn: &Conn) -> Result<Found, StoreError> {
    let id = conn.identity()?;
    let store = || conn.shown().to_string();
    if id.application_id == APPLICATION_ID {
        if id.version > SCHEMA_VERSION {
            return Err(StoreError::Newer { store: store(), found: id.version, known: SCHEMA_VERSION });
        }
        return Ok(Found::Store(id.version));
    }
    if id.application_id == 0 && id.tables == 0 && id.version == 0 {
        return Ok(Found::Empty);
    }
    Err(StoreError::NotAStore { store: store(), what: conn.foreign(&id) })
}

/// Brings a store (or an empty database) from `from` to `SCHEMA_VERSION`, each step in its
/// own transaction with the version's mark. Each step takes the write lock first and
/// identifies the database again under it: several spindles creating one new store at once
/// apply each step once, the others finding it done.
pub(crate) fn migrate(conn: &Conn, from: i64) -> Result<(), StoreError> {
    for (i, step) in MIGRATIONS.iter().enumerate().skip(from.max(0) as usize) {
        conn.write(|| {
            conn.serialize(crate::backend::Serial::Schema)?;
            if matches!(inspect(conn)?, Found::Store(now) if now > i as i64) {
                return Ok(());
            }
            match step {
                Step::Sql(text) => conn.batch(&conn.dialect().layout(text))?,
                Step::Rewrite(rewrite) => rewrite(conn)?,
            }
            conn.mark(i as i64 + 1)
        })?;
    }
    Ok(())
}
