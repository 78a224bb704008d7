//! Database Hammer on the real PostgreSQL of this machine (127.0.0.1:5432, trust auth), in a
//! database of the test's own (see server_db).

use crate::common::spindle_with_store;
use crate::server_db::{Server, TestDb};

const ADMIN: &str = "host=127.0.0.1 port=5432 user=root dbname=postgres";

fn admin(statements: &[String]) -> Result<(), String> {
    spindle_testenv::postgres_admin(ADMIN, statements)
}

pub(crate) static POSTGRES: Server =
    Server { name: "PostgreSQL", url: "postgres://root@127.0.0.1:5432", admin, drop_options: "WITH (FORCE)" };

#[test]
fn postgres_hammer_loads_and_runs() {
    let Some(db) = TestDb::create(&POSTGRES, "run") else { return };
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
    let again = hammer(&["load", "--db", &db.url(), "--rows", "50K"]);
    assert_eq!(again.status.code(), Some(2), "a loaded table is not loaded over");

    // Trust authentication ignores the password, so it can be given, and must be kept nowhere.
    // A busy backend publishes its statistics (commits among them) at most once a second, so
    // the run lasts long enough for every session to publish twice while measured.
    let with_password = db.url().replace("root@", "root:hunter2@");
    let out = hammer(&[
        "run",
        "--db",
        &with_password,
        "--sessions",
        "4",
        "--duration",
        "3s",
        "--warmup",
        "100ms",
        "--json",
        "--sample-interval",
        "100ms",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let spec = &r["details"]["spec"];
    assert_eq!((r["details"]["kind"].as_str(), spec["engine"].as_str()), (Some("hammer"), Some("postgres")));
    assert!(spec["durability"].as_str().unwrap().contains("synchronous_commit = "), "{spec}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("hunter2"), "the record has no password");
    assert!(!String::from_utf8_lossy(&std::fs::read(&store).unwrap()).contains("hunter2"), "nor does the store");
    assert_eq!(r["threads"].as_array().unwrap().len(), 4);
    assert!(r["summary"]["read"]["ios"].as_u64().unwrap() > 0 && r["summary"]["write"]["ios"].as_u64().unwrap() > 0);
    assert_eq!(r["errors"].as_object().map(|e| e.len()), Some(0), "{}", r["errors"]);
    let counters = r["counters"]["counters"].as_array().unwrap();
    let commits =
        counters.iter().find(|c| c["path"] == "\\spindle:PostgreSQL\\Commits/sec").expect("database counters");
    assert!(commits["max"].as_f64().unwrap() > 0.0, "{commits}");

    let too_many = hammer(&["run", "--db", &db.url(), "--sessions", "5000", "--duration", "1s"]);
    assert_eq!(too_many.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&too_many.stderr).contains("max_connections"));
}

#[test]
fn postgres_mistakes_are_named_without_the_password() {
    let Some(db) = TestDb::create(&POSTGRES, "bad") else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let cases = [
        (format!("postgres://nobody:hunter2@127.0.0.1:5432/{}", db.name), "nobody:****"),
        ("postgres://root:hunter2@127.0.0.1:5432/no_such_database_here".to_string(), "does not exist"),
        (db.url(), "spindle hammer load"),
    ];
    for (url, needle) in cases {
        let out =
            spindle_with_store(&store).args(["hammer", "run", "--duration", "1s", "--db", &url]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{url}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle) && !err.contains("hunter2"), "{err}");
    }
}

/// Whether the server's sessions of application `spindle` in `db` are encrypted: (sessions,
/// all of them over TLS).
fn spindle_sessions_over_tls(db: &str) -> (i64, bool) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(ADMIN, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        let row = client
            .query_one(
                "SELECT count(*), coalesce(bool_and(s.ssl), false) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                 WHERE a.application_name = 'spindle' AND a.datname = $1",
                &[&db],
            )
            .await
            .unwrap();
        (row.get(0), row.get(1))
    })
}

#[test]
fn postgres_sessions_speak_tls_when_the_url_asks_and_check_the_certificate() {
    let Some(db) = TestDb::create(&POSTGRES, "tls") else { return };
    // Debian's server runs with ssl = on and the snakeoil certificate (issued for localhost).
    let snakeoil = "/etc/ssl/certs/ssl-cert-snakeoil.pem";
    if !std::path::Path::new(snakeoil).exists() {
        spindle_testenv::unavailable("PostgreSQL with TLS", "no /etc/ssl/certs/ssl-cert-snakeoil.pem");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let load = spindle_with_store(&store)
        .args(["hammer", "load", "--db", &format!("{}?sslmode=require", db.url()), "--rows", "5K"])
        .output()
        .unwrap();
    assert!(load.status.success(), "{}", String::from_utf8_lossy(&load.stderr));
    // verify-ca: the chain is checked against the certificate itself; the name is not.
    let url = format!("{}?sslmode=verify-ca&sslrootcert={snakeoil}", db.url());
    let mut run = crate::common::spindle_process()
        .env("SPINDLE_STORE", &store)
        .args(["hammer", "run", "--db", &url, "--sessions", "2", "--duration", "3s", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Looked at while the sessions run (the run outlasts the wait: the server lists them first).
    let (sessions, encrypted) = loop {
        let (n, all) = spindle_sessions_over_tls(&db.name);
        if n >= 2 {
            break (n, all);
        }
        assert!(run.try_wait().unwrap().is_none(), "the run ended before its sessions were seen");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(encrypted, "{sessions} sessions, not all over TLS");
    let out = run.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // verify-full: the snakeoil certificate names localhost, not 127.0.0.1.
    let full = format!("{}?sslmode=verify-full&sslrootcert={snakeoil}", db.url());
    let out = spindle_with_store(&store).args(["hammer", "run", "--db", &full, "--duration", "1s"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("another host name"), "{err}");
}

/// Hammer's sessions (their own lean connections) authenticate with SCRAM-SHA-256, a managed
/// instance's only method, in plaintext and over TLS checked against the instance's own
/// certificate, and make their calls without a failure.
#[test]
fn postgres_sessions_authenticate_with_scram_in_plaintext_and_over_tls() {
    if !crate::common::installed("postgres") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (xdg, store) = (dir.path().join("xdg"), dir.path().join("results.db"));
    let spindle = || {
        let mut cmd = crate::common::spindle();
        cmd.env("XDG_DATA_HOME", &xdg).env("SPINDLE_STORE", &store);
        cmd
    };
    let up =
        spindle().args(["db", "up", "--engine", "postgres", "--data"]).arg(dir.path().join("pg")).output().unwrap();
    assert!(up.status.success(), "{}", String::from_utf8_lossy(&up.stderr));
    let url = String::from_utf8(up.stdout).unwrap().trim().to_string();
    let stderr = String::from_utf8_lossy(&up.stderr);
    let suffix = stderr.split("add ").nth(1).and_then(|s| s.split(" to the URL").next()).unwrap();
    let load = spindle().args(["hammer", "load", "--db", &url, "--rows", "5K"]).output().unwrap();
    assert!(load.status.success(), "{}", String::from_utf8_lossy(&load.stderr));
    for db in [url.clone(), format!("{url}{suffix}")] {
        let out = spindle()
            .args(["hammer", "run", "--db", &db, "--sessions", "3", "--duration", "1s", "--warmup", "0s", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{db}: {}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["errors"].as_object().map(|e| e.len()), Some(0), "{db}: {}", r["errors"]);
        assert!(r["summary"]["ios"].as_u64().unwrap() > 0, "{db}: {}", r["summary"]);
    }
    let down = spindle().args(["db", "down", "--all", "--remove"]).output().unwrap();
    assert!(down.status.success(), "{}", String::from_utf8_lossy(&down.stderr));
}
