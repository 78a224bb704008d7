//! What the tests of runs of many agents share: a store in a test database of this machine's
//! PostgreSQL, read with SQL; the coordinator started with `--emit`; agents started by hand.

use crate::common::{spindle, spindle_process};
use crate::server_db::TestDb;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The test database's URL with a password trust auth ignores: it must never be shown.
pub(crate) fn url_with_password(db: &TestDb) -> String {
    db.url().replacen("root@", "root:sekrit-pw@", 1)
}

/// Rows of `sql` in the test's database, each column as text ("" for NULL).
pub(crate) fn rows(db: &TestDb, sql: &str) -> Vec<Vec<String>> {
    try_rows(db, sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// As `rows`, or the server's error (a table spindle has not made yet).
pub(crate) fn try_rows(db: &TestDb, sql: &str) -> Result<Vec<Vec<String>>, tokio_postgres::Error> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(&db.url(), tokio_postgres::NoTls).await?;
        tokio::spawn(conn);
        Ok(client
            .simple_query(sql)
            .await?
            .into_iter()
            .filter_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(r) => {
                    Some((0..r.len()).map(|i| r.get(i).unwrap_or("").to_string()).collect())
                }
                _ => None,
            })
            .collect())
    })
}

/// Waits (up to a minute) until `sql`'s first column of its first row is `want`.
pub(crate) fn wait_for(db: &TestDb, sql: &str, want: &str) {
    let since = Instant::now();
    let first = || try_rows(db, sql).ok()?.into_iter().next()?.into_iter().next();
    while first().as_deref() != Some(want) {
        assert!(since.elapsed() < Duration::from_secs(60), "{sql} never gave {want}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(crate) fn record(store: &str, id: i64) -> Value {
    let out = spindle().args(["runs", "show", &id.to_string(), "--json", "--store", store]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `spindle io --agents N --emit` as a child: the coordinator, its run's id read from what
/// it printed.
pub(crate) fn emitting_coordinator(store: &str, dir: &Path, agents: &str, extra: &[&str]) -> (Child, String) {
    emitting_coordinator_at(store, dir, &dir.join("x.dat").to_string_lossy(), agents, extra)
}

/// `emitting_coordinator` with its test file at `target`.
pub(crate) fn emitting_coordinator_at(
    store: &str,
    dir: &Path,
    target: &str,
    agents: &str,
    extra: &[&str],
) -> (Child, String) {
    let mut child = spindle_process()
        .current_dir(dir)
        .args(["io", "--engine", "null", "--duration", "1s", "--size", "1M", "--agents", agents, "--emit"])
        .args(["--target", target])
        .args(extra)
        .env("SPINDLE_STORE", store)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut printed = String::new();
    child.stdout.take().unwrap().read_to_string(&mut printed).unwrap();
    (child, printed)
}

/// The run's id in what `--emit` printed (`--run 7`, or `"--run", "7"` in a Job).
pub(crate) fn run_of(printed: &str) -> i64 {
    let after = printed.split("--run").nth(1).expect("a run id printed");
    after
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

pub(crate) fn agent(store: &str, dir: &Path, run: i64, index: Option<&str>) -> std::process::Command {
    let mut cmd = spindle_process();
    cmd.current_dir(dir).args(["agent", "--run", &run.to_string()]).env("SPINDLE_STORE", store);
    if let Some(i) = index {
        cmd.args(["--index", i]);
    }
    cmd
}
