//! The results store through the binary: every run saved, listed, shown and removed; stores
//! that are not spindle's refused untouched; bad selections named.

use crate::common::spindle_with_store;
use std::path::Path;

fn null_run(store: &Path, dir: &Path, extra: &[&str]) -> std::process::Output {
    let target = dir.join("x.dat");
    spindle_with_store(store)
        .args(["io", "--engine", "null", "--duration", "200ms", "--quiet", "--target"])
        .arg(&target)
        .args(extra)
        .output()
        .unwrap()
}

fn json_of(store: &Path, args: &[&str]) -> serde_json::Value {
    let out = spindle_with_store(store).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn io_runs_are_saved_listed_shown_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    for label in ["raid=5", "raid=5", "raid=10"] {
        assert!(null_run(&store, dir.path(), &["--label", label]).status.success());
    }
    let all = json_of(&store, &["runs", "list", "--json"]);
    assert_eq!(all.as_array().unwrap().len(), 3);
    assert_eq!(all[2]["labels"]["raid"], "10");
    assert!(all[0]["iops"].as_f64().unwrap() > 0.0);
    let raid5 = json_of(&store, &["runs", "list", "--label", "raid=5", "--json"]);
    assert_eq!(raid5.as_array().unwrap().len(), 2);
    let newest = json_of(&store, &["runs", "list", "--limit", "1", "--json"]);
    assert_eq!(newest[0]["id"], all[2]["id"]);

    let id = all[0]["id"].to_string();
    let record = json_of(&store, &["runs", "show", &id, "--json"]);
    assert_eq!((record["details"]["kind"].as_str(), record["labels"]["raid"].as_str()), (Some("io"), Some("5")));
    assert!(record["summary"]["read"]["histogram"]["buckets"].as_array().is_some_and(|b| !b.is_empty()));
    let text = spindle_with_store(&store).args(["runs", "show", &id]).output().unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).starts_with(&format!("run {id}")));
    let table = spindle_with_store(&store).args(["runs", "list"]).output().unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.contains("raid=10"), "{table}");
    assert!(table.lines().all(|l| l.chars().count() <= 100), "runs list fits 100 columns:\n{table}");

    let missing = spindle_with_store(&store).args(["runs", "rm", &id, "999"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no run 999"));
    assert_eq!(json_of(&store, &["runs", "list", "--json"]).as_array().unwrap().len(), 3, "nothing removed");
    let twice = spindle_with_store(&store).args(["runs", "rm", &id, &id]).output().unwrap();
    assert!(twice.status.success(), "a run named twice is removed once: {}", String::from_utf8_lossy(&twice.stderr));
    assert_eq!(json_of(&store, &["runs", "list", "--json"]).as_array().unwrap().len(), 2);
}

#[test]
fn repeats_are_saved_as_one_group() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let target = dir.path().join("x.dat");
    let out = spindle_with_store(&store)
        .args(["io", "--engine", "null", "--duration", "100ms", "--repeat", "3", "--json", "--target"])
        .arg(&target)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed.as_array().map(Vec::len), Some(3), "--json prints every record");
    let runs = json_of(&store, &["runs", "list", "--json"]);
    let groups: Vec<_> = runs.as_array().unwrap().iter().map(|r| (r["group"].clone(), r["repeat"].clone())).collect();
    assert!(groups[0].0.is_i64() && groups.iter().all(|g| g.0 == groups[0].0));
    assert_eq!(groups.iter().map(|g| g.1.as_i64().unwrap()).collect::<Vec<_>>(), [1, 2, 3]);
}

#[test]
fn a_file_that_is_not_a_spindle_store_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.db");
    std::fs::write(&notes, "not a database, and mine\n".repeat(200)).unwrap();
    let out = null_run(&notes, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("notes.db") && err.contains("not a spindle results store"), "{err}");
    let list = spindle_with_store(&notes).args(["runs", "list"]).output().unwrap();
    assert_eq!(list.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "not a database, and mine\n".repeat(200));
    assert!(!dir.path().join("x.dat").exists(), "nothing ran");
}

#[test]
fn a_store_from_a_newer_spindle_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    assert!(null_run(&store, dir.path(), &[]).status.success());
    rusqlite::Connection::open(&store).unwrap().execute_batch("PRAGMA user_version = 99").unwrap();
    let before = std::fs::read(&store).unwrap();
    for args in [&["runs", "list"][..], &["runs", "rm", "1"][..]] {
        let out = spindle_with_store(&store).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("newer spindle"), "{args:?}");
    }
    let out = null_run(&store, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&store).unwrap(), before, "the store is never modified by a failed command");
}

#[test]
fn bad_labels_selections_and_times_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let cases: [(&[&str], &str); 6] = [
        (&["io", "--engine", "null", "--target", "x.dat", "--label", "raid"], "--label raid"),
        (&["runs", "list", "--since", "last week"], "--since last week"),
        (&["runs", "list", "--status", "done"], "--status done"),
        (&["runs", "show", "twelve"], "twelve"),
        (&["compare", "--a", "raid=5", "--b", "raid=10"], "no stored run matches"),
        (&["compare", "12"], "two runs"),
    ];
    for (args, needle) in cases {
        let out = spindle_with_store(&store).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    assert!(!store.exists(), "reading commands never create a store");
}

#[test]
fn a_command_that_fails_before_measuring_creates_no_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let mine = dir.path().join("mine.dat");
    std::fs::write(&mine, b"the user's own data").unwrap();
    let out = spindle_with_store(&store)
        .args(["io", "--read", "0", "--duration", "200ms", "--target"])
        .arg(&mine)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!store.exists(), "no store for a run that never measured");
    assert_eq!(std::fs::read(&mine).unwrap(), b"the user's own data");
}

/// Ten spindles saving into one store that none of them found: every run is kept, and the
/// store is readable by its owner only.
#[test]
fn ten_processes_creating_one_store_at_once_lose_no_run() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("new/results.db");
    let children: Vec<_> = (0..10)
        .map(|i| {
            crate::common::spindle_process()
                .env("SPINDLE_STORE", &store)
                .current_dir(dir.path())
                .args([
                    "io",
                    "--engine",
                    "null",
                    "--size",
                    "1M",
                    "--duration",
                    "100ms",
                    "--warmup",
                    "0s",
                    "-q",
                    "--target",
                ])
                .arg(format!("t{i}.dat"))
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let list = crate::common::spindle_with_store(&store).args(["runs", "list", "--json"]).output().unwrap();
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&list.stdout).unwrap().as_array().unwrap().len(), 10);
    let mode = std::fs::metadata(&store).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");
}

/// A store that cannot take the run (its directory is a file here): the report is printed
/// anyway, the run is kept in a file with the command that brings it in, and that command
/// brings it in once.
#[test]
fn a_run_the_store_cannot_take_is_printed_kept_and_imported_later() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plain"), "a file, not a directory").unwrap();
    let broken = dir.path().join("plain/results.db");
    let out = crate::common::spindle_with_store(&broken)
        .current_dir(dir.path())
        .args(["io", "--engine", "null", "--size", "1M", "--duration", "100ms", "--warmup", "0s", "--target", "t.dat"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // 1, not 2: the run was measured (2 says nothing was run).
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("IOs/sec"), "the figures are printed: {err}");
    let kept: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("spindle-unsaved-"))
        .collect();
    assert_eq!(kept.len(), 1, "{err}");
    assert!(err.contains("spindle import") && err.contains("spindle-unsaved-"), "{err}");
    assert!(!dir.path().join("t.dat").exists(), "the test file is removed all the same");

    let good = dir.path().join("good.db");
    let import = |again: bool| {
        let mut cmd = crate::common::spindle_with_store(&good);
        cmd.arg("import").arg(&kept[0]);
        if again {
            cmd.arg("--again");
        }
        cmd.output().unwrap()
    };
    let first = import(false);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let twice = import(false);
    assert_eq!(twice.status.code(), Some(2), "the same run is not brought in twice");
    let list = crate::common::spindle_with_store(&good).args(["runs", "list", "--json"]).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 1);
    assert_eq!(runs[0]["kind"], "io");
}

/// Under umask 000, everything spindle makes to keep runs is still its owner's alone: a new
/// store and the directories made for it, a store made through a symbolic link to a file not
/// there yet, and a run kept in a file when the store cannot take it.
#[test]
fn stores_and_kept_runs_are_private_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let run = |store: &Path| {
        let mut cmd = crate::common::spindle_process();
        cmd.env("SPINDLE_STORE", store).current_dir(dir.path());
        cmd.args(["io", "--engine", "null", "--size", "1M", "--duration", "100ms", "--warmup", "0s", "-q"]);
        cmd.args(["--target", "t.dat"]);
        // SAFETY: umask in the child before exec touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                libc::umask(0);
                Ok(())
            });
        }
        cmd.output().unwrap()
    };
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;

    let nested = dir.path().join("new/deeper/s.db");
    let out = run(&nested);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(mode(&dir.path().join("new")), 0o700);
    assert_eq!(mode(&dir.path().join("new/deeper")), 0o700);
    assert_eq!(mode(&nested), 0o600);

    let (link, target) = (dir.path().join("link.db"), dir.path().join("target.db"));
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = run(&link);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(mode(&target), 0o600, "the store made through the link");

    std::fs::write(dir.path().join("plain"), "a file, not a directory").unwrap();
    let out = run(&dir.path().join("plain/results.db"));
    assert!(!out.status.success());
    let kept = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("spindle-unsaved-"))
        .expect("the run is kept");
    assert_eq!(mode(&kept), 0o600);
}

/// Ten spindles importing one file into one store at the same moment save it once: whether it
/// is stored already is asked in the save's own transaction. The others say it was imported.
pub(crate) fn ten_imports_of_one_file_save_it_once(store: &str) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/formats/testdata/sqlio.random.read.8.8.G.txt");
    let children: Vec<_> = (0..10)
        .map(|_| {
            crate::common::spindle_process()
                .args(["import", "--store", store])
                .arg(&file)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut saved = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => saved += 1,
            Some(2) => assert!(err.contains("already imported"), "{err}"),
            other => panic!("{other:?}: {err}"),
        }
    }
    assert_eq!(saved, 1, "one import saved the file");
    let list = crate::common::spindle().args(["runs", "list", "--json", "--store", store]).output().unwrap();
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&list.stdout).unwrap().as_array().unwrap().len(), 1);
}

#[test]
fn ten_imports_of_one_file_at_once_save_it_once() {
    let dir = tempfile::tempdir().unwrap();
    ten_imports_of_one_file_save_it_once(dir.path().join("results.db").to_str().unwrap());
}

/// A run that flushes its writes (`--fsync-every`) is listed, exported and shown with its
/// commits' latency first, each I/O's beside it under its own name: the figures the record
/// holds, never one for the other.
#[test]
fn a_run_that_commits_leads_with_its_commit_latency_in_every_listing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let target = dir.path().join("log.dat");
    let out = spindle_with_store(&store)
        .args(["io", "--engine", "sync", "--duration", "300ms", "--size", "1M", "--quiet"])
        .args(["--read", "0", "--random", "0", "--buffered", "--fsync-every", "1", "--target"])
        .arg(&target)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let record = json_of(&store, &["runs", "show", "1", "--json"]);
    let (commit, io) = (&record["summary"]["commit"]["latency_ns"], &record["summary"]["latency_ns"]);
    assert!(record["summary"]["commit"]["count"].as_u64().unwrap() > 0, "{}", record["summary"]);
    assert_ne!(commit["mean"], io["mean"]);
    let listed = &json_of(&store, &["runs", "list", "--json"])[0];
    assert_eq!(listed["latency_of"], "commit");
    assert_eq!(listed["lead_latency_mean_ns"], commit["mean"]);
    assert_eq!(listed["lead_latency_p99_ns"], commit["p99"]);
    assert_eq!(listed["latency_mean_ns"], io["mean"], "each I/O's, as before");
    let ns = |v: &serde_json::Value| spindle_model::units::format_latency_ns(v.as_f64().unwrap());
    let table = spindle_with_store(&store).args(["runs", "list"]).output().unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    let row: Vec<&str> = table.lines().nth(2).unwrap().split_whitespace().collect();
    assert_eq!(row[7..], [ns(&commit["mean"]), ns(&commit["p99"]), ns(&io["mean"])], "{table}");
    let csv = dir.path().join("runs.csv");
    let out = spindle_with_store(&store).args(["report", "-o"]).arg(&csv).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let total: Vec<&str> = csv.lines().find(|l| l.contains(",total,")).unwrap().split(',').collect();
    let field = |name: &str| total[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(field("latency_of"), "commit");
    assert_eq!(field("lead_mean_ns"), format!("{:.1}", commit["mean"].as_f64().unwrap()));
    assert_eq!(field("lat_mean_ns"), format!("{:.1}", io["mean"].as_f64().unwrap()));
}
