//! The transaction-log test on the real engines: the log's figures come from each engine's
//! own statistics, one run per transaction size is saved as a group, and bad input is
//! refused before anything is created.

use crate::common::spindle_with_store;
#[cfg(feature = "mysql")]
use crate::hammer_mysql::MARIADB;
#[cfg(feature = "postgres")]
use crate::hammer_postgres::POSTGRES;
use crate::io_output::assert_valid;
#[cfg(any(feature = "postgres", feature = "mysql"))]
use crate::server_db::{Server, TestDb};
use std::path::Path;

/// Runs a small log test (400 rows of 4000 bytes at 1, 20 and 400 rows a transaction) and
/// checks what must hold on any engine whatever else the server is doing: every commit at
/// size 1 made at least one log write of its own (a durable commit waits for its log), the
/// log holds at least the rows' bytes, the optimum (or throughput still rising at the largest
/// size) is marked once, and the runs are a group.
fn small_test(db: &str, store: &Path) -> Vec<serde_json::Value> {
    let out = spindle_with_store(store)
        .args(["logtest", "--db", db, "--rows", "400", "--batch", "1,20,400", "--settle", "0s", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 3);
    for (row, size) in rows.iter().zip([1u64, 20, 400]) {
        for column in [
            "transaction_size",
            "log_write_ios",
            "log_bytes_written",
            "ios_per_row",
            "ios_per_transaction",
            "bytes_per_io",
            "mb_per_sec",
            "duration_s",
        ] {
            assert!(row.get(column).is_some(), "{column} missing in {row}");
        }
        assert_eq!(row["transaction_size"].as_u64(), Some(size));
        assert_eq!((row["rows"].as_u64(), row["commits"].as_u64()), (Some(400), Some(400 / size)));
        let bytes = row["log_bytes_written"].as_u64().unwrap();
        assert!(bytes >= 400 * 4000, "the log holds every row: {bytes} bytes at size {size}");
    }
    let per_commit = rows[0]["ios_per_transaction"].as_f64().unwrap();
    assert!(per_commit >= 0.95, "a durable commit writes the log: {per_commit} writes per commit at size 1");
    // One size is marked: the optimum, or the largest when throughput was still rising there.
    let marked: Vec<u64> = rows
        .iter()
        .filter(|r| r["optimum"] == true || r["still_rising"] == true)
        .map(|r| r["transaction_size"].as_u64().unwrap())
        .collect();
    assert_eq!(marked.len(), 1, "{rows:?}");
    assert!(rows.iter().all(|r| r["still_rising"] != true || r["transaction_size"] == 400), "{rows:?}");

    let listed = spindle_with_store(store).args(["runs", "list", "--json"]).output().unwrap();
    let runs: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).unwrap();
    let ids: Vec<String> = runs.iter().filter(|r| r["kind"] == "logtest").map(|r| r["id"].to_string()).collect();
    assert_eq!(ids.len(), 3, "{runs:?}");
    let shown = spindle_with_store(store).args(["runs", "show", &ids[0], "--json"]).output().unwrap();
    let record: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_valid(&record);
    assert_eq!(record["counts"], "rows");
    rows
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
fn on_server(server: &'static Server, tag: &str) {
    let Some(db) = TestDb::create(server, tag) else { return };
    let dir = tempfile::tempdir().unwrap();
    small_test(&db.url(), &dir.path().join("results.db"));
}

#[cfg(feature = "postgres")]
#[test]
fn logtest_on_postgres() {
    on_server(&POSTGRES, "logtest");
}

#[cfg(feature = "mysql")]
#[test]
fn logtest_on_mariadb() {
    on_server(&MARIADB, "logtest");
}

#[test]
fn logtest_on_sqlite_counts_the_wal() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("log.db").display());
    let rows = small_test(&db, &dir.path().join("results.db"));
    // SQLite's counts are its own VFS's, exact: a WAL sync for every commit at size 1 (and a
    // few of SQLite's own, as when the WAL restarts after the checkpoint).
    let syncs = rows[0]["log_syncs"].as_u64().unwrap();
    assert!((400..=410).contains(&syncs), "{}", rows[0]);
}

#[test]
fn logtest_bad_input_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let db = format!("sqlite://{}", dir.path().join("log.db").display());
    for (args, needle) in [
        (vec!["--rows", "0"], "--rows"),
        (vec!["--rows", "1000", "--batch", "300"], "the last would hold 100 rows"),
        (vec!["--rows", "100", "--batch", "1000"], "more than the 100 rows"),
        (vec!["--row-bytes", "9000"], "--row-bytes"),
        (vec!["--batch", "1,,10"], "--batch"),
        (vec!["--settle", "soon"], "--settle"),
    ] {
        let out = spindle_with_store(&store).args(["logtest", "--db", &db]).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let out = spindle_with_store(&store).args(["logtest", "--db", "oracle://x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!store.exists() && !dir.path().join("log.db").exists(), "nothing is left behind");
}

/// A password with a `/` in the URL, and one in `?password=`, reach the server but nothing
/// spindle writes: stdout, stderr, the store, over TLS as in plaintext.
#[cfg(feature = "postgres")]
#[test]
fn passwords_in_urls_are_used_and_never_shown() {
    let Some(db) = TestDb::create(&POSTGRES, "secret") else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    // PostgreSQL here trusts local connections, so any password connects: what is checked is
    // where the password ends up.
    let url = db.url().replacen("root@", "root:Se/cretXYZ@", 1);
    assert!(url.contains("Se/cretXYZ@127.0.0.1"), "{url}");
    for db_url in [url.clone(), format!("{}?password=OtherSecretXYZ&sslmode=disable", db.url())] {
        let out = spindle_with_store(&store)
            .args(["logtest", "--db", &db_url, "--rows", "10", "--batch", "10", "--settle", "0s"])
            .output()
            .unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{said}");
        assert!(!said.contains("SecretXYZ"), "{said}");
    }
    let from_env = spindle_with_store(&store)
        .env("PGPASSWORD", "EnvSecretXYZ")
        .args(["logtest", "--db", &db.url(), "--rows", "10", "--batch", "10", "--settle", "0s"])
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&from_env.stdout), String::from_utf8_lossy(&from_env.stderr));
    assert!(from_env.status.success() && !said.contains("SecretXYZ"), "{said}");
    let kept = std::fs::read(&store).unwrap();
    assert!(!String::from_utf8_lossy(&kept).contains("SecretXYZ"), "the store holds no password");
    // Over TLS (this server's ssl is on) as well: used, and never shown.
    let out = spindle_with_store(&store)
        .args(["logtest", "--db", &format!("{}?password=TlsSecretXYZ&sslmode=require", db.url())])
        .args(["--rows", "10", "--batch", "10", "--settle", "0s"])
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
    assert!(said.contains("sslmode=require") && !said.contains("TlsSecretXYZ"), "{said}");
}
