//! A spindle built without a cargo feature says which feature a command needs, with exit 2,
//! before anything runs. These tests run in the build that lacks it (scripts/test builds and
//! tests `--no-default-features` too); in the default build the features are there and the
//! other tests use them.

#[cfg(not(all(feature = "postgres", feature = "mysql", feature = "xlsx")))]
use crate::common::spindle_with_store;

#[cfg(not(all(feature = "postgres", feature = "mysql")))]
#[test]
fn a_server_url_names_the_feature_its_driver_needs() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    for (url, feature) in [("postgres://u@127.0.0.1/test", "postgres"), ("mysql://u@127.0.0.1/test", "mysql")] {
        if (feature == "postgres" && cfg!(feature = "postgres")) || (feature == "mysql" && cfg!(feature = "mysql")) {
            continue;
        }
        let out = spindle_with_store(&store).args(["hammer", "run", "--db", url]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("--features {feature}")), "{err}");
    }
    assert!(!store.exists(), "nothing ran");
}

/// A store on PostgreSQL, in a build without its driver: refused before anything runs, and no
/// file made for the URL (as a path would be).
#[cfg(not(feature = "postgres"))]
#[test]
fn a_postgres_store_names_the_postgres_feature() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["runs", "list"][..], &["io", "--engine", "null", "--duration", "100ms", "--target", "x.dat"][..]] {
        let out = crate::common::spindle()
            .current_dir(dir.path())
            .args(args)
            .args(["--store", "postgres://u:Secret9@127.0.0.1:5432/results"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("--features postgres") && err.contains("u:****@127.0.0.1"), "{err}");
        assert!(!err.contains("Secret9"), "{err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing made");
}

#[cfg(not(feature = "xlsx"))]
#[test]
fn a_workbook_names_the_xlsx_feature_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let run = spindle_with_store(&store)
        .args(["io", "--engine", "null", "--size", "1M", "--duration", "100ms", "--quiet", "--target"])
        .arg(dir.path().join("t.dat"))
        .output()
        .unwrap();
    assert!(run.status.success());
    let book = dir.path().join("r.xlsx");
    let out = spindle_with_store(&store).args(["report", "-o"]).arg(&book).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--features xlsx"), "{err}");
    assert!(!book.exists());
}
