//! The store on this machine's PostgreSQL (127.0.0.1:5432, trust auth), each test in a
//! database of its own made here and dropped when it ends: what only a shared server has
//! (a foreign or newer database refused untouched, spindles on many hosts saving and
//! creating the store at once), and every kind of run read back as it was saved. The tests
//! every backend passes are in tests.rs.

use crate::*;
use spindle_model::fixtures::io_run;
use std::sync::atomic::{AtomicUsize, Ordering};

const ADMIN: &str = "host=127.0.0.1 port=5432 user=postgres dbname=postgres";

/// A database made for one test, dropped (with any session still in it) when it ends.
pub(crate) struct ScratchDb {
    name: String,
}

fn admin(statements: &[String]) -> Result<(), String> {
    spindle_testenv::postgres_admin(ADMIN, statements)
}

impl ScratchDb {
    /// `None` (after saying so) where the server cannot be reached.
    pub fn create() -> Option<ScratchDb> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("spindle_store_test_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
        match admin(&[drop, format!("CREATE DATABASE {name}")]) {
            Ok(()) => Some(ScratchDb { name }),
            Err(e) => {
                spindle_testenv::unavailable("PostgreSQL on 127.0.0.1:5432", e);
                None
            }
        }
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:5432/{}", self.name)
    }

    pub fn location(&self) -> Location {
        Location::parse(std::path::Path::new(&self.url())).unwrap()
    }

    /// Runs statements in this database, as spindle would not.
    fn sql(&self, statements: &str) -> Vec<Vec<String>> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let conn = format!("host=127.0.0.1 port=5432 user=postgres dbname={}", self.name);
            let (client, connection) = tokio_postgres::connect(&conn, tokio_postgres::NoTls).await.unwrap();
            tokio::spawn(connection);
            let messages = client.simple_query(statements).await.unwrap();
            messages
                .iter()
                .filter_map(|m| match m {
                    tokio_postgres::SimpleQueryMessage::Row(r) => {
                        Some((0..r.len()).map(|i| r.get(i).unwrap_or("NULL").to_string()).collect())
                    }
                    _ => None,
                })
                .collect()
        })
    }
}

impl Drop for ScratchDb {
    fn drop(&mut self) {
        let _ = admin(&[format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)]);
    }
}

#[test]
fn a_new_store_is_marked_with_its_version_and_the_tables_typed_for_postgres() {
    let Some(db) = ScratchDb::create() else { return };
    drop(Store::open(db.location()).unwrap());
    let marker = db.sql("SELECT application_id, schema_version FROM spindle_store");
    assert_eq!(marker, [[APPLICATION_ID.to_string(), SCHEMA_VERSION.to_string()]]);
    let types = db.sql(
        "SELECT column_name, data_type FROM information_schema.columns
         WHERE table_name = 'runs' AND column_name IN ('id', 'iops', 'repeat') ORDER BY column_name",
    );
    assert_eq!(types, [["id", "bigint"], ["iops", "double precision"], ["repeat", "bigint"]]);
}

#[test]
fn a_foreign_or_newer_database_is_refused_untouched() {
    let Some(db) = ScratchDb::create() else { return };
    db.sql("CREATE TABLE accounts (id int); INSERT INTO accounts VALUES (7)");
    for err in [Store::open(db.location()).err(), Store::open_existing(db.location()).err()] {
        let err = err.expect("refused");
        assert!(matches!(err, StoreError::NotAStore { .. }), "{err}");
        assert!(err.to_string().contains("1 tables of another program"), "{err}");
    }
    let tables = db.sql(
        "SELECT string_agg(relname, ',') FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace",
    );
    assert_eq!(tables, [["accounts"]], "nothing made beside it");

    let Some(newer) = ScratchDb::create() else { return };
    drop(Store::open(newer.location()).unwrap());
    newer.sql("UPDATE spindle_store SET schema_version = 99");
    let err = Store::open_existing(newer.location()).err().expect("refused");
    assert!(matches!(err, StoreError::Newer { found: 99, .. }), "{err}");
    assert_eq!(newer.sql("SELECT schema_version FROM spindle_store"), [["99"]]);

    let Some(other) = ScratchDb::create() else { return };
    other.sql("CREATE TABLE spindle_store (application_id BIGINT, schema_version BIGINT); INSERT INTO spindle_store VALUES (1, 1)");
    let err = Store::open(other.location()).err().expect("refused");
    assert!(err.to_string().contains("marked by another program"), "{err}");
}

#[test]
fn a_missing_database_or_a_wrong_password_is_said_with_the_password_masked() {
    let Some(db) = ScratchDb::create() else { return };
    let missing =
        Location::parse(std::path::Path::new("postgres://postgres:hunter2@127.0.0.1:5432/no_such_store_db")).unwrap();
    let err = Store::open_existing(&missing).err().expect("no such database");
    let text = err.to_string();
    assert!(text.contains("postgres:****@127.0.0.1:5432/no_such_store_db") && !text.contains("hunter2"), "{text}");
    assert!(text.contains("does not exist") && text.contains("--store"), "{text}");
    drop(db);
}

/// Spindles on many hosts share one store: several creating it at once apply each
/// migration once, and all their runs are saved, each with an id of its own.
#[test]
fn spindles_creating_and_saving_at_once_all_succeed() {
    let Some(db) = ScratchDb::create() else { return };
    let (writers, runs) = (4, 10);
    let saved: Vec<Vec<i64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..writers)
            .map(|w| {
                let at = db.location();
                s.spawn(move || {
                    let mut store = Store::open(&at).unwrap();
                    (0..runs)
                        .map(|i| {
                            let host = format!("host{w}");
                            let record = io_run(&[i as f64 + 1.0], 1_000, &[("host", host.as_str())]);
                            store.save(&record, &Placement::default()).unwrap()
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut ids: Vec<i64> = saved.concat();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), writers * runs, "every run saved, each with its own id");
    let store = Store::open_existing(db.location()).unwrap().unwrap();
    assert_eq!(store.count(&Filter::default()).unwrap(), (writers * runs) as u64);
    let host1 = Filter { labels: vec![("host".into(), "host1".into())], ..Filter::default() };
    assert_eq!(store.count(&host1).unwrap(), runs as u64);
    assert_eq!(db.sql("SELECT count(*) FROM spindle_store"), [["1"]], "marked once");
}

/// Every kind of run (the SQLite test store's, migrated) saved on PostgreSQL reads back as
/// it was, and is found again as a file's import and as the same run.
#[test]
fn every_kind_of_run_reads_back_from_postgres() {
    let Some(db) = ScratchDb::create() else { return };
    let dir = tempfile::tempdir().unwrap();
    let v1 = dir.path().join("store-v1.db");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/store-v1-171a3e5.db"), &v1).unwrap();
    let runs = Store::open_existing(&v1).unwrap().unwrap().load_all(&Filter::default()).unwrap();

    let mut store = Store::open(db.location()).unwrap();
    let group = store.new_group(GroupKind::Sweep, "depth=1,2", "2026-11-26T10:00:00Z").unwrap();
    let placed: Vec<_> = runs
        .iter()
        .map(|r| {
            (&r.record, Placement { group: Some(group), point: r.summary.point.clone(), repeat: r.summary.repeat })
        })
        .collect();
    let ids = store.save_all(&placed).unwrap();
    let back = store.load_all(&Filter::default()).unwrap();
    assert_eq!(back.len(), runs.len());
    for ((before, after), id) in runs.iter().zip(&back).zip(&ids) {
        assert_eq!(after.record, before.record, "run {id}");
        assert_eq!((after.summary.id, &after.summary.point), (*id, &before.summary.point));
        assert_eq!(after.summary.iops, before.summary.iops);
    }
    let imported = back.last().unwrap();
    let spindle_model::KindData::Imported { origin, .. } = &imported.record.details else { panic!("an import") };
    assert_eq!(store.imported_from(&origin.sha256).unwrap(), [imported.summary.id]);
    assert_eq!(store.same_runs(&back[0].record).unwrap(), [back[0].summary.id]);
    let like = store.group_ids_like(GroupKind::Sweep, &back[0].summary.hostname, &[back[0].summary.workload.clone()]);
    assert_eq!(like.unwrap(), [group]);
}
