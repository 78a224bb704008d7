//! A results store on this machine's PostgreSQL (127.0.0.1:5432, trust auth), through the
//! binary: runs saved by one command are listed by another; a database of another program,
//! or of a newer spindle, is refused untouched; the store's password never printed; two
//! spindles saving at once both saved. Each test has a database of its own (see server_db).

use crate::common::spindle;
use crate::hammer_postgres::POSTGRES;
use crate::server_db::TestDb;
use std::path::Path;

/// `spindle io` on the null engine, saving in `store`.
fn null_run(store: &str, dir: &Path, extra: &[&str]) -> std::process::Output {
    spindle()
        .current_dir(dir)
        .args(["io", "--engine", "null", "--duration", "200ms", "--target"])
        .arg(dir.join("x.dat"))
        .args(["--store", store])
        .args(extra)
        .output()
        .unwrap()
}

/// Statements run in the test's database, as spindle would not.
fn in_db(db: &TestDb, sql: &str) {
    let url = db.url();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        client.batch_execute(sql).await.unwrap();
    });
}

fn runs_listed(store: &str) -> Vec<serde_json::Value> {
    let out = spindle().args(["runs", "list", "--json", "--store", store]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn runs_saved_on_postgres_are_listed_by_another_command() {
    let Some(db) = TestDb::create(&POSTGRES, "store") else { return };
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    let out = null_run(&url, dir.path(), &["--label", "raid=10"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!("saved as run 1 in {url}")), "{err}");
    let runs = runs_listed(&url);
    assert_eq!(runs.len(), 1);
    assert_eq!((runs[0]["id"].as_i64(), runs[0]["labels"]["raid"].as_str()), (Some(1), Some("10")));
    let shown = spindle().args(["runs", "show", "1", "--json"]).env("SPINDLE_STORE", &url).output().unwrap();
    let record: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(record["details"]["kind"], "io", "SPINDLE_STORE names it as well as --store");
    assert!(!dir.path().join("postgres:").exists(), "no file made for the URL");
}

#[test]
fn a_database_of_another_program_or_a_newer_spindle_is_refused_untouched() {
    let Some(db) = TestDb::create(&POSTGRES, "store_foreign") else { return };
    let dir = tempfile::tempdir().unwrap();
    in_db(&db, "CREATE TABLE accounts (id int)");
    for args in [&["runs", "list"][..], &["io", "--engine", "null", "--duration", "100ms", "--target", "x.dat"][..]] {
        let out = spindle().current_dir(dir.path()).args(args).args(["--store", &db.url()]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("is not a spindle results store") && err.contains("tables of another program"), "{err}");
    }
    assert!(!dir.path().join("x.dat").exists(), "refused before anything ran");
    let out = spindle().args(["runs", "list", "--store", &db.url()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "still refused: nothing of spindle's was made beside it");

    let Some(newer) = TestDb::create(&POSTGRES, "store_newer") else { return };
    assert!(null_run(&newer.url(), dir.path(), &["--quiet"]).status.success());
    in_db(&newer, "UPDATE spindle_store SET schema_version = 99");
    let out = spindle().args(["runs", "list", "--store", &newer.url()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("newer spindle (store schema 99"), "{err}");
}

#[test]
fn the_store_password_is_never_printed_nor_recorded() {
    let Some(db) = TestDb::create(&POSTGRES, "store_secret") else { return };
    let dir = tempfile::tempdir().unwrap();
    // Trust auth: the server asks for no password, so the URL's is carried and never checked.
    let url = db.url().replacen("://root@", "://root:Hunter2Secret@", 1);
    let out = null_run(&url, dir.path(), &["--json"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("root:****@127.0.0.1"), "{stderr}");
    assert!(!stdout.contains("Hunter2Secret") && !stderr.contains("Hunter2Secret"), "{stdout}\n{stderr}");
    let record: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let command = record["command_line"].as_array().unwrap();
    assert!(command.iter().any(|a| a.as_str().is_some_and(|a| a.contains("root:****@"))), "{command:?}");

    let missing = url.replace(&db.name, "no_such_store_here");
    let out = spindle().args(["runs", "list", "--store", &missing]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("root:****@127.0.0.1:5432/no_such_store_here") && err.contains("does not exist"), "{err}");
    assert!(!err.contains("Hunter2Secret"), "{err}");
    let listed = spindle().args(["runs", "show", "1", "--store", &url]).output().unwrap();
    assert!(!String::from_utf8_lossy(&listed.stdout).contains("Hunter2Secret"));
}

#[test]
fn two_spindles_saving_at_once_are_both_saved() {
    let Some(db) = TestDb::create(&POSTGRES, "store_both") else { return };
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    let children: Vec<_> = ["a", "b"]
        .iter()
        .map(|name| {
            crate::common::spindle_process()
                .args(["io", "--engine", "null", "--duration", "300ms", "--repeat", "3", "--quiet", "--target"])
                .arg(dir.path().join(format!("{name}.dat")))
                .args(["--store", &url, "--label", &format!("who={name}")])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let runs = runs_listed(&url);
    assert_eq!(runs.len(), 6, "every repeat of both saved");
    for who in ["a", "b"] {
        assert_eq!(runs.iter().filter(|r| r["labels"]["who"] == who).count(), 3, "{who}");
    }
}

#[test]
fn ten_imports_of_one_file_at_once_save_it_once_on_postgres() {
    let Some(db) = TestDb::create(&POSTGRES, "store_imports") else { return };
    crate::store_runs::ten_imports_of_one_file_save_it_once(&db.url());
}
