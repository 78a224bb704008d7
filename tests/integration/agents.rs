//! One run measured by several agents through a store on this machine's PostgreSQL
//! (127.0.0.1:5432, trust auth; a database of each test's own): agents started as local
//! processes, or by hand as `--emit` prints them, join, wait at the barrier, start together
//! and save their shares; the merged run is their exact sum. A killed agent makes the run
//! partial and stops the others; a barrier that times out names the missing agent; bad
//! agents are refused at the door. The store's password (ignored by trust auth) never shows.

use crate::agents_common::{
    agent, emitting_coordinator, emitting_coordinator_at, record, rows, run_of, url_with_password, wait_for,
};
use crate::common::{spindle, spindle_process};
use crate::hammer_postgres::POSTGRES;
use crate::server_db::TestDb;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;

/// Bucket -> count of a sparse histogram in a record's JSON.
fn buckets(h: &Value) -> BTreeMap<u64, u64> {
    h["buckets"].as_array().unwrap().iter().map(|b| (b[0].as_u64().unwrap(), b[1].as_u64().unwrap())).collect()
}

#[test]
fn four_local_agents_make_one_run_whose_histogram_is_their_exact_sum() {
    let Some(db) = TestDb::create(&POSTGRES, "agents") else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = url_with_password(&db);
    let out = spindle()
        .current_dir(dir.path())
        .args(["io", "--engine", "null", "--duration", "1s", "--size", "1M", "--agents", "4", "--label", "san=a"])
        .arg("--target")
        .arg(dir.path().join("x.dat"))
        .env("SPINDLE_STORE", &store)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(!format!("{stdout}{stderr}").contains("sekrit-pw"), "no password shown:\n{stdout}{stderr}");
    assert!(stderr.contains("run 1: every agent is ready"), "{stderr}");

    let ids: Vec<(i64, String)> = rows(&db, "SELECT id, point FROM runs ORDER BY id")
        .into_iter()
        .map(|r| (r[0].parse().unwrap(), r[1].clone()))
        .collect();
    assert_eq!(ids.len(), 5, "four shares and the merged run: {ids:?}");
    let merged_id = ids.iter().find(|(_, p)| p == "all agents").expect("the merged run").0;
    let merged = record(&store, merged_id);
    let shares: Vec<Value> = ids.iter().filter(|(id, _)| *id != merged_id).map(|(id, _)| record(&store, *id)).collect();

    let mut sum: BTreeMap<u64, u64> = BTreeMap::new();
    for share in &shares {
        for (b, n) in buckets(&share["summary"]["read"]["histogram"]) {
            *sum.entry(b).or_default() += n;
        }
    }
    assert_eq!(buckets(&merged["summary"]["read"]["histogram"]), sum, "bucket for bucket");
    let ios: u64 = shares.iter().map(|s| s["summary"]["ios"].as_u64().unwrap()).sum();
    assert_eq!(merged["summary"]["ios"].as_u64(), Some(ios));
    assert_eq!(merged["labels"]["san"], "a");
    assert_eq!(merged["labels"]["agents"], "4");
    assert_eq!(merged["status"], "complete");
    assert_eq!(merged["targets"][0]["path"], dir.path().join("x.dat").display().to_string(), "the path asked for");
    let agents = &merged["agents"];
    assert_eq!(agents["agents"].as_array().unwrap().len(), 4);
    assert!(agents["start_skew_us"].as_f64().unwrap() >= 0.0);
    let mut indexes: Vec<&str> = shares.iter().map(|s| s["labels"]["agent"].as_str().unwrap()).collect();
    indexes.sort_unstable();
    assert_eq!(indexes, ["0", "1", "2", "3"]);
    assert_eq!(rows(&db, "SELECT state FROM agent_runs")[0][0], "complete");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "every agent's test file removed: {left:?}");
    let stored = rows(&db, "SELECT string_agg(json, '') FROM records")[0][0].clone();
    assert!(!stored.contains("sekrit-pw"), "no password in any record");
}

#[test]
fn agents_started_by_hand_are_checked_at_the_door_and_start_together() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_door") else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = db.url();
    let (coordinator, printed) = emitting_coordinator(&store, dir.path(), "2", &["--ready-timeout", "2m"]);
    let run = run_of(&printed);
    assert_eq!(printed.matches("spindle agent --run").count(), 2, "{printed}");
    let mut first = agent(&store, dir.path(), run, Some("0")).stderr(Stdio::piped()).spawn().unwrap();
    wait_for(&db, "SELECT state FROM agents WHERE idx = 0", "ready");

    for (index, why) in [("0", "already taken by another agent"), ("2", "index 2 is not one of them")] {
        let out = agent(&store, dir.path(), run, Some(index)).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(why), "{err}");
    }
    let out = agent(&store, dir.path(), run + 100, Some("0")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("no run {} of agents", run + 100)));

    // The second agent takes its index from a Kubernetes Indexed Job's variable.
    let second = agent(&store, dir.path(), run, None).env("JOB_COMPLETION_INDEX", "1").output().unwrap();
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stderr));
    assert!(first.wait().unwrap().success());
    let done = coordinator.wait_with_output().unwrap();
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    assert_eq!(rows(&db, "SELECT state FROM agent_runs")[0][0], "complete");
    let late = rows(&db, "SELECT started_ns - (SELECT start_at_ns FROM agent_runs) FROM agents ORDER BY idx");
    for r in &late {
        assert!(
            r[0].parse::<i64>().unwrap() >= -1_000_000,
            "no agent started before the instant (less its clock's error): {late:?}"
        );
    }
    let out = agent(&store, dir.path(), run, Some("0")).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a finished run takes no agent");
    assert!(String::from_utf8_lossy(&out.stderr).contains("is complete"));
}

#[test]
fn a_barrier_that_times_out_names_the_missing_agent_and_measures_nothing() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_barrier") else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = db.url();
    let (coordinator, printed) = emitting_coordinator(&store, dir.path(), "2", &["--ready-timeout", "2s"]);
    let run = run_of(&printed);
    let first = agent(&store, dir.path(), run, Some("0")).output().unwrap();
    let done = coordinator.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(2), "nothing was measured: {err}");
    assert!(err.contains("agent 1 not ready after 2 s") && err.contains("nothing was measured"), "{err}");
    assert!(!first.status.success(), "the waiting agent stopped too");
    assert_eq!(rows(&db, "SELECT state FROM agent_runs")[0][0], "aborted");
    assert_eq!(rows(&db, "SELECT count(*) FROM runs")[0][0], "0", "nothing saved as measured");
}

#[test]
fn a_killed_agent_makes_the_run_partial_and_the_others_stop() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_kill") else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = db.url();
    let coordinator = spindle_process()
        .current_dir(dir.path())
        .args(["io", "--engine", "null", "--duration", "60s", "--size", "1M", "--agents", "4", "--target", "x.dat"])
        .env("SPINDLE_STORE", &store)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(&db, "SELECT count(*) FROM agents WHERE state = 'running'", "4");
    let pid: i32 = rows(&db, "SELECT pid FROM agents WHERE idx = 2")[0][0].parse().unwrap();
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let done = coordinator.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(1), "{err}");
    assert!(err.contains("agent 2 on") && err.contains("lost at"), "{err}");
    let run = &rows(&db, "SELECT state, note FROM agent_runs")[0];
    assert_eq!(run[0], "partial");
    assert!(run[1].contains("agent 2"), "{run:?}");
    let shares = rows(&db, "SELECT status, measured_seconds FROM runs WHERE point LIKE 'agent %'");
    assert_eq!(shares.len(), 3, "the three others saved what they measured: {shares:?}");
    for s in &shares {
        assert_eq!(s[0], "interrupted", "{shares:?}");
        assert!(s[1].parse::<f64>().unwrap() < 60.0, "stopped before their end: {shares:?}");
    }
    let merged = rows(&db, "SELECT status FROM runs WHERE point = 'all agents'");
    assert_eq!(merged, [["interrupted"]], "nothing reported as complete");
}

#[test]
fn agents_need_a_server_store_and_sound_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file_store = dir.path().join("s.db");
    for (args, says) in [
        (&["--agents", "2"][..], "--store"),
        (&["--agents", "0", "--store", "postgres://root@127.0.0.1/x"][..], "--agents 0"),
        (&["--launch", "ssh"][..], "--launch goes with --agents"),
        (&["--agents", "2", "--launch", "k8s", "--store", "postgres://root@127.0.0.1/x"][..], "--emit"),
        (&["--agents", "2", "--launch", "k8s", "--emit", "--store", "postgres://root@127.0.0.1/x"][..], "--image"),
        (&["--agents", "2", "--image", "x", "--store", "postgres://root@127.0.0.1/x"][..], "--image goes with"),
        (
            &["--agents", "2", "--launch", "k8s", "--emit", "--image", "x", "--volume-claim", "Fast_SSD"][..],
            "--volume-claim Fast_SSD",
        ),
        (&["--agents", "2", "--launch", "ssh", "--store", "postgres://root@127.0.0.1/x"][..], "--hosts"),
        (&["--agents", "2", "--repeat", "2", "--store", "postgres://root@127.0.0.1/x"][..], "one job"),
    ] {
        let out = spindle()
            .current_dir(dir.path())
            .args(["io", "--engine", "null", "--duration", "1s", "--target", "x.dat"])
            .env("SPINDLE_STORE", &file_store)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!dir.path().join("x.dat").exists(), "refused before any I/O");
    }
    let out = spindle().args(["agent", "--run", "1", "--index", "0", "--store"]).arg(&file_store).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = spindle()
        .args(["agent", "--run", "1", "--index", "0", "--store", "postgres://root:sekrit-pw@127.0.0.1:1/x"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "an unreachable store: {err}");
    assert!(!err.contains("sekrit-pw"), "{err}");
}

#[test]
fn the_emitted_job_is_an_indexed_job_of_the_image_with_a_volume_and_the_store_from_a_secret() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_k8s") else { return };
    let dir = tempfile::tempdir().unwrap();
    // The target's directory is on the pods, not here: planned, not refused.
    let (mut coordinator, printed) = emitting_coordinator_at(
        &url_with_password(&db),
        dir.path(),
        "/data/t.dat",
        "3",
        &["--launch", "k8s", "--image", "registry.example/spindle:1", "--volume-claim", "fast-ssd"],
    );
    let _ = coordinator.kill();
    let _ = coordinator.wait();
    let golden = include_str!("agents-job.yaml").replace("{version}", env!("CARGO_PKG_VERSION"));
    assert_eq!(printed, golden, "the Job as tests/integration/agents-job.yaml has it");
    assert!(!printed.contains("sekrit-pw") && !printed.contains("127.0.0.1"), "no store URL in the Job");
    let job = rows(&db, &format!("SELECT agents, state FROM agent_runs WHERE id = {}", run_of(&printed)));
    assert_eq!(job, [["3", "waiting"]], "the run the Job names waits for its agents");
    kubernetes_validates(dir.path(), &printed);
}

/// Kubernetes' own schema for the Job, checked offline by kubernetes-validate (strict:
/// a field Kubernetes does not know fails too); scripts/test installs it.
fn kubernetes_validates(dir: &Path, yaml: &str) {
    let file = dir.join("job.yaml");
    std::fs::write(&file, yaml).unwrap();
    let program = std::env::var("SPINDLE_KUBERNETES_VALIDATE").unwrap_or_else(|_| "kubernetes-validate".into());
    match std::process::Command::new(&program).arg("--strict").arg(&file).output() {
        Ok(out) => assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => spindle_testenv::unavailable("kubernetes-validate", format!("{program}: {e}")),
    }
}

#[test]
fn hammer_sessions_are_split_among_agents_with_the_servers_count_beside_theirs() {
    let Some(store) = TestDb::create(&POSTGRES, "agents_hstore") else { return };
    let Some(db) = TestDb::create(&POSTGRES, "agents_hdb") else { return };
    let dir = tempfile::tempdir().unwrap();
    let load = spindle()
        .args(["hammer", "load", "--rows", "10000", "--quiet", "--db", &db.url()])
        .env("SPINDLE_STORE", store.url())
        .output()
        .unwrap();
    assert!(load.status.success(), "{}", String::from_utf8_lossy(&load.stderr));
    let out = spindle()
        .current_dir(dir.path())
        .args(["hammer", "run", "--sessions", "5", "--agents", "2", "--duration", "2s", "--warmup", "500ms", "--json"])
        .args(["--db", &url_with_password(&db)])
        .env("SPINDLE_STORE", store.url())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let merged: Value = serde_json::from_slice(&out.stdout).unwrap();
    let merged = if merged.is_array() { merged[0].clone() } else { merged };
    assert_eq!(merged["status"], "complete");
    assert_eq!(merged["details"]["spec"]["sessions"], 5, "every agent's sessions");
    assert_eq!(merged["threads"].as_array().unwrap().len(), 5, "a row per session");
    let start_at = merged["agents"]["start_at_ns"].as_u64().unwrap();
    let common = spindle_model::time::rfc3339_utc(std::time::UNIX_EPOCH + std::time::Duration::from_nanos(start_at));
    assert_eq!(merged["started_at"], common.as_str(), "the run began at the agents' common start");
    let said = merged["targets"][0]["workload"].as_str().unwrap();
    assert!(said.starts_with("Hammer: 5 sessions,"), "the whole run's sessions, not one share's: {said}");
    let shares = rows(
        &store,
        "SELECT json::json->'details'->'spec'->>'sessions' FROM records JOIN runs ON id = run_id WHERE point LIKE 'agent %' ORDER BY point",
    );
    assert_eq!(shares, [["3"], ["2"]], "the sessions split as evenly as they go");
    let server = &merged["agents"]["server"];
    assert_eq!(server["counter"], "pg_stat_database xact_commit + xact_rollback");
    let (counted, theirs) = (server["server"].as_f64().unwrap(), server["agents"].as_f64().unwrap());
    let calls = merged["summary"]["ios"].as_f64().unwrap();
    assert_eq!(theirs, calls, "every call is a transaction on PostgreSQL");
    // The server's count also holds what it published late of the warm-up (at most its
    // 500 ms) and each agent's counter readings: never under the agents', never twice theirs.
    assert!(counted >= 0.9 * theirs && counted <= 2.0 * theirs, "server {counted}, agents {theirs}");
    // Every agent's sessions, and not the connection each agent reads the server's counters on.
    assert_eq!(server["sessions_at_start"].as_u64().unwrap(), 5, "{server}");
    let stored = rows(&store, "SELECT spec FROM agent_runs")[0][0].clone();
    assert!(
        !stored.contains("sekrit-pw") && !stderr.contains("sekrit-pw"),
        "the database's password is the agents' environment's, not the store's"
    );
}

/// A private instance spindle started (`db up`), taken down and removed when dropped.
struct Instance {
    xdg: std::path::PathBuf,
    url: String,
}

impl Instance {
    fn up(dir: &std::path::Path) -> Instance {
        let xdg = dir.join("xdg");
        let data = dir.join("pg");
        // The server runs as postgres, which must reach its directories.
        std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let up = spindle()
            .env("XDG_DATA_HOME", &xdg)
            .args(["db", "up", "--engine", "postgres", "--data"])
            .arg(&data)
            .output()
            .unwrap();
        assert!(up.status.success(), "{}", String::from_utf8_lossy(&up.stderr));
        Instance { xdg, url: String::from_utf8(up.stdout).unwrap().trim().to_string() }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = spindle().env("XDG_DATA_HOME", &self.xdg).args(["db", "down", "--all", "--remove"]).output();
    }
}

#[test]
fn four_agents_hammer_a_private_instance_whose_password_stays_theirs() {
    let dir = tempfile::tempdir().unwrap();
    let instance = Instance::up(dir.path());
    let url = &instance.url;
    let password = url.split(':').nth(2).and_then(|p| p.split('@').next()).unwrap().to_string();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let sql = |target: &str, statement: &str| -> Vec<String> {
        rt.block_on(async {
            let (client, conn) = tokio_postgres::connect(target, tokio_postgres::NoTls).await.unwrap();
            tokio::spawn(conn);
            client
                .simple_query(statement)
                .await
                .unwrap()
                .into_iter()
                .filter_map(|m| match m {
                    tokio_postgres::SimpleQueryMessage::Row(r) => Some(r.get(0).unwrap_or("").to_string()),
                    _ => None,
                })
                .collect()
        })
    };
    sql(url, "CREATE DATABASE results");
    let store = format!("{}/results", url.rsplit_once('/').unwrap().0);
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let load = spindle()
        .args(["hammer", "load", "--rows", "20000", "--quiet", "--db", url])
        .env("SPINDLE_STORE", &store)
        .output()
        .unwrap();
    assert!(load.status.success(), "{}", String::from_utf8_lossy(&load.stderr));
    let out = spindle()
        .current_dir(&work)
        .args(["hammer", "run", "--sessions", "8", "--agents", "4", "--duration", "2s", "--warmup", "500ms", "--json"])
        .args(["--db", url])
        .env("SPINDLE_STORE", &store)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(!stdout.contains(&password) && !stderr.contains(&password), "the instance's password never shown");
    let merged: Value = serde_json::from_slice(&out.stdout).unwrap();
    let merged = if merged.is_array() { merged[0].clone() } else { merged };
    assert_eq!(merged["status"], "complete");
    assert_eq!(merged["details"]["spec"]["sessions"], 8);
    assert_eq!(merged["agents"]["agents"].as_array().unwrap().len(), 4);
    let server = &merged["agents"]["server"];
    assert!(server["sessions_at_start"].as_u64().unwrap() >= 8, "{server}");
    let stored = sql(&store, "SELECT spec || (SELECT string_agg(json, '') FROM records) FROM agent_runs");
    assert!(!stored[0].contains(&password), "the store keeps no password of the database");
    assert_eq!(sql(&store, "SELECT count(*) FROM runs WHERE point LIKE 'agent %'"), ["4"]);
}
