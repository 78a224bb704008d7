use super::*;
use crate::load::{LoadMode, LoadOptions};
use crate::session::{AsyncSession, CallError, Session};
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

/// A session whose calls return at once: what a run records of it is the runner itself.
struct Immediate;

impl Session for Immediate {
    fn get_account(&mut self, _: &str) -> Result<(), CallError> {
        Ok(())
    }
    fn update_account(&mut self, _: &str, _: i64) -> Result<(), CallError> {
        Ok(())
    }
}

impl AsyncSession for Immediate {
    async fn get_account(&mut self, _: &str) -> Result<(), CallError> {
        Ok(())
    }
    async fn update_account(&mut self, _: &str, _: i64) -> Result<(), CallError> {
        Ok(())
    }
}

/// How late calls start under `--rate`: with calls that take no time, each call's latency
/// (counted from its intended start) is that error. Not a test; run it with
/// `cargo test --release -p spindle-db -- --ignored --nocapture rate_wait_error`.
#[test]
#[ignore]
fn rate_wait_error() {
    let paced = |sessions: u32, rate: f64| RunPlan {
        sessions,
        read_pct: 100,
        rows: 1000,
        warmup: Duration::from_millis(500),
        duration: Duration::from_secs(3),
        think: Duration::ZERO,
        rate_per_session: Some(rate),
    };
    // The process's CPU time (user + system), so the cost of precision shows beside it.
    let cpu = || {
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage fills the struct it is given.
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
        let us = |t: libc::timeval| t.tv_sec as f64 * 1e6 + t.tv_usec as f64;
        us(u.ru_utime) + us(u.ru_stime)
    };
    let show = |what: &str, out: &RunOutcome, cpu_us: f64| {
        let mut all = spindle_model::Histogram::new();
        out.sessions.iter().for_each(|s| all.merge(&s.reads));
        let us = |q: f64| all.percentile(q) as f64 / 1000.0;
        println!(
            "{what}: {} calls, start error p50 {:.1} us, p99 {:.1} us, p99.9 {:.1} us, max {:.1} us; CPU {:.1} us/call",
            all.count(),
            us(50.0),
            us(99.0),
            us(99.9),
            all.max() as f64 / 1000.0,
            cpu_us / all.count().max(1) as f64
        );
    };
    let stop = AtomicBool::new(false);
    for (sessions, rate) in [(1, 2000.0), (8, 500.0)] {
        let before = cpu();
        let out = run(&paced(sessions, rate), |_| Ok(Immediate), &stop, &Live::default()).unwrap();
        show(&format!("threads, {sessions} sessions x {rate}/s"), &out, cpu() - before);
    }
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    static STOP: AtomicBool = AtomicBool::new(false);
    for (sessions, rate) in [(8, 500.0), (100, 40.0), (1000, 4.0)] {
        let before = cpu();
        let out = rt
            .block_on(run_tasks(&paced(sessions, rate), |_| async { Ok(Immediate) }, &STOP, Default::default()))
            .unwrap();
        show(&format!("tasks, {sessions} sessions x {rate}/s"), &out, cpu() - before);
    }
}
