//! A store written by spindle 171a3e5 (schema 1, records of v1), with runs of every kind,
//! opened by this spindle: migrated once, every run read with its kind's typed details.

use crate::*;
use spindle_model::record::SCHEMA_ID;
use spindle_model::{KindData, RunKind};
use std::path::PathBuf;

/// A copy of the test store in a scratch directory: tests never write to the original.
fn v1_store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store-v1.db");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/store-v1-171a3e5.db"), &path).unwrap();
    (dir, path)
}

fn raw(path: &std::path::Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

#[test]
fn a_v1_store_is_migrated_once_and_every_run_reads_typed() {
    let (_dir, path) = v1_store();
    let store = Store::open_existing(&path).unwrap().expect("a store");
    let version: i64 = raw(&path).query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let old: i64 = raw(&path)
        .query_row(
            "SELECT count(*) FROM records WHERE schema <> ?1 OR json NOT LIKE '%\"details\"%'",
            [SCHEMA_ID],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(old, 0, "every record rewritten in the current schema");

    let runs = store.load_all(&Filter::default()).unwrap();
    assert_eq!(runs.len(), 19);
    let kinds: Vec<RunKind> = runs.iter().map(|r| r.record.kind()).collect();
    let mut expected = vec![RunKind::Io; 10];
    expected.extend([RunKind::HammerLoad, RunKind::Hammer, RunKind::LogTest, RunKind::LogTest]);
    expected.extend([RunKind::LargeOps; 4]);
    expected.push(RunKind::Io);
    assert_eq!(kinds, expected);
    for run in &runs {
        let r = &run.record;
        assert_eq!(r.kind().name(), run.summary.kind, "run {}", run.summary.id);
        assert_eq!(r.summary.iops, run.summary.iops, "run {}: the figures are those saved", run.summary.id);
        assert_eq!(r.schema, SCHEMA_ID);
    }
    let details = |id: i64| &runs[id as usize - 1].record.details;
    assert!(matches!(details(1), KindData::Io { verify: None, spec } if spec.targets[0].workload.depth == 1));
    assert!(matches!(details(2), KindData::Io { verify: Some(v), .. } if v.sectors_unchecked > 0));
    assert!(matches!(details(4), KindData::Io { spec, .. } if spec.targets[0].workload.depth == 2));
    assert!(matches!(details(11), KindData::HammerLoad { spec } if spec.rows == 1000 && spec.engine == "sqlite"));
    match details(12) {
        KindData::Hammer { spec } => {
            assert_eq!((spec.sessions, spec.rows, spec.read_pct), (2, 1000, 50));
            assert!(spec.durability.as_deref().is_some_and(|d| d.starts_with("SQLite in WAL mode")));
        }
        other => panic!("run 12 is {other:?}"),
    }
    for (id, size) in [(13, 1), (14, 10)] {
        assert!(
            matches!(details(id), KindData::LogTest { spec, figures }
                if spec.transaction_size == size && figures.transaction_size == size && figures.rows == 200),
            "run {id}"
        );
    }
    for (id, op) in [(15, "load"), (16, "scan"), (17, "update"), (18, "checkpoint")] {
        assert!(
            matches!(details(id), KindData::LargeOps { spec, figures } if spec.operation == op && figures.operation == op),
            "run {id}"
        );
    }
    match details(19) {
        KindData::Imported { origin, spec } => {
            assert_eq!((origin.tool.as_str(), spec.block_size, spec.threads), ("sqlio", Some(8192), Some(64)));
            assert_eq!(store.imported_from(&origin.sha256).unwrap(), [19], "found by the file's hash");
        }
        other => panic!("run 19 is {other:?}"),
    }

    let group_kinds: Vec<GroupKind> = (1..=5).map(|g| store.group(g).unwrap().kind).collect();
    use GroupKind::*;
    assert_eq!(group_kinds, [Sweep, Repeat, Ab, Sweep, Sweep]);
    let point = |id: i64| runs[id as usize - 1].summary.point.clone();
    assert_eq!(point(3), Some(Point::sweep("depth", "1")));
    assert_eq!(point(14).as_ref().and_then(Point::as_sweep).map(|p| p.value.as_str()), Some("10"));
    assert_eq!(point(16), Some(Point::sweep("op", "scan")));
    assert_eq!(point(7), Some(Point::Member("a".into())));
    assert_eq!((point(1), point(5)), (None, None));

    drop(store);
    let again = Store::open_existing(&path).unwrap().expect("a store");
    assert_eq!(again.load(12).unwrap().record, runs[11].record, "reopening changes nothing");
}

#[test]
fn a_record_that_does_not_read_is_kept_and_named_the_others_migrate() {
    let (_dir, path) = v1_store();
    raw(&path)
        .execute("UPDATE records SET json = '{\"schema\": \"spindle.run-record/v1\"}' WHERE run_id = 5", [])
        .unwrap();
    let store = Store::open_existing(&path).unwrap().expect("a store");
    let err = store.load(5).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { id: 5, .. }), "{err}");
    assert!(err.to_string().contains("run 5"), "{err}");
    assert_eq!(store.load(6).unwrap().record.kind(), RunKind::Io);
    let kept: String = raw(&path).query_row("SELECT schema FROM records WHERE run_id = 5", [], |r| r.get(0)).unwrap();
    assert_eq!(kept, "spindle.run-record/v1", "left as it was");
}

#[test]
fn a_group_of_an_unknown_kind_is_an_error_naming_it() {
    let (_dir, path) = v1_store();
    raw(&path).execute("UPDATE groups SET kind = 'tournament' WHERE id = 2", []).unwrap();
    let store = Store::open_existing(&path).unwrap().expect("a store");
    let err = store.group(2).unwrap_err();
    assert!(err.to_string().contains("group 2") && err.to_string().contains("'tournament'"), "{err}");
}
