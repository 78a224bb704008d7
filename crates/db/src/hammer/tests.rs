use super::*;
use crate::load::{LoadMode, LoadOptions};
use crate::sqlite::{SqliteSession, load};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A real SQLite Hammer database of 1000 rows.
fn loaded() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    let opts = LoadOptions { rows: 1000, mode: LoadMode::New };
    load(&path, &opts, &mut |_, _| {}, &AtomicBool::new(false)).unwrap();
    (dir, path)
}

fn plan(sessions: u32, read_pct: u8) -> RunPlan {
    RunPlan {
        sessions,
        read_pct,
        rows: 1000,
        warmup: Duration::from_millis(50),
        duration: Duration::from_millis(300),
        think: Duration::ZERO,
        rate_per_session: None,
    }
}

#[test]
fn every_session_runs_and_the_ratio_holds() {
    let (_dir, path) = loaded();
    let stop = AtomicBool::new(false);
    let out = run(&plan(4, 70), |_| SqliteSession::connect(&path), &stop, &Live::default()).unwrap();
    assert_eq!(out.sessions.len(), 4);
    let reads: u64 = out.sessions.iter().map(|s| s.reads.count()).sum();
    let writes: u64 = out.sessions.iter().map(|s| s.writes.count()).sum();
    let n = (reads + writes) as f64;
    let share = reads as f64 / n;
    // Four standard deviations of a binomial share: a loaded machine may allow few calls.
    let tolerance = 4.0 * (0.7 * 0.3 / n).sqrt() + 0.01;
    assert!((share - 0.7).abs() < tolerance, "{share} of {n} calls");
    assert!(
        out.sessions.iter().all(|s| s.reads.count() + s.writes.count() > 0 && s.errors.is_empty()),
        "every session called, without errors: {:?}",
        out.sessions.iter().map(|s| &s.errors).collect::<Vec<_>>()
    );
    assert!(!out.interrupted && out.measured <= Duration::from_millis(300));
    let sum: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("SELECT sum(Amount) FROM TestTransaction", [], |r| r.get(0))
        .unwrap();
    assert!(sum > 0, "updates landed");
}

#[test]
fn a_rate_is_held_and_think_time_slows_sessions() {
    let (_dir, path) = loaded();
    let stop = AtomicBool::new(false);
    let capped = RunPlan { rate_per_session: Some(100.0), duration: Duration::from_millis(500), ..plan(2, 50) };
    let out = run(&capped, |_| SqliteSession::connect(&path), &stop, &Live::default()).unwrap();
    let calls: u64 = out.sessions.iter().map(|s| s.reads.count() + s.writes.count()).sum();
    assert!((90..=110).contains(&calls), "2 sessions x 100/s x 0.5 s: {calls}");
    let thinking = RunPlan { think: Duration::from_millis(10), ..plan(1, 50) };
    let out = run(&thinking, |_| SqliteSession::connect(&path), &stop, &Live::default()).unwrap();
    let calls = out.sessions[0].reads.count() + out.sessions[0].writes.count();
    assert!(calls <= 31, "at most one call per 10 ms: {calls}");
}

#[test]
fn a_failed_connection_stops_the_run_before_it_measures() {
    let (_dir, path) = loaded();
    let stop = AtomicBool::new(false);
    let connect = |i| {
        if i == 2 { SqliteSession::connect(Path::new("/nonexistent/h.db")) } else { SqliteSession::connect(&path) }
    };
    assert!(run(&plan(4, 50), connect, &stop, &Live::default()).is_err());
}
