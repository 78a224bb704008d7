//! Runs one job: opens every target once per worker thread, starts all workers together, waits
//! while reporting progress, and hands the workers' results to the collector.

use crate::engine::null::NullEngine;
use crate::engine::sync::SyncEngine;
use crate::engine::uring::UringEngine;
use crate::engine::{BufferPool, Engine, EngineError, EngineTarget};
use crate::live::{self, LiveCounters, LiveSnapshot};
use crate::pattern::Pattern;
use crate::payload::{Plain, Verifying};
use crate::target::marker::{self, VerifyMark};
use crate::verify::map::GenerationMap;
use crate::verify::saver::{self, Saving};
use crate::verify::state::{self, StateError};
use crate::worker::{self, Timing, WorkerPlan, WorkerResult};
use spindle_clock::{StartAt, StartGate};
use spindle_model::spec::{EngineKind, JobSpec, TargetSpec};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum RunError {
    #[error("cannot open {path}: {source}{hint}")]
    Open { path: PathBuf, source: std::io::Error, hint: &'static str },
    #[error("cannot start the {engine} engine on {path}: {source}")]
    Engine { engine: &'static str, path: PathBuf, source: EngineError },
    /// A bug, said as one: a run missing a worker's figures must not pass for a whole one.
    #[error(
        "a worker thread failed ({0}); the run's figures would be incomplete, so none are given (a bug: please report it)"
    )]
    WorkerPanicked(String),
    /// The system would not give the run another thread (a limit on threads or memory).
    #[error(
        "could not start worker thread {started} of {threads}: {source}; the run's figures would be incomplete, so none are given (fewer --threads, or raise the process's thread limit)"
    )]
    WorkerThread { started: usize, threads: usize, source: std::io::Error },
    #[error(transparent)]
    State(#[from] StateError),
    #[error(
        "could not start the thread that keeps the verified run's write state ({0}); nothing was measured (raise the process's thread limit)"
    )]
    StateSaverThread(std::io::Error),
}

impl RunError {
    /// Whether the run could not start because the filesystem is full (its write state could
    /// not be saved): the same end as a worker meeting ENOSPC, with nothing measured.
    pub fn is_out_of_space(&self) -> bool {
        matches!(self, RunError::State(e) if e.is_out_of_space())
    }
}

/// What the progress display is shown once a second.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub elapsed: Duration,
    /// True while still inside the warm-up.
    pub warming_up: bool,
    /// Counters over the last interval.
    pub interval: LiveSnapshot,
    pub interval_secs: f64,
}

/// The raw outcome of a job, before collection into a run record.
pub struct JobOutcome {
    pub workers: Vec<WorkerResult>,
    pub started_at: SystemTime,
    /// Nanoseconds measured: from the warm-up's end to the window's end, or to the last moment
    /// known to be before a stop (see `window_end`).
    pub measured_ns: u64,
    pub interrupted: bool,
    /// Process CPU time over the measured window (user, system), seconds.
    pub cpu: (f64, f64),
    /// The run's verification id, under `--verify`.
    pub verify_id: Option<u64>,
    /// When the workers began together (after any wait for a start shared with other agents).
    pub time_zero: Instant,
    /// What the run found worth saying about itself (a verification state it could not save).
    pub warnings: Vec<String>,
}

/// Runs `spec` until its duration ends or `stop` is raised (Ctrl-C, out of space).
pub fn run_job(
    spec: &JobSpec,
    stop: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<JobOutcome, RunError> {
    run_job_at(spec, stop, None, on_progress)
}

/// As `run_job`, with the workers, once ready, starting at `start` (an agent's share of a
/// run many agents start together) instead of at once.
pub fn run_job_at(
    spec: &JobSpec,
    stop: &AtomicBool,
    start: Option<&StartAt>,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<JobOutcome, RunError> {
    run_job_spawning(spec, stop, start, on_progress, &|_| Ok(()))
}

/// `run_job_at`, asking `may_spawn(i)` before starting worker `i`'s thread: the seam through
/// which tests make a thread fail to start, as the system's thread limit would.
fn run_job_spawning(
    spec: &JobSpec,
    stop: &AtomicBool,
    start: Option<&StartAt>,
    on_progress: &mut dyn FnMut(Progress),
    may_spawn: &dyn Fn(usize) -> std::io::Result<()>,
) -> Result<JobOutcome, RunError> {
    let patterns: Vec<Pattern> =
        spec.targets.iter().enumerate().map(|(i, t)| Pattern::new(&t.workload, t.size, 0x5eed + i as u64)).collect();
    let plans = worker_plans(spec, &patterns);
    let live: Vec<LiveCounters> = plans.iter().map(|_| LiveCounters::default()).collect();
    let verify_id = spec.verify.then(new_verify_id);
    let maps: Vec<Option<GenerationMap>> = spec
        .targets
        .iter()
        .map(|t| spec.verify.then(|| GenerationMap::new(t.size, t.workload.block_granule())))
        .collect();
    let mut savings = match verify_id {
        Some(id) => start_states(spec, id, &maps)?,
        None => {
            forget_verification(spec);
            Vec::new()
        }
    };
    if let Some(id) = verify_id {
        mark_verified(spec, id, None);
    }
    let verify = verify_id.map(|id| (id, maps.as_slice()));
    // Every worker opens its target and engine first, then all begin at one instant.
    let gate = StartGate::new(plans.len());
    let failure: Mutex<Option<RunError>> = Mutex::new(None);
    let started_at = SystemTime::now();

    let (workers, measured_ns, cpu, time_zero) = std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(plans.len());
        for (i, (plan, live)) in plans.iter().zip(&live).enumerate() {
            let (gate, failure, target) = (&gate, &failure, &spec.targets[plan.target]);
            let map = verify.and_then(|(id, maps)| Some((id, maps[plan.target].as_ref()?)));
            let spawned = may_spawn(i).and_then(|()| {
                std::thread::Builder::new().name(format!("spindle-t{}-{}", plan.target, plan.thread)).spawn_scoped(
                    scope,
                    move || {
                        let result = drive(spec, target, plan, map, gate, stop, live);
                        result.map_err(|e| {
                            stop.store(true, Ordering::Relaxed);
                            failure.lock().expect("failure lock").get_or_insert(e);
                        })
                    },
                )
            });
            match spawned {
                Ok(h) => handles.push(h),
                Err(source) => {
                    // The workers started stop as soon as they pass the gate, which no longer
                    // waits for the threads that never came.
                    stop.store(true, Ordering::Relaxed);
                    gate.withdraw(plans.len() - i);
                    failure.lock().expect("failure lock").get_or_insert(RunError::WorkerThread {
                        started: i,
                        threads: plans.len(),
                        source,
                    });
                    break;
                }
            }
        }

        let saved = start_saver(scope, &mut savings, stop, &failure);
        let t0 = gate.open_at(start);
        let (open_ns, cpu) = watch(spec, t0, stop, &live, &handles, on_progress);
        // Every worker has ended: the saver stops, and the last save (below) is complete.
        drop(saved);
        let workers = join_workers(handles, &failure);
        let measured_ns = window_end(spec, open_ns, &workers).saturating_sub(spec.warmup_ns);
        (workers, measured_ns, cpu, t0)
    });
    let warnings: Vec<String> = savings.into_iter().filter_map(Saving::finish).collect();
    if let Some(e) = failure.into_inner().expect("failure lock") {
        return Err(e);
    }
    let interrupted = measured_ns < spec.duration_ns;
    if let Some(id) = verify_id {
        mark_verified(spec, id, Some(&maps));
    }
    Ok(JobOutcome { workers, started_at, measured_ns, interrupted, cpu, verify_id, time_zero, warnings })
}

/// Each worker thread's plan: its target's workload, its share of the target's rate, and
/// where its sequential stream begins.
fn worker_plans<'p>(spec: &JobSpec, patterns: &'p [Pattern]) -> Vec<WorkerPlan<'p>> {
    let mut plans = Vec::new();
    for (index, target) in spec.targets.iter().enumerate() {
        let w = &target.workload;
        let threads = w.threads.max(1) as u64;
        let align = w.smallest_block().max(1);
        // Each thread paces its share of the target's rate.
        let interval_ns = w.rate_iops.map(|r| ((1e9 * threads as f64 / r.max(1) as f64) as u64).max(1));
        for thread in 0..w.threads {
            plans.push(WorkerPlan {
                target: index,
                thread,
                target_size: target.size,
                pattern: &patterns[index],
                depth: w.depth,
                fsync_every: w.fsync_every,
                write_through: w.write_through,
                interval_ns,
                first_start_ns: interval_ns.map_or(0, |i| worker::first_start_ns(i, thread, w.threads)),
                sequential_start: target.size / threads * thread as u64 / align * align,
                seed: 0x9e37_79b9_7f4a_7c15 ^ ((index as u64) << 32 | thread as u64),
            });
        }
    }
    plans
}

/// Starts the thread that keeps a verified run's write states saved, if there are any; the
/// thread stops when the returned sender is dropped. A thread that cannot start stops the run.
fn start_saver<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    savings: &'scope mut [Saving<'_>],
    stop: &AtomicBool,
    failure: &Mutex<Option<RunError>>,
) -> std::sync::mpsc::Sender<()> {
    let (saved, saving) = std::sync::mpsc::channel::<()>();
    if !savings.is_empty() {
        let spawned = std::thread::Builder::new()
            .name("spindle-state".into())
            .spawn_scoped(scope, move || saver::keep_saving(savings, &saving));
        if let Err(source) = spawned {
            // A verified run that cannot keep its state could not be judged after a crash.
            stop.store(true, Ordering::Relaxed);
            failure.lock().expect("failure lock").get_or_insert(RunError::StateSaverThread(source));
        }
    }
    saved
}

/// The results of the workers that ended well; a worker that panicked is the run's failure.
fn join_workers(
    handles: Vec<std::thread::ScopedJoinHandle<'_, Result<WorkerResult, ()>>>,
    failure: &Mutex<Option<RunError>>,
) -> Vec<WorkerResult> {
    handles
        .into_iter()
        .filter_map(|h| match h.join() {
            Ok(result) => result.ok(),
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                failure.lock().expect("failure lock").get_or_insert(RunError::WorkerPanicked(why));
                None
            }
        })
        .collect()
}

/// An id no other run shares, stamped into every sector a verified run writes.
pub fn new_verify_id() -> u64 {
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    crate::rng::Rng::new(nanos ^ u64::from(std::process::id()) << 32).next_u64()
}

/// Saves an empty write state for each target the run writes (the null engine writes
/// nothing), before the first write; refused when something not spindle's is in its way.
fn start_states<'m>(spec: &JobSpec, id: u64, maps: &'m [Option<GenerationMap>]) -> Result<Vec<Saving<'m>>, RunError> {
    if spec.engine == EngineKind::Null {
        return Ok(Vec::new());
    }
    let mut savings = Vec::new();
    for (target, map) in spec.targets.iter().zip(maps) {
        if let Some(map) = map.as_ref().filter(|_| target.workload.writes()) {
            savings.push(Saving::start(map, id, target.size, &state::path_for(&target.path))?);
        }
    }
    Ok(savings)
}

/// Takes the verification mark and state off each target this run (without `--verify`)
/// writes: its writes replace the stamps they describe, and `spindle verify` would call them
/// lost. Nothing there, or something not spindle's, is left as it is.
fn forget_verification(spec: &JobSpec) {
    if spec.engine == EngineKind::Null {
        return;
    }
    for target in spec.targets.iter().filter(|t| t.workload.writes()) {
        let _ = state::remove_for(&target.path);
        if std::fs::metadata(&target.path).is_ok_and(|m| m.is_file()) {
            let _ = marker::clear_verified(&target.path);
        }
    }
}

/// Marks each written file target as written under `--verify` (before the first write, so
/// a run cut off by a crash can still be checked; with the bytes written once it ends).
/// Devices take no mark: their write state names the run (or `spindle verify --id`).
fn mark_verified(spec: &JobSpec, id: u64, maps: Option<&[Option<GenerationMap>]>) {
    if spec.engine == EngineKind::Null {
        return;
    }
    for (i, target) in spec.targets.iter().enumerate() {
        let is_file = std::fs::metadata(&target.path).is_ok_and(|m| m.is_file());
        if is_file && target.workload.writes() {
            let written = maps.and_then(|m| m[i].as_ref()).map(GenerationMap::written_bytes);
            // A file system without user xattrs cannot keep the mark; the run still checks
            // what it reads, and `spindle verify --id` checks the file afterwards.
            let _ = marker::set_verified(&target.path, VerifyMark { id, written });
        }
    }
}

/// Where the run's window closed, nanoseconds after time zero: at its end, or at the latest
/// moment the coordinator (`open_ns`) or any worker knew no stop had come. Every I/O counted
/// completed by then (a worker counts a batch only once it knows no stop came before it).
fn window_end(spec: &JobSpec, open_ns: u64, workers: &[WorkerResult]) -> u64 {
    let workers_open = workers.iter().map(|w| w.window_end_ns).max().unwrap_or(0);
    open_ns.max(workers_open).min(spec.warmup_ns + spec.duration_ns)
}

/// The coordinator's loop while workers run: progress once a second, process CPU at the
/// measurement's edges, and the last moment it knew no stop had come (nanoseconds after
/// time zero; the window's end when none came).
fn watch<T>(
    spec: &JobSpec,
    t0: Instant,
    stop: &AtomicBool,
    live: &[LiveCounters],
    handles: &[std::thread::ScopedJoinHandle<'_, T>],
    on_progress: &mut dyn FnMut(Progress),
) -> (u64, (f64, f64)) {
    let warmup = Duration::from_nanos(spec.warmup_ns);
    let end = warmup + Duration::from_nanos(spec.duration_ns);
    let mut cpu_start = (warmup.is_zero()).then(worker::process_cpu);
    let (mut stopped, mut open) = (false, Duration::ZERO);
    let mut last_tick = Duration::ZERO;
    let mut last = LiveSnapshot::default();
    while !handles.iter().all(|h| h.is_finished()) {
        let elapsed = t0.elapsed();
        let next_tick = last_tick + Duration::from_secs(1);
        let mut wake = next_tick.min(end);
        if cpu_start.is_none() {
            wake = wake.min(warmup);
        }
        std::thread::sleep(wake.saturating_sub(elapsed).clamp(Duration::from_millis(1), Duration::from_millis(100)));
        let elapsed = t0.elapsed();
        if cpu_start.is_none() && elapsed >= warmup {
            cpu_start = Some(worker::process_cpu());
        }
        // The flag is read after the clock: found down, no stop had come by `elapsed`.
        if !stopped {
            stopped = stop.load(Ordering::Relaxed);
            if !stopped {
                open = elapsed;
            }
        }
        if elapsed >= next_tick {
            let now = live::total(live);
            let interval = LiveSnapshot {
                ios: now.ios.saturating_sub(last.ios),
                bytes: now.bytes.saturating_sub(last.bytes),
                latency_sum_ns: now.latency_sum_ns.saturating_sub(last.latency_sum_ns),
            };
            let interval_secs = (elapsed - last_tick).as_secs_f64();
            // A second that began in the warm-up is the warm-up's.
            on_progress(Progress { elapsed, warming_up: last_tick < warmup, interval, interval_secs });
            last = now;
            last_tick = elapsed;
        }
    }
    // Workers that saw a stop before this loop first looked (a Ctrl-C as the run began) ended
    // it then, not at its planned end: the window is theirs, not the end.
    if !stopped && !stop.load(Ordering::Relaxed) {
        open = end;
    }
    let cpu_end = worker::process_cpu();
    let cpu_start = cpu_start.unwrap_or(cpu_end);
    (open.as_nanos() as u64, (cpu_end.0 - cpu_start.0, cpu_end.1 - cpu_start.1))
}

/// One worker thread: open the target with the workload's flags, start the job's engine on it
/// (chosen here, once), wait for the common start, run.
fn drive(
    spec: &JobSpec,
    target: &TargetSpec,
    plan: &WorkerPlan<'_>,
    verify: Option<(u64, &GenerationMap)>,
    gate: &StartGate,
    stop: &AtomicBool,
    live: &LiveCounters,
) -> Result<WorkerResult, RunError> {
    let setup = open_target(target, spec.engine);
    let (fd, buffers) = match setup {
        // A verified run's reads wait for their check in buffers of their own (`Verifying`).
        Ok(fd) => {
            let slots = plan.depth as usize * if verify.is_some() { 2 } else { 1 };
            let mut pool = BufferPool::new(slots, target.workload.largest_block() as usize);
            // Before the clock starts: random bytes in a deep pool of large blocks take
            // milliseconds to make (tens in a debug build), which would count as a measured
            // time without I/O.
            pool.fill_random(&mut crate::rng::Rng::new(plan.seed.rotate_left(17)));
            (fd, pool)
        }
        Err(e) => {
            stop.store(true, Ordering::Relaxed);
            gate.arrive();
            return Err(e);
        }
    };
    let engine_target = EngineTarget { fd: fd.as_raw_fd(), buffers: &buffers, depth: plan.depth };
    let timing =
        |t0: Instant| Timing { t0, measure_start_ns: spec.warmup_ns, end_ns: spec.warmup_ns + spec.duration_ns };
    let engine_error = |source| RunError::Engine { engine: spec.engine.name(), path: target.path.clone(), source };
    match spec.engine {
        EngineKind::Null => {
            let mut engine = NullEngine::new(plan.depth);
            let t0 = gate.arrive();
            Ok(work(&mut engine, &buffers, plan, verify, &target.path, timing(t0), stop, live))
        }
        EngineKind::Sync => {
            let mut engine = SyncEngine::new(engine_target);
            let t0 = gate.arrive();
            Ok(work(&mut engine, &buffers, plan, verify, &target.path, timing(t0), stop, live))
        }
        EngineKind::Uring => match UringEngine::open(engine_target) {
            Ok(mut engine) => {
                let t0 = gate.arrive();
                Ok(work(&mut engine, &buffers, plan, verify, &target.path, timing(t0), stop, live))
            }
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                gate.arrive();
                Err(engine_error(e))
            }
        },
    }
}

/// Runs the worker with the job's payload, chosen here once like the engine: plain bytes, or
/// every sector stamped and checked.
#[allow(clippy::too_many_arguments)]
fn work<E: Engine>(
    engine: &mut E,
    buffers: &BufferPool,
    plan: &WorkerPlan<'_>,
    verify: Option<(u64, &GenerationMap)>,
    path: &std::path::Path,
    timing: Timing,
    stop: &AtomicBool,
    live: &LiveCounters,
) -> WorkerResult {
    match verify {
        None => worker::run(engine, buffers, plan, &mut Plain, timing, stop, live),
        Some((id, map)) => {
            let mut payload = Verifying::new(map, id, path, plan.depth as usize, buffers);
            let mut result = worker::run(engine, buffers, plan, &mut payload, timing, stop, live);
            result.verify = Some(payload.summary);
            result
        }
    }
}

/// Opens a target the way its workload needs: direct unless buffered, O_DSYNC when
/// write-through, read-only when nothing is written. The null engine opens nothing real.
fn open_target(target: &TargetSpec, engine: EngineKind) -> Result<OwnedFd, RunError> {
    use std::os::unix::fs::OpenOptionsExt;
    let w = &target.workload;
    let path = if engine == EngineKind::Null { PathBuf::from("/dev/null") } else { target.path.clone() };
    let mut flags = 0;
    if !w.buffered && engine != EngineKind::Null {
        flags |= libc::O_DIRECT;
    }
    if w.write_through {
        flags |= libc::O_DSYNC;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(w.writes() || engine == EngineKind::Null)
        .custom_flags(flags)
        .open(&path)
        .map_err(|source| {
            let hint = if source.raw_os_error() == Some(libc::EINVAL) && flags & libc::O_DIRECT != 0 {
                " (this filesystem does not support direct I/O; use --buffered)"
            } else {
                ""
            };
            RunError::Open { path: path.clone(), source, hint }
        })?;
    Ok(file.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::spec::{EngineKind, MixEntry, TargetSpec, Workload};

    fn null_job(threads: u32) -> JobSpec {
        JobSpec {
            engine: EngineKind::Null,
            duration_ns: 200_000_000,
            warmup_ns: 0,
            targets: vec![TargetSpec {
                path: "null-target".into(),
                size: 1 << 30,
                workload: Workload {
                    mix: vec![MixEntry { block: 8192, weight: 1, read_pct: 100, random_pct: 100 }],
                    threads,
                    depth: 1,
                    rate_iops: None,
                    buffered: false,
                    write_through: false,
                    fsync_every: 0,
                },
            }],
            keep_file: false,
            force: false,
            allow_destroy: false,
            verify: false,
        }
    }

    #[test]
    fn a_worker_thread_that_cannot_start_fails_the_run_and_the_started_ones_stop() {
        let stop = AtomicBool::new(false);
        let refuse_third =
            |i: usize| if i == 2 { Err(std::io::Error::from_raw_os_error(libc::EAGAIN)) } else { Ok(()) };
        let result = run_job_spawning(&null_job(4), &stop, None, &mut |_| {}, &refuse_third);
        match result {
            Err(RunError::WorkerThread { started: 2, threads: 4, .. }) => {}
            Err(other) => panic!("wrong error: {other}"),
            Ok(_) => panic!("a run missing a worker passed for a whole one"),
        }
        assert!(stop.load(Ordering::Relaxed), "the started workers were told to stop");
    }
}
