//! `spindle ab` with `[database]` sides: the large operations compared operation by operation,
//! Hammer on instances spindle starts with each side's settings, a comparison per session
//! count, and every mistake in a database side refused before anything runs.

use crate::common::spindle_with_store;
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn large_operations_are_compared_operation_by_operation() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let side = |name: &str, batch: u32| {
        let db = dir.path().join(format!("{name}.db"));
        let text = format!(
            "[database]\nurl = \"sqlite://{}\"\nworkload = \"largeops\"\nrows = 20000\nbatch = {batch}\nsettle = \"0s\"\n",
            db.display()
        );
        write(dir.path(), &format!("{name}.toml"), &text)
    };
    let (a, b) = (side("a", 5000), side("b", 20000));
    let out = spindle_with_store(&store).arg("ab").args([&a, &b]).args(["--rounds", "2", "--json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("batch: A 5000; B 20000"), "the difference is said first: {stderr}");
    let by_part: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let parts: Vec<&String> = by_part.as_object().unwrap().keys().collect();
    assert_eq!(parts.len(), 4, "{parts:?}");
    for op in ["load", "scan", "update", "checkpoint"] {
        let c = &by_part[op];
        assert_eq!(c["basis"], "paired", "{op}: {c}");
        assert_eq!(c["counts"], "rows", "{op}");
        assert_eq!((c["a_runs"].as_array().unwrap().len(), c["b_runs"].as_array().unwrap().len()), (2, 2), "{op}");
    }
    // Every run is kept with its side and round, one group per operation.
    let list = spindle_with_store(&store).args(["runs", "list", "--json"]).output().unwrap();
    let runs: Vec<serde_json::Value> = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(runs.len(), 16);
    let mut groups: Vec<i64> = runs.iter().map(|r| r["group"].as_i64().unwrap()).collect();
    groups.sort_unstable();
    groups.dedup();
    assert_eq!(groups.len(), 4, "{runs:?}");
}

#[cfg(feature = "postgres")]
#[test]
fn hammer_sides_on_instances_spindle_starts_are_compared_per_session_count() {
    if std::fs::read_dir("/usr/lib/postgresql").is_err() {
        spindle_testenv::unavailable("PostgreSQL server binaries", "not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let volume = dir.path().join("vol");
    std::fs::create_dir(&volume).unwrap();
    // The server runs as postgres when spindle runs as root: it must reach its directory.
    let _ = std::process::Command::new("chmod").args(["755", &dir.path().display().to_string()]).status();
    let _ = std::process::Command::new("chmod").args(["777", &volume.display().to_string()]).status();
    let side = |name: &str, work_mem: &str| {
        let text = format!(
            "duration = \"300ms\"\nwarmup = \"0s\"\n\n[database]\nengine = \"postgres\"\ndir = \"{}\"\nworkload = \"hammer\"\nrows = 2000\nsessions = \"2,4\"\n\n[database.settings]\nwork_mem = \"{work_mem}\"\n",
            volume.display()
        );
        write(dir.path(), &format!("{name}.toml"), &text)
    };
    let (a, b) = (side("a", "4MB"), side("b", "8MB"));
    let store = dir.path().join("results.db");
    let out = spindle_with_store(&store)
        .env("XDG_DATA_HOME", dir.path().join("xdg"))
        .arg("ab")
        .args([&a, &b])
        .args(["--rounds", "2", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("settings.work_mem: A 4MB; B 8MB"), "{stderr}");
    let by_key: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut keys: Vec<&String> = by_key.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["load", "sessions=2", "sessions=4"], "the table loaded once a side, a comparison per count");
    assert_eq!(by_key["sessions=2"]["counts"], "calls");
    assert_eq!(by_key["sessions=4"]["a_runs"].as_array().unwrap().len(), 2);
    assert_eq!(by_key["load"]["a_runs"].as_array().unwrap().len(), 1, "one load a side");
    // What the sides changed is in their runs, so a later `compare` names it.
    let b_run = by_key["sessions=2"]["b_runs"][0].to_string();
    let shown = spindle_with_store(&store).args(["runs", "show", &b_run, "--json"]).output().unwrap();
    let record: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(record["details"]["spec"]["settings"]["work_mem"], "8MB", "{}", record["details"]["spec"]);
    // The instances and their directories are gone.
    assert_eq!(std::fs::read_dir(&volume).unwrap().count(), 0, "spindle's directories removed");
}

#[test]
fn database_sides_with_mistakes_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sqlite = format!("sqlite://{}", d.join("x.db").display());
    let io =
        write(d, "io.toml", &format!("engine = \"null\"\n\n[[target]]\npath = \"{}\"\n", d.join("t.dat").display()));
    let ops = write(d, "ops.toml", &format!("[database]\nurl = \"{sqlite}\"\nworkload = \"largeops\"\n"));
    let hammer = write(d, "hammer.toml", &format!("[database]\nurl = \"{sqlite}\"\n"));
    let cases: Vec<(String, PathBuf, &str)> = vec![
        (format!("[database]\nurl = \"{sqlite}\"\nengine = \"postgres\"\n"), ops.clone(), "both.toml line 3 (engine)"),
        (
            format!("[database]\nurl = \"{sqlite}\"\n\n[database.settings]\nwork_mem = \"8MB\"\n"),
            ops.clone(),
            "(settings.work_mem)",
        ),
        (format!("[database]\nurl = \"{sqlite}\"\nworkload = \"tpcc\"\n"), ops.clone(), "line 3 (workload)"),
        (
            format!("[database]\nurl = \"{sqlite}\"\nworkload = \"largeops\"\nsessions = 8\n"),
            ops.clone(),
            "line 4 (sessions)",
        ),
        (format!("[database]\nurl = \"{sqlite}\"\nsesions = 8\n"), ops.clone(), "sesions"),
        ("[database]\nworkload = \"largeops\"\n".to_string(), ops.clone(), "names no database"),
        (
            format!("[database]\nengine = \"postgres\"\ndir = \"{}\"\nsessions = 5000\n", d.display()),
            hammer.clone(),
            "line 4 (sessions)",
        ),
        (format!("[database]\nurl = \"{sqlite}\"\nworkload = \"largeops\"\n"), io.clone(), "measure different things"),
        (
            format!("[database]\nurl = \"{sqlite}\"\nworkload = \"largeops\"\n"),
            hammer.clone(),
            "measure different things",
        ),
    ];
    let store = d.join("results.db");
    for (text, other, needle) in &cases {
        let a = write(d, "both.toml", text);
        let out = spindle_with_store(&store).arg("ab").arg(&a).arg(other).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {err}");
        assert!(err.contains(needle), "{text}: wanted {needle:?} in {err}");
    }
    // A database file is not an I/O workload.
    let out = spindle_with_store(&store).args(["io", "--spec"]).arg(&ops).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("spindle ab"));
    assert!(!store.exists(), "nothing ran, nothing was saved");
    assert!(!d.join("x.db").exists(), "no database was made");
}

#[cfg(feature = "postgres")]
#[test]
fn sessions_beyond_a_servers_room_are_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[database]\nurl = \"postgres://root@127.0.0.1:5432/test\"\nsessions = 5000\n";
    let (a, b) = (write(dir.path(), "a.toml", text), write(dir.path(), "b.toml", text));
    let out = crate::common::spindle()
        .env("SPINDLE_STORE", dir.path().join("s.db"))
        .arg("ab")
        .args([&a, &b])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("cannot connect") {
        spindle_testenv::unavailable("PostgreSQL on 127.0.0.1:5432", err.trim());
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("a.toml line 3 (sessions)") && err.contains("room for"), "{err}");
}
