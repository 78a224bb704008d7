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
        // A checkpoint processes no rows: it is compared on its duration (and the MB/s its
        // volumes were written at, where they were counted), the others on their rows/s.
        let metrics: Vec<&str> =
            c["metrics"].as_array().unwrap().iter().map(|m| m["metric"].as_str().unwrap()).collect();
        match op {
            "checkpoint" => assert!(metrics[0] == "duration" && !metrics.contains(&"iops"), "{op}: {metrics:?}"),
            _ => assert_eq!(metrics, ["iops"], "{op}"),
        }
    }
}

/// A volume's counts in /proc/diskstats: reads, sectors read, writes, sectors written.
#[cfg(feature = "postgres")]
fn diskstats(device: &str) -> [u64; 4] {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap();
    let line = text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).find(|f| f[2] == device).unwrap();
    let n = |i: usize| line[i].parse::<u64>().unwrap();
    [n(3), n(5), n(7), n(9)]
}

/// Stops the managed instances of a scratch XDG directory, whatever the test did.
#[cfg(feature = "postgres")]
struct Down(std::path::PathBuf);

#[cfg(feature = "postgres")]
impl Drop for Down {
    fn drop(&mut self) {
        let _ =
            crate::common::spindle().env("XDG_DATA_HOME", &self.0).args(["db", "down", "--all", "--remove"]).output();
    }
}

/// A managed PostgreSQL with its data on one loop device and its WAL on another: each
/// operation's record has a data row and a log row, each exactly what its volume's counters
/// recorded, every view shows those numbers, and none names a rate of I/Os.
#[cfg(feature = "postgres")]
#[test]
fn largeops_shows_data_and_log_apart_on_their_own_volumes() {
    use crate::common::{Ext4, Loop, installed, spindle};
    if !installed("postgres") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let volume = |name: &str| {
        let device = Loop::over(dir.path().join(format!("{name}.img")), 1 << 30, &[])?;
        let kernel = device.0.trim_start_matches("/dev/").to_string();
        Some((kernel, Ext4::on(device)?))
    };
    let (Some((data_dev, data)), Some((log_dev, log))) = (volume("data"), volume("log")) else { return };
    let (xdg, store) = (dir.path().join("xdg"), dir.path().join("results.db"));
    let up = spindle()
        .env("XDG_DATA_HOME", &xdg)
        .args(["db", "up", "--engine", "postgres", "--data"])
        .arg(data.mount.join("pg"))
        .arg("--wal")
        .arg(log.mount.join("wal"))
        .output()
        .unwrap();
    assert!(up.status.success(), "{}", String::from_utf8_lossy(&up.stderr));
    let _down = Down(xdg.clone());
    let url = String::from_utf8(up.stdout).unwrap().trim().to_string();

    let before = [diskstats(&data_dev), diskstats(&log_dev)];
    let out = spindle()
        .env("XDG_DATA_HOME", &xdg)
        .env("SPINDLE_STORE", &store)
        .args(["largeops", "--db", &url, "--rows", "20000", "--batch", "5000", "--settle", "0s", "--json"])
        .output()
        .unwrap();
    let after = [diskstats(&data_dev), diskstats(&log_dev)];
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ops: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ops.len(), 4);

    let mut summed = [[0u64; 4]; 2];
    for op in &ops {
        let name = op["operation"].as_str().unwrap();
        let roles = op["roles"].as_array().unwrap();
        let got: Vec<(&str, &str)> =
            roles.iter().map(|r| (r["role"].as_str().unwrap(), r["devices"][0].as_str().unwrap())).collect();
        assert_eq!(got, [("data", data_dev.as_str()), ("log", log_dev.as_str())], "{name}: {op}");
        for (i, (role, dev)) in roles.iter().zip([&data_dev, &log_dev]).enumerate() {
            // The role's figures are its volume's exact counts, as recorded, its writes those
            // that carried data (the writes of no bytes counted for flushes apart).
            let v = op["volumes"].as_array().unwrap().iter().find(|v| v["device"] == dev.as_str()).unwrap();
            for key in ["reads", "bytes_read", "bytes_written", "flushes"] {
                assert_eq!(role[key], v[key], "{name} {key}: {op}");
            }
            let empty = v["empty_writes"].as_u64().unwrap_or(0);
            assert_eq!(role["writes"].as_u64(), Some(v["writes"].as_u64().unwrap() - empty), "{name}: {op}");
            let n = |key: &str| role[key].as_u64().unwrap();
            for (k, key) in ["reads", "bytes_read", "writes", "bytes_written"].iter().enumerate() {
                summed[i][k] += if key.starts_with("bytes") { n(key) / 512 } else { n(key) };
            }
        }
    }
    // The operations' spans lie inside the run's: each volume's counts over the operations are
    // at most what its counters moved over the whole run.
    for (i, dev) in [&data_dev, &log_dev].iter().enumerate() {
        for k in 0..4 {
            let delta = after[i][k] - before[i][k];
            assert!(
                summed[i][k] <= delta,
                "{dev} field {k}: {} over the operations, {delta} over the run",
                summed[i][k]
            );
        }
    }
    let role = |op: usize, role: usize, key: &str| ops[op]["roles"][role][key].as_u64().unwrap();
    assert!(role(0, 1, "writes") > 0 && role(0, 1, "bytes_written") > 0, "the load wrote the log: {}", ops[0]);
    assert!(role(3, 0, "writes") > 0, "the checkpoint wrote the data: {}", ops[3]);

    // Every view shows what was recorded: runs show's text has each role's reads and writes.
    let runs = crate::common::runs_in(&store);
    assert_eq!(runs.len(), 4);
    for run in &runs {
        let id = run["id"].to_string();
        let shown = spindle().env("SPINDLE_STORE", &store).args(["runs", "show", &id]).output().unwrap();
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(!text.contains("IOs/sec"), "{text}");
        let record: serde_json::Value = serde_json::from_slice(
            &spindle().env("SPINDLE_STORE", &store).args(["runs", "show", &id, "--json"]).output().unwrap().stdout,
        )
        .unwrap();
        for (r, dev) in record["details"]["figures"]["roles"].as_array().unwrap().iter().zip([&data_dev, &log_dev]) {
            let label = format!("{} ({dev})", r["role"].as_str().unwrap());
            let line =
                text.lines().find(|l| l.trim_start().starts_with(&label)).unwrap_or_else(|| panic!("{label}: {text}"));
            let figures: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(figures[2..4], [r["reads"].to_string(), r["writes"].to_string()], "{line}");
        }
    }
    let list = spindle().env("SPINDLE_STORE", &store).args(["runs", "list"]).output().unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(list.contains("rows/sec") && !list.contains("IOs/sec"), "{list}");
    let lines: Vec<&str> = list.lines().collect();
    let at = lines.iter().position(|l| l.contains("op=checkpoint")).unwrap();
    assert_eq!(lines[at - 1].split_whitespace().nth(5), Some("-"), "the checkpoint has no rate: {list}");
}
