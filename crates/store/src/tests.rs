use crate::*;
use spindle_model::fixtures::io_run;
use std::time::{Duration, SystemTime};

/// A store's place for one test, removed when the test ends: a file in a scratch directory,
/// or a scratch database on this machine's PostgreSQL.
pub(crate) struct Scratch {
    pub at: Location,
    _kept: Box<dyn std::any::Any>,
}

/// One scratch place for each backend this build has and this machine reaches (a missing
/// PostgreSQL server is a skip said as such, see spindle_testenv).
pub(crate) fn each_backend() -> Vec<Scratch> {
    let dir = tempfile::tempdir().unwrap();
    let file = Scratch { at: Location::File(dir.path().join("sub/results.db")), _kept: Box::new(dir) };
    #[cfg(feature = "postgres")]
    let server =
        crate::tests_postgres::ScratchDb::create().map(|db| Scratch { at: db.location(), _kept: Box::new(db) });
    #[cfg(not(feature = "postgres"))]
    let server = None;
    std::iter::once(file).chain(server).collect()
}

#[test]
fn saves_lists_loads_and_removes_runs() {
    for scratch in each_backend() {
        saves_lists_loads_and_removes_runs_in(Store::open(&scratch.at).unwrap());
    }
}

fn saves_lists_loads_and_removes_runs_in(mut store: Store) {
    let a = store.save(&io_run(&[100.0, 110.0], 200_000, &[("raid", "5")]), &Placement::default()).unwrap();
    let g = store.new_group(GroupKind::Repeat, "raid 10", "2026-11-23T10:00:00Z").unwrap();
    let mut ids = Vec::new();
    for repeat in 1..=2 {
        let place = Placement { group: Some(g), point: None, repeat };
        ids.push(store.save(&io_run(&[200.0, 220.0], 100_000, &[("raid", "10"), ("host", "x")]), &place).unwrap());
    }

    let all = store.list(&Filter::default()).unwrap();
    assert_eq!(all.iter().map(|r| r.id).collect::<Vec<_>>(), [a, ids[0], ids[1]], "oldest first");
    assert_eq!(all[0].labels["raid"], "5");
    assert_eq!(all[1].labels.len(), 2);
    assert!((all[1].iops - 210.0).abs() < 1e-9);
    assert_eq!((all[2].group, all[2].repeat), (Some(g), 2));

    let raid10 = Filter { labels: vec![("raid".into(), "10".into())], ..Filter::default() };
    assert_eq!(store.count(&raid10).unwrap(), 2);
    let newest = Filter { limit: Some(1), ..raid10.clone() };
    assert_eq!(store.list(&newest).unwrap()[0].id, ids[1]);
    let both = Filter { labels: vec![("raid".into(), "10".into()), ("host".into(), "y".into())], ..Filter::default() };
    assert!(store.list(&both).unwrap().is_empty(), "every label must match");

    let loaded = store.load(ids[0]).unwrap();
    assert_eq!(loaded.record, io_run(&[200.0, 220.0], 100_000, &[("raid", "10"), ("host", "x")]));

    assert!(matches!(store.remove(&[a, 999]), Err(StoreError::NoSuchRun(999))));
    assert_eq!(store.count(&Filter::default()).unwrap(), 3, "a failed remove removes nothing");
    store.remove(&[a]).unwrap();
    assert!(matches!(store.load(a), Err(StoreError::NoSuchRun(_))));
    let next = store.save(&io_run(&[1.0], 1_000, &[]), &Placement::default()).unwrap();
    assert!(next > ids[1], "ids are never reused");
}

#[test]
fn reopening_keeps_runs_and_a_missing_store_has_none() {
    for scratch in each_backend() {
        let at = &scratch.at;
        assert!(Store::open_existing(at).unwrap().is_none(), "{at}");
        if let Some(path) = at.file() {
            assert!(!path.exists(), "reading never creates a store");
        }
        assert!(Store::open_existing(at).unwrap().is_none(), "{at}: reading never creates a store");
        Store::open(at).unwrap().save(&io_run(&[5.0], 1_000, &[]), &Placement::default()).unwrap();
        let store = Store::open_existing(at).unwrap().expect("a store");
        assert_eq!(store.count(&Filter::default()).unwrap(), 1);
        assert_eq!(store.location(), at);
    }
}

/// Switching a store to WAL needs its write lock, and SQLite answers "database is locked" at
/// once, whatever the busy timeout, when another connection holds that lock then: several
/// spindles creating one store meet that (one migrating or switching while the others switch).
/// Here a store left in the rollback journal is held by a writer for 300 ms: opening it waits
/// for the writer instead of failing.
#[test]
fn opening_waits_for_a_writer_to_switch_the_store_to_wal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    Store::open(&path).unwrap().save(&io_run(&[5.0], 1_000, &[]), &Placement::default()).unwrap();
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer.pragma_update(None, "journal_mode", "DELETE").unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let opening = std::thread::spawn({
        let path = path.clone();
        move || Store::open(&path).map(|s| s.count(&Filter::default()))
    });
    std::thread::sleep(Duration::from_millis(300));
    writer.execute_batch("COMMIT").unwrap();
    assert_eq!(opening.join().unwrap().unwrap().unwrap(), 1);
    let mode: String =
        rusqlite::Connection::open(&path).unwrap().query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn foreign_and_newer_files_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "my notes, not a database\n".repeat(100)).unwrap();
    let open_existing = |p: &std::path::Path| Store::open_existing(p).map(|s| s.unwrap());
    for open in [|p: &std::path::Path| Store::open(p), open_existing] {
        let err = open(&text).err().expect("refused");
        assert!(matches!(err, StoreError::NotAStore { .. }), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "my notes, not a database\n".repeat(100));

    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
    let before = std::fs::read(&other).unwrap();
    let err = Store::open(&other).err().expect("refused");
    assert!(err.to_string().contains("another program"), "{err}");
    assert_eq!(std::fs::read(&other).unwrap(), before);

    let newer = dir.path().join("newer.db");
    drop(Store::open(&newer).unwrap());
    rusqlite::Connection::open(&newer).unwrap().execute_batch("PRAGMA user_version = 99").unwrap();
    let err = Store::open_existing(&newer).err().expect("refused");
    assert!(matches!(err, StoreError::Newer { found: 99, .. }), "{err}");
    assert!(err.to_string().contains("newer spindle"));
}

#[test]
fn time_bounds_accept_dates_times_and_ages() {
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_390_529); // 2026-11-22T23:35:29Z
    assert_eq!(TimeBound::parse("2026-11-22", false, now).unwrap(), "2026-11-22T00:00:00Z");
    assert_eq!(TimeBound::parse("2026-11-22", true, now).unwrap(), "2026-11-22T23:59:59Z");
    assert_eq!(TimeBound::parse("2026-11-22T10:00:00Z", true, now).unwrap(), "2026-11-22T10:00:00Z");
    assert_eq!(TimeBound::parse("1d", false, now).unwrap(), "2026-11-21T23:35:29Z");
    assert_eq!(TimeBound::parse("90m", false, now).unwrap(), "2026-11-22T22:05:29Z");
    for bad in ["yesterday", "2026-13-01", "2026-11-22 10:00", "", "-1d", "2026-11-22T25:00:00Z"] {
        assert!(TimeBound::parse(bad, false, now).is_err(), "{bad}");
    }

    for scratch in each_backend() {
        bounds_select_runs_in(Store::open(&scratch.at).unwrap());
    }
}

fn bounds_select_runs_in(mut store: Store) {
    let mut early = io_run(&[1.0], 1_000, &[]);
    early.started_at = "2026-11-01T08:00:00Z".into();
    let mut late = early.clone();
    late.started_at = "2026-11-22T08:00:00Z".into();
    store.save(&early, &Placement::default()).unwrap();
    let late_id = store.save(&late, &Placement::default()).unwrap();
    let since = Filter { since: Some("2026-11-10T00:00:00Z".into()), ..Filter::default() };
    assert_eq!(store.list(&since).unwrap().iter().map(|r| r.id).collect::<Vec<_>>(), [late_id]);
}

#[test]
fn the_previous_groups_of_a_name_are_the_ones_that_ended_newest_first() {
    for scratch in each_backend() {
        previous_groups_in(Store::open(&scratch.at).unwrap());
    }
}

fn previous_groups_in(store: Store) {
    let at = "2026-11-26T10:00:00Z";
    let first = store.new_group(GroupKind::Check, "check /data", at).unwrap();
    store.set_group_summary(first, &serde_json::json!({"n": 1})).unwrap();
    let other = store.new_group(GroupKind::Check, "check /log", at).unwrap();
    store.set_group_summary(other, &serde_json::json!({"n": 2})).unwrap();
    let unfinished = store.new_group(GroupKind::Check, "check /data", at).unwrap();
    let now = store.new_group(GroupKind::Check, "check /data", at).unwrap();
    let found = store.previous_groups(GroupKind::Check, "check /data", now, 10).unwrap();
    let ids: Vec<i64> = found.iter().map(|g| g.id).collect();
    assert_eq!(ids, [first], "the one without a summary ({unfinished}) never ended");
    assert!(store.previous_groups(GroupKind::Check, "check /data", first, 10).unwrap().is_empty());
    assert!(store.previous_groups(GroupKind::Sweep, "check /data", now, 10).unwrap().is_empty());
    // Newest first, and no more than asked for.
    let second = store.new_group(GroupKind::Check, "check /data", at).unwrap();
    store.set_group_summary(second, &serde_json::json!({"n": 3})).unwrap();
    let later = store.new_group(GroupKind::Check, "check /data", at).unwrap();
    let ids: Vec<i64> =
        store.previous_groups(GroupKind::Check, "check /data", later, 10).unwrap().iter().map(|g| g.id).collect();
    assert_eq!(ids, [second, first]);
    assert_eq!(store.previous_groups(GroupKind::Check, "check /data", later, 1).unwrap().len(), 1);
}

#[test]
fn a_committing_run_is_listed_with_its_commits_also_when_saved_before_the_commit_columns() {
    let dir = tempfile::tempdir().unwrap();
    let at = Location::File(dir.path().join("results.db"));
    let mut committing = io_run(&[100.0], 20_000, &[]);
    committing.summary.commit.count = 100;
    committing.summary.commit.latency_ns.mean = 250_000.0;
    committing.summary.commit.latency_ns.p99 = 900_000;
    let (plain, wal) = {
        let mut store = Store::open(&at).unwrap();
        let plain = store.save(&io_run(&[100.0], 20_000, &[]), &Placement::default()).unwrap();
        (plain, store.save(&committing, &Placement::default()).unwrap())
    };
    let listed = |store: &Store| -> Vec<Option<(f64, u64)>> {
        store.list(&Filter::default()).unwrap().iter().map(|r| r.commit_latency_ns).collect()
    };
    assert_eq!(listed(&Store::open(&at).unwrap()), [None, Some((250_000.0, 900_000))]);
    // The same store as schema 4 left it: no commit columns (nor a live row's run id, of 7).
    // Opening it migrates, and the columns are filled in from the records.
    rusqlite::Connection::open(dir.path().join("results.db"))
        .unwrap()
        .execute_batch(
            "ALTER TABLE runs DROP COLUMN commit_count; ALTER TABLE runs DROP COLUMN commit_mean_ns; \
             ALTER TABLE runs DROP COLUMN commit_p99_ns; ALTER TABLE live_runs DROP COLUMN run_id; \
             PRAGMA user_version = 4;",
        )
        .unwrap();
    let store = Store::open(&at).unwrap();
    assert_eq!(listed(&store), [None, Some((250_000.0, 900_000))], "runs {plain} and {wal}");
    let lead = store.list(&Filter::default()).unwrap()[1].lead_latency();
    assert_eq!(lead, (spindle_model::record::LatencyOf::Commit, Some(250_000.0), Some(900_000)));
}

/// Thousands of ids and ranges in one selection (`report $(seq 1 2 4001)`, serve's download of
/// a list): a chain of as many `OR`s passed SQLite's expression depth limit and failed with an
/// internal error.
#[test]
fn thousands_of_ids_and_ranges_select_as_a_few_do() {
    for scratch in each_backend() {
        let mut store = Store::open(&scratch.at).unwrap();
        let saved: Vec<i64> = (0..5)
            .map(|_| store.save(&io_run(&[100.0, 110.0], 200_000, &[]), &Placement::default()).unwrap())
            .collect();
        let mut ids: Vec<(i64, i64)> = (0..3000).map(|i| (saved[4] + 10 + 2 * i, saved[4] + 10 + 2 * i)).collect();
        ids.extend((0..1500).map(|i| (saved[4] + 100_000 + 3 * i, saved[4] + 100_001 + 3 * i)));
        ids.extend([(saved[0], saved[0]), (saved[2], saved[3]), (saved[3], saved[2])]);
        let picked = store.list(&Filter { ids, ..Filter::default() }).unwrap();
        assert_eq!(picked.iter().map(|r| r.id).collect::<Vec<_>>(), [saved[0], saved[2], saved[3]]);
    }
}
