//! A run of agents counted right: Database Hammer's 8 sessions split between 2 agents are 8 in
//! the merged run (its spec, its words, its rows), on PostgreSQL, MariaDB and SQLite; the
//! server's count of sessions at the window's start is the Hammer sessions only, not the
//! connection each agent reads the server's counters on; and the user's labels are on every
//! share as on the merged run. The store is a database of the test's own on this machine's
//! PostgreSQL.

use crate::agents_common::{rows, url_with_password};
use crate::common::spindle;
use crate::hammer_postgres::POSTGRES;
use crate::server_db::TestDb;
use serde_json::Value;
use std::path::Path;

/// `hammer load` then `hammer run --sessions 8 --agents 2 --label team=storage` on `db`, the
/// store `store`: the merged record, checked for what every engine's must say.
fn eight_sessions_on_two_agents(store: &TestDb, db: &str, dir: &Path) -> Value {
    let load = spindle()
        .args(["hammer", "load", "--rows", "10000", "--quiet", "--db", db])
        .env("SPINDLE_STORE", store.url())
        .output()
        .unwrap();
    assert!(load.status.success(), "{}", String::from_utf8_lossy(&load.stderr));
    let out = spindle()
        .current_dir(dir)
        .args(["hammer", "run", "--sessions", "8", "--agents", "2", "--duration", "2s", "--warmup", "500ms"])
        .args(["--label", "team=storage", "--json", "--db", db])
        .env("SPINDLE_STORE", store.url())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("merged from 2 of 2 agents' shares"), "{stderr}");
    let merged: Value = serde_json::from_slice(&out.stdout).unwrap();
    let merged = if merged.is_array() { merged[0].clone() } else { merged };
    crate::io_output::assert_valid(&merged);
    assert_eq!(merged["status"], "complete");
    assert_eq!(merged["details"]["spec"]["sessions"], 8, "both agents' sessions, not one's");
    let said = merged["targets"][0]["workload"].as_str().unwrap();
    assert!(said.starts_with("Hammer: 8 sessions,"), "{said}");
    assert_eq!(merged["threads"].as_array().unwrap().len(), 8, "a row per session");
    let agents = &merged["agents"];
    assert_eq!((agents["agents_asked"].as_u64(), agents["agents_measured"].as_u64()), (Some(2), Some(2)));
    assert_eq!(merged["labels"]["agents"], "2");
    assert_eq!(merged["labels"]["agents.measured"], "2");
    let shares = rows(
        store,
        "SELECT point, json::json->'details'->'spec'->>'sessions' FROM records JOIN runs ON id = run_id \
         WHERE point LIKE 'agent %' ORDER BY point",
    );
    assert_eq!(shares, [["agent 0", "4"], ["agent 1", "4"]], "each share is its own half");
    let team = rows(
        store,
        "SELECT point, value FROM runs JOIN labels ON labels.run_id = runs.id WHERE key = 'team' ORDER BY point",
    );
    assert_eq!(
        team,
        [["agent 0", "storage"], ["agent 1", "storage"], ["all agents", "storage"]],
        "the user's label on every share, as on the merged run"
    );
    merged
}

#[test]
fn eight_hammer_sessions_on_two_agents_are_eight_in_the_merged_run_on_postgres() {
    let Some(store) = TestDb::create(&POSTGRES, "agents_c8_store") else { return };
    let Some(db) = TestDb::create(&POSTGRES, "agents_c8_db") else { return };
    let dir = tempfile::tempdir().unwrap();
    let merged = eight_sessions_on_two_agents(&store, &url_with_password(&db), dir.path());
    // Each agent's counters connection is named and left out: 8 whatever the agents' number.
    assert_eq!(merged["agents"]["server"]["sessions_at_start"], 8, "{}", merged["agents"]);
}

#[cfg(feature = "mysql")]
#[test]
fn eight_hammer_sessions_on_two_agents_are_eight_in_the_merged_run_on_mariadb() {
    use crate::hammer_mysql::MARIADB;
    let Some(store) = TestDb::create(&POSTGRES, "agents_c8m_store") else { return };
    let Some(db) = TestDb::create(&MARIADB, "agents_c8m_db") else { return };
    let dir = tempfile::tempdir().unwrap();
    let merged = eight_sessions_on_two_agents(&store, &db.url(), dir.path());
    let server = &merged["agents"]["server"];
    assert_eq!(server["counter"], "Com_commit");
    // Each agent's counters connection joins no database, so it is not one of the database's
    // sessions: 8, not 8 + 2.
    assert_eq!(server["sessions_at_start"], 8, "{server}");
}

#[test]
fn eight_hammer_sessions_on_two_agents_are_eight_in_the_merged_run_on_sqlite() {
    let Some(store) = TestDb::create(&POSTGRES, "agents_c8s_store") else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("hammer.db").display());
    let merged = eight_sessions_on_two_agents(&store, &db, dir.path());
    assert!(merged["agents"].get("server").is_none(), "SQLite has no server to count");
}
