//! The large operations on the real engines: four runs in a group, the update through every
//! row, each with its volumes' I/O, the scan called cold only when it was; bad input refused
//! before anything is made.

use crate::common::spindle_with_store;
#[cfg(feature = "mysql")]
use crate::hammer_mysql::MARIADB;
#[cfg(feature = "postgres")]
use crate::hammer_postgres::POSTGRES;
use crate::io_output::assert_valid;
#[cfg(any(feature = "postgres", feature = "mysql"))]
use crate::server_db::{Server, TestDb};
use std::path::Path;

/// 30,000 customers in batches of 10,000, kept, so the test can look at the table.
fn small(db: &str, store: &Path) -> Vec<serde_json::Value> {
    let out = spindle_with_store(store)
        .args(["largeops", "--db", db, "--rows", "30000", "--batch", "10000", "--settle", "0s", "--json", "--keep"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ops: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = ops.iter().map(|o| o["operation"].as_str().unwrap()).collect();
    assert_eq!(names, ["load", "scan", "update", "checkpoint"]);
    for o in &ops {
        assert_eq!(o["rows"].as_u64(), Some(30_000), "{o}");
    }
    assert_eq!(ops[0]["batch"].as_u64(), Some(10_000));
    // A server spindle does not manage keeps its cache: its scan is warm, and says why.
    let listed = spindle_with_store(store).args(["runs", "list", "--json"]).output().unwrap();
    let runs: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(runs.iter().filter(|r| r["kind"] == "largeops").count(), 4);
    let id = runs[0]["id"].to_string();
    let shown = spindle_with_store(store).args(["runs", "show", &id, "--json"]).output().unwrap();
    assert_valid(&serde_json::from_slice(&shown.stdout).unwrap());
    ops
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
fn on_server(server: &'static Server, tag: &str, count_updated: &dyn Fn(&str) -> i64) {
    let Some(db) = TestDb::create(server, tag) else { return };
    let dir = tempfile::tempdir().unwrap();
    let ops = small(&db.url(), &dir.path().join("results.db"));
    assert_eq!(ops[1]["cold"], false, "{}", ops[1]);
    assert!(ops[1]["cold_why"].as_str().unwrap().contains("spindle does not manage"), "{}", ops[1]);
    assert_eq!(count_updated(&db.name), 30_000, "the update went through every row");
}

#[cfg(feature = "postgres")]
#[test]
fn largeops_on_postgres() {
    on_server(&POSTGRES, "largeops", &|name| {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let conn = format!("host=127.0.0.1 user=root dbname={name}");
            let (client, c) = tokio_postgres::connect(&conn, tokio_postgres::NoTls).await.unwrap();
            tokio::spawn(c);
            let row =
                client.query_one("SELECT count(*) FROM spindle_customer WHERE c_data LIKE 'a%'", &[]).await.unwrap();
            row.get::<_, i64>(0)
        })
    });
}

#[cfg(feature = "mysql")]
#[test]
fn largeops_on_mariadb() {
    on_server(&MARIADB, "largeops", &|name| {
        use mysql_async::prelude::Queryable;
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let mut conn = mysql_async::Conn::from_url(format!("mysql://root@127.0.0.1:3306/{name}")).await.unwrap();
            let n: Option<i64> =
                conn.query_first("SELECT COUNT(*) FROM spindle_customer WHERE c_data LIKE 'a%'").await.unwrap();
            n.unwrap()
        })
    });
}

#[test]
fn largeops_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lo.db");
    small(&format!("sqlite://{}", path.display()), &dir.path().join("results.db"));
    let conn = rusqlite::Connection::open(&path).unwrap();
    let n: i64 =
        conn.query_row("SELECT count(*) FROM spindle_customer WHERE c_data LIKE 'a%'", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 30_000);
    let (bc, all): (i64, i64) = conn
        .query_row("SELECT sum(c_credit = 'BC'), count(*) FROM spindle_customer", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert!((2_500..=3_500).contains(&bc) && all == 30_000, "{bc} BC of {all}");
}

#[test]
fn largeops_bad_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let db = format!("sqlite://{}", dir.path().join("lo.db").display());
    for (args, needle) in [
        (vec!["--rows", "0"], "--rows"),
        (vec!["--batch", "0"], "--batch"),
        (vec!["--rows", "1000", "--batch", "5000"], "--batch"),
        (vec!["--settle", "later"], "--settle"),
    ] {
        let out = spindle_with_store(&store).args(["largeops", "--db", &db]).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let out =
        spindle_with_store(&store).args(["largeops", "--db", "postgres://nobody@127.0.0.1:1/x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!store.exists() && !dir.path().join("lo.db").exists(), "nothing is left behind");
}

/// `--repeat` runs the operations again on a table made anew, and `compare` judges each
/// operation against the same operation only.
#[test]
fn repeated_large_operations_are_compared_operation_by_operation() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    for (label, batch) in [("cache=a", "5000"), ("cache=b", "10000")] {
        let db = format!("sqlite://{}", dir.path().join(format!("{batch}.db")).display());
        let out = spindle_with_store(&store)
            .args(["largeops", "--db", &db, "--rows", "10000", "--batch", batch, "--settle", "0s", "--repeat", "2"])
            .args(["--label", label, "--quiet"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out =
        spindle_with_store(&store).args(["compare", "--a", "cache=a", "--b", "cache=b", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let by_op: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for op in ["load", "scan", "update", "checkpoint"] {
        let c = &by_op[op];
        assert_eq!((c["a_runs"].as_array().unwrap().len(), c["b_runs"].as_array().unwrap().len()), (2, 2), "{op}");
        // Repeats of one operation are repeats of one workload: the comparison is tested.
        assert_ne!(c["metrics"][0]["verdict"], "untested", "{op}: {c}");
    }
}
