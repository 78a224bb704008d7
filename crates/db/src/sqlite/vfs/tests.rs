use super::*;
use rusqlite::{Connection, OpenFlags};

fn open(path: &std::path::Path, vfs: &Counted) -> Connection {
    Connection::open_with_flags_and_vfs(path, OpenFlags::default(), vfs.name.as_str()).unwrap()
}

/// Inserts `rows` rows of 4000 bytes, committing every `batch`.
fn insert(conn: &Connection, rows: usize, batch: usize) {
    let text = "x".repeat(4000);
    for _ in 0..rows / batch {
        conn.execute_batch("BEGIN").unwrap();
        for _ in 0..batch {
            conn.execute("INSERT INTO t (v) VALUES (?1)", [&text]).unwrap();
        }
        conn.execute_batch("COMMIT").unwrap();
    }
}

#[test]
fn a_durable_wal_commit_is_one_sync_and_the_rows_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = register().unwrap();
    let conn = open(&dir.path().join("t.db"), &vfs);
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)",
    )
    .unwrap();
    let before = vfs.snapshot();
    insert(&conn, 50, 1);
    let one = vfs.snapshot();
    let (log, _) = one.log_and_data("wal");
    let d = log - before.wal;
    assert_eq!(d.syncs, Some(50), "one WAL sync per commit");
    assert!(d.bytes_written.unwrap() >= 50 * 4000, "{d:?}");
    // A commit's frames (two calls each: header and page) follow one another and reach the
    // file as one write before its sync.
    assert_eq!(d.writes, Some(50), "one write per commit, not two per frame: {d:?}");
    assert!(d.write_ns.unwrap() > 0 && d.sync_ns.unwrap() > 0);
    insert(&conn, 50, 50);
    let batched = vfs.snapshot().wal - one.wal;
    assert_eq!(batched.syncs, Some(1), "one commit, one sync");
    assert_eq!(batched.writes, Some(1), "{batched:?}");
    let journal = one.journal - before.journal;
    assert_eq!(journal.writes, Some(0), "WAL mode writes no journal");
}

#[test]
fn a_rollback_journal_and_the_database_are_counted_apart() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = register().unwrap();
    let conn = open(&dir.path().join("t.db"), &vfs);
    conn.execute_batch("PRAGMA journal_mode = DELETE; CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)").unwrap();
    insert(&conn, 20, 1);
    let c = vfs.snapshot();
    let (log, data) = c.log_and_data("delete");
    assert!(log.writes.unwrap() >= 20 && log.syncs.unwrap() >= 20, "each commit writes and syncs the journal: {log:?}");
    assert!(data.bytes_written.unwrap() >= 20 * 4000 && data.syncs.unwrap() >= 20, "{data:?}");
    assert_eq!(c.wal.writes, Some(0));
}

#[test]
fn registrations_keep_their_own_counts_and_reads_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (register().unwrap(), register().unwrap());
    assert_ne!(a.name, b.name);
    let path = dir.path().join("t.db");
    {
        let conn = open(&path, &a);
        conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)").unwrap();
        insert(&conn, 10, 10);
    }
    assert_eq!(b.snapshot().main.writes, Some(0), "b saw none of a's writes");
    let conn = open(&path, &b);
    let n: i64 = conn.query_row("SELECT count(*) FROM t WHERE length(v) = 4000", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 10);
    let reads = b.snapshot().main;
    assert!(reads.reads.unwrap() > 0 && reads.bytes_read.unwrap() >= 10 * 4000, "{reads:?}");
    drop(conn);
    drop(b);
    // Unregistered: a new connection cannot name it.
    assert!(Connection::open_with_flags_and_vfs(&path, OpenFlags::default(), "spindle-counting-none").is_err());
}
