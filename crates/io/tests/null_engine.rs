//! The whole job path (plan -> workers -> collector) on the null engine, which makes the
//! numbers deterministic enough to check exactly.

use spindle_io::collect::{RunContext, build_record};
use spindle_io::run::run_job;
use spindle_model::record::RunStatus;
use spindle_model::spec::{EngineKind, JobSpec, MixEntry, TargetSpec, Workload};
use std::sync::atomic::AtomicBool;

fn job(read_pct: u8, sizes: &[(u64, u32)], threads: u32, depth: u32, rate: Option<u64>, fsync_every: u32) -> JobSpec {
    let mix = sizes.iter().map(|&(block, weight)| MixEntry { block, weight, read_pct, random_pct: 100 }).collect();
    JobSpec {
        engine: EngineKind::Null,
        duration_ns: 300_000_000,
        warmup_ns: 100_000_000,
        targets: vec![TargetSpec {
            path: "null-target".into(),
            size: 1 << 30,
            workload: Workload {
                mix,
                threads,
                depth,
                rate_iops: rate,
                buffered: false,
                write_through: false,
                fsync_every,
            },
        }],
        keep_file: false,
        force: false,
        allow_destroy: false,
        verify: false,
    }
}

fn context() -> RunContext {
    RunContext {
        labels: Default::default(),
        command_line: vec![],
        environment: Default::default(),
        counters: None,
        warnings: vec![],
    }
}

#[test]
fn mixed_workload_proportions_and_totals() {
    let spec = job(70, &[(65536, 83), (512, 17)], 2, 16, None, 0);
    let stop = AtomicBool::new(false);
    let outcome = run_job(&spec, &stop, &mut |_| {}).unwrap();
    assert!(!outcome.interrupted);
    let record = build_record(&spec, &outcome, context());
    let s = &record.summary;
    assert_eq!(record.status, RunStatus::Complete);
    assert!(s.ios > 10_000, "null engine should do many I/Os: {}", s.ios);
    let read_share = s.read.ios as f64 / s.ios as f64;
    assert!((read_share - 0.70).abs() < 0.01, "read share {read_share}");
    let mean_size = s.bytes as f64 / s.ios as f64;
    let expected = 0.83 * 65536.0 + 0.17 * 512.0;
    assert!((mean_size - expected).abs() / expected < 0.01, "mean size {mean_size}");
    assert_eq!(record.threads.len(), 2);
    assert_eq!(record.threads.iter().map(|t| t.stats.ios).sum::<u64>(), s.ios);
    assert_eq!(record.targets[0].stats.ios, s.ios);
    assert!((record.measured_seconds - 0.3).abs() < 1e-9);
    assert_eq!(record.timeseries.len(), 1);
    let series_ios: u64 = record.timeseries.iter().map(|p| p.read_ios + p.write_ios).sum();
    assert_eq!(series_ios, s.ios);
}

/// Intended starts of a schedule beginning at `first` (ns), one every `interval`, in `window`.
fn starts(first: u64, interval: u64, window: std::ops::Range<u64>) -> u64 {
    (first..window.end).step_by(interval as usize).filter(|t| window.contains(t)).count() as u64
}

/// The job without a warm-up: the window holds what completed in it, so with a warm-up it
/// would also hold I/Os the warm-up's schedule issued, and the sums below would not be exact.
fn unwarmed(job: JobSpec) -> JobSpec {
    JobSpec { warmup_ns: 0, ..job }
}

#[test]
fn a_rate_limited_run_issues_or_owes_rate_times_duration() {
    let spec = unwarmed(job(100, &[(8192, 1)], 1, 4, Some(2000), 0));
    let outcome = run_job(&spec, &AtomicBool::new(false), &mut |_| {}).unwrap();
    let record = build_record(&spec, &outcome, context());
    // 2000 IOPS over the 0.3 s measured: every intended start in the window completed in it,
    // was still in flight at its end, or is owed.
    assert_eq!(starts(0, 500_000, 0..300_000_000), 600);
    assert_eq!(record.summary.ios + record.in_flight_at_end + record.behind_schedule_ios, 600);
}

#[test]
fn a_rate_beyond_reach_is_reported_as_owed() {
    // One intended start per nanosecond: no engine keeps that.
    let spec = unwarmed(job(100, &[(4096, 1)], 1, 1, Some(u32::MAX as u64), 0));
    let outcome = run_job(&spec, &AtomicBool::new(false), &mut |_| {}).unwrap();
    let record = build_record(&spec, &outcome, context());
    assert!(record.behind_schedule_ios > 0);
    assert_eq!(record.summary.ios + record.in_flight_at_end + record.behind_schedule_ios, 300_000_000);
}

#[test]
fn threads_schedules_are_staggered() {
    // 20 IOPS over 2 threads: each thread every 100 ms, thread 1 starting 50 ms after thread 0,
    // measured from 0 to 250 ms: thread 0 at 0, 100, 200 ms; thread 1 at 50, 150 ms (250 is
    // outside). Without the stagger both would have 3.
    let mut spec = job(100, &[(4096, 1)], 2, 1, Some(20), 0);
    (spec.warmup_ns, spec.duration_ns) = (0, 250_000_000);
    let outcome = run_job(&spec, &AtomicBool::new(false), &mut |_| {}).unwrap();
    let scheduled = |thread: u32| {
        let w = outcome.workers.iter().find(|w| w.thread == thread).unwrap();
        w.read.count() + w.in_flight_at_end + w.behind_schedule
    };
    assert_eq!(starts(50_000_000, 100_000_000, 0..250_000_000), 2);
    assert_eq!((scheduled(0), scheduled(1)), (3, 2));
}

#[test]
fn fsync_every_records_flushes_separately() {
    let spec = job(0, &[(4096, 1)], 1, 1, None, 4);
    let outcome = run_job(&spec, &AtomicBool::new(false), &mut |_| {}).unwrap();
    let record = build_record(&spec, &outcome, context());
    let s = &record.summary;
    assert!(s.flush.count > 0);
    let ratio = s.write.ios as f64 / s.flush.count as f64;
    assert!((ratio - 4.0).abs() < 0.01, "writes per flush {ratio}");
}

#[test]
fn stop_marks_the_run_interrupted() {
    let mut spec = job(100, &[(4096, 1)], 1, 1, None, 0);
    spec.duration_ns = 60_000_000_000;
    let stop = AtomicBool::new(false);
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(300));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        run_job(&spec, &stop, &mut |_| {}).unwrap()
    });
    assert!(outcome.interrupted);
    let record = build_record(&spec, &outcome, context());
    assert_eq!(record.status, RunStatus::Interrupted);
    // Measured until the stop was seen, however late a loaded machine woke the stopping thread.
    assert!(record.measured_seconds < 60.0, "{}", record.measured_seconds);
    assert!(record.summary.ios > 0);
}

/// The live progress counts the warm-up's I/O (labelled as warm-up), so a warm-up never shows
/// as a stall of 0 IOPS, while the result counts only what was measured.
#[test]
fn progress_shows_the_warm_up_working_and_says_it_is_warm_up() {
    let mut spec = job(100, &[(8192, 1)], 1, 4, None, 0);
    // Ticks come each whole second: at 1 s and 2 s for the warm-up's two seconds, at 3 s for
    // the first measured one.
    spec.warmup_ns = 2_000_000_000;
    spec.duration_ns = 1_500_000_000;
    let mut ticks = Vec::new();
    let outcome = run_job(&spec, &AtomicBool::new(false), &mut |p| ticks.push((p.warming_up, p.interval.ios))).unwrap();
    let warm: Vec<u64> = ticks.iter().filter(|t| t.0).map(|t| t.1).collect();
    assert!(warm.len() >= 2, "{ticks:?}");
    assert!(warm.iter().all(|ios| *ios > 0), "warm-up seconds show their I/O: {ticks:?}");
    assert!(ticks.iter().any(|t| !t.0), "the measured second is not labelled warm-up: {ticks:?}");
    let record = build_record(&spec, &outcome, context());
    let measured = record.summary.ios;
    let shown: u64 = ticks.iter().map(|t| t.1).sum();
    assert!(shown > measured, "progress counted the warm-up too ({shown} shown, {measured} measured)");
}

#[test]
fn a_stop_raised_before_the_run_begins_is_an_interrupted_run_not_a_complete_one() {
    // A Ctrl-C between the test file's fill and the start: the workers stop at once.
    let spec = job(100, &[(4096, 1)], 2, 8, None, 0);
    let stop = AtomicBool::new(true);
    let outcome = run_job(&spec, &stop, &mut |_| {}).unwrap();
    assert!(outcome.interrupted, "measured {} ns of {}", outcome.measured_ns, spec.duration_ns);
    assert!(outcome.measured_ns < spec.duration_ns);
    let record = build_record(&spec, &outcome, context());
    assert_eq!(record.status, RunStatus::Interrupted);
}
