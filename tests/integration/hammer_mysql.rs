//! Database Hammer on the real MariaDB of this machine (127.0.0.1:3306, root without a
//! password), in a database of the test's own (see server_db).

use crate::common::spindle_with_store;
use crate::server_db::{Server, TestDb};
use mysql_async::prelude::Queryable;

const ADMIN: &str = "mysql://root@127.0.0.1:3306";

fn admin(statements: &[String]) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    rt.block_on(async {
        let opts = mysql_async::Opts::from_url(ADMIN).map_err(|e| e.to_string())?;
        let mut conn = mysql_async::Conn::new(opts).await.map_err(|e| e.to_string())?;
        for sql in statements {
            conn.query_drop(sql).await.map_err(|e| e.to_string())?;
        }
        conn.disconnect().await.map_err(|e| e.to_string())
    })
}

pub(crate) static MARIADB: Server = Server { name: "MariaDB", url: ADMIN, admin, drop_options: "" };

#[test]
fn mariadb_hammer_loads_and_runs() {
    let Some(db) = TestDb::create(&MARIADB, "run") else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let hammer = |args: &[&str]| spindle_with_store(&store).arg("hammer").args(args).output().unwrap();

    let out = hammer(&["load", "--db", &db.url(), "--rows", "50K", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let load: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (load["details"]["kind"].as_str(), load["summary"]["ios"].as_u64()),
        (Some("hammer-load"), Some(50_000))
    );
    assert_eq!(hammer(&["load", "--db", &db.url(), "--rows", "50K"]).status.code(), Some(2));

    let out = hammer(&[
        "run",
        "--db",
        &db.url(),
        "--sessions",
        "3",
        "--duration",
        "800ms",
        "--warmup",
        "100ms",
        "--json",
        "--sample-interval",
        "100ms",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let spec = &r["details"]["spec"];
    assert_eq!((r["details"]["kind"].as_str(), spec["engine"].as_str()), (Some("hammer"), Some("mysql")));
    assert!(spec["durability"].as_str().unwrap().contains("innodb_flush_log_at_trx_commit = "), "{spec}");
    assert_eq!(r["threads"].as_array().unwrap().len(), 3);
    assert!(r["summary"]["read"]["ios"].as_u64().unwrap() > 0 && r["summary"]["write"]["ios"].as_u64().unwrap() > 0);
    assert_eq!(r["errors"].as_object().map(|e| e.len()), Some(0), "{}", r["errors"]);
    let counters = r["counters"]["counters"].as_array().unwrap();
    let commits = counters.iter().find(|c| c["path"] == "\\spindle:MariaDB\\Commits/sec").expect("database counters");
    assert!(commits["max"].as_f64().unwrap() > 0.0, "{commits}");

    let too_many = hammer(&["run", "--db", &db.url(), "--sessions", "5000", "--duration", "1s"]);
    assert_eq!(too_many.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&too_many.stderr).contains("max_connections"));
}

#[test]
fn mariadb_mistakes_are_named_without_the_password() {
    let Some(db) = TestDb::create(&MARIADB, "bad") else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let cases =
        [(format!("mysql://root:hunter2@127.0.0.1:3306/{}", db.name), "root:****"), (db.url(), "spindle hammer load")];
    for (url, needle) in cases {
        let out =
            spindle_with_store(&store).args(["hammer", "run", "--duration", "1s", "--db", &url]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{url}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle) && !err.contains("hunter2"), "{err}");
    }
}

/// Whether the server offers TLS (`have_ssl`).
fn offers_tls() -> bool {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let mut conn = mysql_async::Conn::new(mysql_async::Opts::from_url(ADMIN).unwrap()).await.unwrap();
        let have: Option<(String, String)> = conn.query_first("SHOW VARIABLES LIKE 'have_ssl'").await.unwrap();
        have.is_some_and(|(_, v)| v == "YES")
    })
}

/// A server without TLS (this machine's MariaDB as Debian installs it): a URL that requires
/// TLS is refused with the reason, and one that only prefers it falls back to plaintext.
/// (A managed instance, which speaks TLS, is tested in db_managed.)
#[test]
fn mariadb_without_tls_refuses_required_and_falls_back_when_preferred() {
    let Some(db) = TestDb::create(&MARIADB, "tls") else { return };
    if offers_tls() {
        spindle_testenv::unavailable("a MariaDB server without TLS", "this one has have_ssl = YES");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let logtest = |mode: &str| {
        spindle_with_store(&store)
            .args(["logtest", "--db", &format!("{}?ssl-mode={mode}", db.url())])
            .args(["--rows", "100", "--batch", "10", "--settle", "0s"])
            .output()
            .unwrap()
    };
    let required = logtest("REQUIRED");
    let err = String::from_utf8_lossy(&required.stderr);
    assert_eq!(required.status.code(), Some(2), "{err}");
    assert!(err.contains("does not offer TLS") && err.contains("ssl-mode=REQUIRED"), "{err}");
    let preferred = logtest("PREFERRED");
    assert!(preferred.status.success(), "{}", String::from_utf8_lossy(&preferred.stderr));
}
