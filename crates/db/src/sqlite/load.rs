//! Loading Hammer's table into SQLite the fastest way SQLite has: one prepared insert in large
//! transactions, keys in order so the clustered B-tree only appends, WAL with synchronous off
//! while loading, and a checkpoint at the end. Each transaction commits a consistent prefix,
//! so an interrupted load leaves a table that `--resume` continues.

use super::{CREATE_MARKER, CREATE_TABLE, contents, open, shown};
use crate::DbError;
use crate::keys::CardNo;
#[cfg(test)]
use crate::load::{Contents, LoadMode};
use crate::load::{LoadFailure, LoadOptions, LoadOutcome, Start, start};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Rows per transaction: large enough that commits cost nothing, small enough that Ctrl-C
/// loses little.
const ROWS_PER_COMMIT: u64 = 500_000;
/// Progress and the stop flag are looked at this often.
const ROWS_PER_CHECK: u64 = 50_000;

pub fn load(
    path: &Path,
    opts: &LoadOptions,
    progress: &mut dyn FnMut(u64, u64),
    stop: &AtomicBool,
) -> Result<LoadOutcome, DbError> {
    let db = shown(path);
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(DbError::NoDirectory { db });
    }
    let mut conn = open(path)?;
    let sql = |source| DbError::Sqlite { db: db.clone(), source };
    let rows_before = match start(contents(&conn, path)?, opts.mode, &db)? {
        Start::Resume(rows) => rows,
        Start::Replace => {
            conn.execute_batch("DROP TABLE TestTransaction; DROP TABLE spindle_hammer;").map_err(sql)?;
            0
        }
        Start::Create => 0,
    };
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY;",
    )
    .map_err(sql)?;
    conn.execute_batch(&format!("{CREATE_TABLE}; {CREATE_MARKER};")).map_err(sql)?;
    conn.execute("INSERT OR REPLACE INTO spindle_hammer VALUES ('rows', ?1)", [opts.rows.to_string()]).map_err(sql)?;

    let start = Instant::now();
    let mut per_second: Vec<u64> = Vec::new();
    let mut done = rows_before;
    let mut interrupted = false;
    let mut failure = None;
    while done < opts.rows && !interrupted {
        // A transaction that fails (a full disk) rolls back: its rows leave the count again.
        let counted = per_second.clone();
        let mut pending = done;
        match transaction(&mut conn, &mut pending, opts.rows, start, &mut per_second, progress, stop) {
            Ok(stopped) => {
                done = pending;
                interrupted = stopped;
            }
            Err(e) => {
                per_second = counted;
                let e = sql(e);
                failure = Some(LoadFailure::of(&e));
                interrupted = true;
            }
        }
    }
    // Fold the WAL into the database so the loaded table is durable and the next run starts
    // from a clean file (after a failure, as far as it can: what committed is in the WAL).
    let checkpoint = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
    if failure.is_none() {
        checkpoint.map_err(sql)?;
    }
    let elapsed = start.elapsed();
    Ok(LoadOutcome { rows_before, rows_loaded: done - rows_before, elapsed, per_second, interrupted, failure })
}

/// One transaction of up to `ROWS_PER_COMMIT` rows from `*done`, committed; whether a stop
/// ended it early.
fn transaction(
    conn: &mut rusqlite::Connection,
    done: &mut u64,
    rows: u64,
    start: Instant,
    per_second: &mut Vec<u64>,
    progress: &mut dyn FnMut(u64, u64),
    stop: &AtomicBool,
) -> Result<bool, rusqlite::Error> {
    let tx = conn.transaction()?;
    let mut stopped = false;
    {
        let mut insert = tx.prepare_cached("INSERT INTO TestTransaction VALUES (?1, '2026-01-01 00:00:00', ?2)")?;
        let end = (*done + ROWS_PER_COMMIT).min(rows);
        while *done < end {
            let chunk_end = (*done + ROWS_PER_CHECK).min(end);
            for i in *done..chunk_end {
                // Amounts spread over 0..100.0000 money units.
                insert.execute(rusqlite::params![
                    CardNo::of_row(i).as_str(),
                    (i.wrapping_mul(7919) % 1_000_000) as i64
                ])?;
            }
            let second = start.elapsed().as_secs() as usize;
            if per_second.len() <= second {
                per_second.resize(second + 1, 0);
            }
            per_second[second] += chunk_end - *done;
            *done = chunk_end;
            progress(*done, rows);
            if stop.load(Ordering::Relaxed) {
                stopped = true;
                break;
            }
        }
    }
    tx.commit()?;
    Ok(stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet() -> impl FnMut(u64, u64) {
        |_, _| {}
    }

    #[test]
    fn loads_resumes_and_refuses_what_is_not_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let stop = AtomicBool::new(false);
        let out = load(&path, &LoadOptions { rows: 1234, mode: LoadMode::New }, &mut quiet(), &stop).unwrap();
        assert_eq!((out.rows_before, out.rows_loaded, out.interrupted), (0, 1234, false));
        assert_eq!(out.per_second.iter().sum::<u64>(), 1234);
        let conn = open(&path).unwrap();
        assert_eq!(contents(&conn, &path).unwrap(), Contents::Hammer { rows: 1234 });
        let last: String = conn.query_row("SELECT max(CardNo) FROM TestTransaction", [], |r| r.get(0)).unwrap();
        assert_eq!(last, CardNo::of_row(1233).as_str());

        let again = load(&path, &LoadOptions { rows: 2000, mode: LoadMode::New }, &mut quiet(), &stop);
        assert!(matches!(again, Err(DbError::AlreadyLoaded { rows: 1234, .. })));
        let resumed = load(&path, &LoadOptions { rows: 2000, mode: LoadMode::Resume }, &mut quiet(), &stop).unwrap();
        assert_eq!((resumed.rows_before, resumed.rows_loaded), (1234, 766));
        let fresh = load(&path, &LoadOptions { rows: 10, mode: LoadMode::Fresh }, &mut quiet(), &stop).unwrap();
        assert_eq!((fresh.rows_before, fresh.rows_loaded), (0, 10));

        let other = dir.path().join("mine.db");
        rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE notes (x)").unwrap();
        let refused = load(&other, &LoadOptions { rows: 10, mode: LoadMode::Fresh }, &mut quiet(), &stop);
        assert!(matches!(refused, Err(DbError::NotOurs { .. })), "{refused:?}");
        let missing = load(
            &dir.path().join("no/such/dir.db"),
            &LoadOptions { rows: 1, mode: LoadMode::New },
            &mut quiet(),
            &stop,
        );
        assert!(matches!(missing, Err(DbError::NoDirectory { .. })));
    }

    #[test]
    fn a_stop_commits_a_consistent_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let stop = AtomicBool::new(false);
        let mut calls = 0;
        let mut progress = |_: u64, _: u64| {
            calls += 1;
            if calls == 3 {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let out = load(&path, &LoadOptions { rows: 1_000_000, mode: LoadMode::New }, &mut progress, &stop).unwrap();
        assert!(out.interrupted);
        assert_eq!(out.rows_loaded, 3 * ROWS_PER_CHECK);
        let conn = open(&path).unwrap();
        assert_eq!(contents(&conn, &path).unwrap(), Contents::Hammer { rows: 3 * ROWS_PER_CHECK });
    }
}
