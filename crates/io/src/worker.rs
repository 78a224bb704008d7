//! The per-thread worker loop: keep `depth` I/Os in flight on one engine, stamp each I/O when
//! it is handed to the kernel and each batch of completions with one clock read, and record
//! every completion into the thread's own histograms. Nothing here takes a lock; the only
//! shared writes are relaxed stores to this worker's live counters.
//!
//! The measured window is [warm-up's end, end), closed early by a stop (Ctrl-C, out of space,
//! another worker's error). An I/O belongs to the window its completion falls in, as the
//! kernel's disk statistics (iostat, perfmon) count it between two reads: one still in flight
//! at the window's end is not in it (it is counted as such), and one issued in the warm-up
//! that completes inside the window is. fio differs: it reaps the I/Os in flight once its
//! runtime is up, accounts them, and its runtime runs until they are in. The stop flag is read
//! right after each batch's clock read, so a batch stamped before a stop was seen is known to
//! have completed inside the window; one stamped after may not have, and is left out.

use crate::engine::{BufferPool, Completion, Engine, EngineError, Handoff, IoRequest, OpKind};
use crate::live::LiveCounters;
use crate::pattern::{Access, Pattern};
use crate::payload::{Done, Payload};
use crate::rng::Rng;
use spindle_clock::{Pacer, starts_between};
use spindle_model::Histogram;
use spindle_model::verify::VerifySummary;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// When the worker measures, relative to the job's common start instant.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub t0: Instant,
    /// I/Os that start before this are warm-up and are not recorded.
    pub measure_start_ns: u64,
    /// No I/O starts at or after this.
    pub end_ns: u64,
}

/// What one thread of one target does.
pub struct WorkerPlan<'a> {
    pub target: usize,
    pub thread: u32,
    pub target_size: u64,
    pub pattern: &'a Pattern,
    pub depth: u32,
    pub fsync_every: u32,
    /// Writes are O_DSYNC: each is durable when it completes, a commit of its own.
    pub write_through: bool,
    /// Nanoseconds between intended I/O starts when rate-limited.
    pub interval_ns: Option<u64>,
    /// When this thread's first rate-limited I/O is meant to start, nanoseconds after the job's
    /// start (see [`first_start_ns`]).
    pub first_start_ns: u64,
    /// Where this thread's sequential stream begins (threads of a target start spread out).
    pub sequential_start: u64,
    pub seed: u64,
}

/// One second of this worker's measurement.
pub use spindle_model::series::Second;

/// Everything a worker measured; merged by the collector.
pub struct WorkerResult {
    pub target: usize,
    pub thread: u32,
    pub read: Histogram,
    pub write: Histogram,
    pub flush: Histogram,
    /// Commits: `fsync_every` writes and their flush, from the first write's start to the
    /// flush's end; or, write-through without flushes, each write.
    pub commit: Histogram,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub seconds: Vec<Second>,
    /// Failed I/Os by kind (errno name, or `short read`/`short write`).
    pub errors: BTreeMap<String, u64>,
    pub out_of_space: bool,
    /// Thread CPU time over the measured window (user, system), seconds.
    pub cpu: (f64, f64),
    /// Rate-limited I/Os meant to start inside the measured window that were never issued,
    /// because the device (or spindle) fell behind the schedule.
    pub behind_schedule: u64,
    /// Reads and writes issued before the window's end that completed after it (or after a
    /// stop was seen): not counted.
    pub in_flight_at_end: u64,
    /// Where this worker's window closed, nanoseconds after time zero: the end, or the last
    /// moment it knew no stop had come.
    pub window_end_ns: u64,
    /// What verification found (runs under `--verify`).
    pub verify: Option<VerifySummary>,
}

/// Where thread `thread` of a target's `threads` starts its rate-limited schedule: `thread / threads`
/// of an interval after time zero, so the target's threads take turns instead of all issuing at
/// the same instants (which would queue every thread's I/O behind the others' at each tick).
pub fn first_start_ns(interval_ns: u64, thread: u32, threads: u32) -> u64 {
    interval_ns * u64::from(thread) / u64::from(threads.max(1))
}

#[derive(Clone, Copy)]
struct InFlight {
    /// What its latency counts from: its hand-off to the kernel (the time it was queued until
    /// the engine reports the hand-off), less `device_late_ns`.
    start_ns: u64,
    /// How late the device made a rate-limited I/O past its intended start (see
    /// [`device_lateness`]); 0 for any other.
    device_late_ns: u64,
    kind: OpKind,
    offset: u64,
    len: u32,
}

impl InFlight {
    const IDLE: InFlight = InFlight { start_ns: 0, device_late_ns: 0, kind: OpKind::Read, offset: 0, len: 0 };
}

/// Where a batch of completions fell, by its clock read.
#[derive(Clone, Copy)]
enum Phase {
    /// Before the window: shown live as the warm-up's, not recorded.
    Warmup,
    /// Inside the window, in this second of it (its per-second slot made): recorded.
    Measured(usize),
    /// After the window's end, or after a stop was seen: in flight at the end.
    After,
}

/// Places tried for an I/O before the worker waits for its own I/Os to free some: under
/// verification an I/O may not overlap one in flight.
const PLACE_TRIES: usize = 8;

struct State<'a> {
    plan: &'a WorkerPlan<'a>,
    result: WorkerResult,
    rng: Rng,
    pattern_index: usize,
    sequential_cursor: u64,
    next_intended_ns: u64,
    /// The last moment the worker could not issue because the device held it: every slot in
    /// flight, or a flush waiting for the writes before it.
    device_busy_until_ns: u64,
    /// The start of the first write the next flush will cover, once one has completed.
    commit_start_ns: Option<u64>,
    measure_start_ns: u64,
    /// The end of the worker's timing window.
    end_ns: u64,
    /// A stop was seen (raised by anyone, this worker included).
    stopped: bool,
    /// The last moment this worker knew no stop had come: its clock read just before a look at
    /// the stop flag that found it down.
    open_ns: u64,
    writes_since_flush: u32,
    measuring: bool,
    cpu_start: (f64, f64),
    /// Reads and writes completed in the warm-up (count, bytes, latency sum): not results,
    /// but the live progress shows them, so a warm-up never looks like a stall.
    warmup: (u64, u64, u64),
}

impl State<'_> {
    /// Whether `--fsync-every` writes have been issued since the last flush.
    #[inline(always)]
    fn flush_due(&self) -> bool {
        self.plan.fsync_every > 0 && self.writes_since_flush >= self.plan.fsync_every
    }

    /// Looks at the stop flag right after the clock read `now`: found down, the window was
    /// still open at `now`. Once seen, a stop is not looked for again.
    #[inline(always)]
    fn look_for_stop(&mut self, now: u64, stop: &AtomicBool) {
        if !self.stopped {
            self.stopped = stop.load(Ordering::Relaxed);
            if !self.stopped {
                self.open_ns = now;
            }
        }
    }

    /// The second of the window a batch stamped `now` (inside it) falls in, its slot in the
    /// per-second counts made: once a batch, as its completions share the stamp.
    #[inline(always)]
    fn second_of(&mut self, now: u64) -> usize {
        let second = ((now - self.measure_start_ns) / 1_000_000_000) as usize;
        if second >= self.result.seconds.len() {
            self.result.seconds.resize(second + 1, Second::default());
        }
        second
    }

    /// When the next rate-limited I/O could be issued: its intended start, unless the worker is
    /// `held` (stopping, or the device holds every slot or a flush waits for the writes).
    #[inline(always)]
    fn next_due(&self, held: bool) -> Option<u64> {
        (self.plan.interval_ns.is_some() && !held).then(|| self.next_intended_ns.min(self.end_ns))
    }

    /// Where a batch of completions stamped `now` falls.
    #[inline(always)]
    fn phase(&mut self, now: u64) -> Phase {
        if self.stopped || now >= self.end_ns {
            Phase::After
        } else if now < self.measure_start_ns {
            Phase::Warmup
        } else {
            Phase::Measured(self.second_of(now))
        }
    }

    /// Starts the CPU clock of the window at its first clock read inside it.
    #[inline(always)]
    fn begin_measuring(&mut self, now: u64) {
        if !self.measuring && now >= self.measure_start_ns {
            self.measuring = true;
            self.cpu_start = thread_cpu();
        }
    }

    /// Shows the live progress what this worker has done, warm-up included.
    #[inline(always)]
    fn publish(&self, live: &LiveCounters) {
        let r = &self.result;
        live.publish(
            self.warmup.0 + r.read.count() + r.write.count(),
            self.warmup.1 + r.bytes_read + r.bytes_written,
            self.warmup.2 + (r.read.sum() + r.write.sum()) as u64,
        );
    }

    /// The engine failed: counted as an error, and every worker stops.
    #[cold]
    fn engine_failed(&mut self, e: &EngineError, stop: &AtomicBool) {
        count_error(&mut self.result, &e.to_string());
        stop.store(true, Ordering::Relaxed);
    }

    /// Raises the stop for every worker, this one first.
    fn raise_stop(&mut self, stop: &AtomicBool) {
        self.stopped = true;
        stop.store(true, Ordering::Relaxed);
    }
}

impl<'a> State<'a> {
    /// A worker's state before its first I/O: nothing counted, its pattern and stream at
    /// this thread's start.
    fn new(plan: &'a WorkerPlan<'a>, timing: Timing) -> State<'a> {
        let rng = Rng::new(plan.seed);
        let pattern_len = plan.pattern.len().max(1);
        let threads_offset = plan.thread as u64 * 0x9e37_79b9;
        State {
            plan,
            result: WorkerResult {
                target: plan.target,
                thread: plan.thread,
                read: Histogram::new(),
                write: Histogram::new(),
                flush: Histogram::new(),
                commit: Histogram::new(),
                bytes_read: 0,
                bytes_written: 0,
                seconds: Vec::new(),
                errors: BTreeMap::new(),
                out_of_space: false,
                cpu: (0.0, 0.0),
                behind_schedule: 0,
                in_flight_at_end: 0,
                window_end_ns: 0,
                verify: None,
            },
            rng,
            pattern_index: (threads_offset % pattern_len as u64) as usize,
            sequential_cursor: plan.sequential_start,
            next_intended_ns: plan.first_start_ns,
            device_busy_until_ns: 0,
            commit_start_ns: None,
            measure_start_ns: timing.measure_start_ns,
            end_ns: timing.end_ns,
            stopped: false,
            open_ns: 0,
            writes_since_flush: 0,
            measuring: false,
            cpu_start: (0.0, 0.0),
            warmup: (0, 0, 0),
        }
    }
}

/// Runs one worker to the end of its timing window, or until `stop` is raised.
pub fn run<E: Engine, P: Payload>(
    engine: &mut E,
    buffers: &BufferPool,
    plan: &WorkerPlan<'_>,
    payload: &mut P,
    timing: Timing,
    stop: &AtomicBool,
    live: &LiveCounters,
) -> WorkerResult {
    let depth = plan.depth.max(1) as usize;
    let mut s = State::new(plan, timing);

    // `depth` buffers take turns in flight; a payload may keep more in its pool (spares for
    // reads waiting to be checked), and any of them may be handed back by `completed`.
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    let mut in_flight = vec![InFlight::IDLE; buffers.slots().max(depth)];
    let mut batch: Vec<IoRequest> = Vec::with_capacity(depth);
    let mut done: Vec<Completion> = Vec::with_capacity(depth * 2);
    let mut outstanding = 0usize;
    let mut flushing = false;
    let mut pacer = Pacer::for_this_thread(timing.t0);
    let mut now = pacer.now();
    s.look_for_stop(now, stop);

    loop {
        let stopping = now >= timing.end_ns || s.stopped;
        if stopping && outstanding == 0 {
            break;
        }
        s.begin_measuring(now);
        if !stopping {
            if s.flush_due() {
                // A flush covers the writes before it: wait for them, then sync alone, as a
                // database's log writer does before acknowledging a commit.
                if outstanding == 0 && !flushing {
                    queue_flush(&mut free, &mut in_flight, &mut batch, now);
                    flushing = true;
                }
            } else {
                fill_batch(&mut s, &mut free, &mut in_flight, &mut batch, buffers, payload, now);
            }
        }
        if !batch.is_empty() {
            if let Err(e) = engine.submit(&batch) {
                s.engine_failed(&e, stop);
                break;
            }
            outstanding += batch.len();
            batch.clear();
        }
        // Whether the device holds the worker: no slot free, or a flush waiting for the writes.
        let blocked = s.flush_due() || free.is_empty();
        let due = s.next_due(stopping || blocked);
        if outstanding == 0 {
            // Ahead of schedule with nothing in flight: wait for the next intended start.
            now = match due {
                Some(at) => pacer.wait_until(at, stop),
                None => pacer.now(),
            };
            s.look_for_stop(now, stop);
            continue;
        }
        // With an I/O falling due, wait for completions only until shortly before it; inside
        // the pacer's margin, poll, so the I/O is issued on time and completions are still
        // stamped as they arrive.
        let timeout = due.map(|at| pacer.wait_before(now, at));
        let handover = Handover { in_flight: &mut in_flight, pacer: &pacer, payload: &mut *payload, buffers };
        if let Err(e) = engine.reap(1, timeout, &mut done, handover) {
            s.engine_failed(&e, stop);
            break;
        }
        now = pacer.now();
        s.look_for_stop(now, stop);
        if blocked {
            s.device_busy_until_ns = now;
        }
        let phase = s.phase(now);
        for c in done.drain(..) {
            let io = in_flight[c.slot as usize];
            outstanding -= 1;
            complete(&mut s, io, c.result, now, phase, stop);
            if io.kind != OpKind::Flush {
                let ok = c.result >= 0 && c.result as u32 >= io.len;
                let done = Done { kind: io.kind, slot: c.slot, offset: io.offset, len: io.len, ok };
                free.push(payload.completed(done, buffers));
            }
            if io.kind == OpKind::Flush {
                free.push(c.slot);
                flushing = false;
                s.writes_since_flush = 0;
                s.commit_start_ns = None;
            }
        }
        s.publish(live);
    }
    finish(s, engine, payload, buffers, outstanding, done, timing)
}

/// Queues a flush alone in a slot of its own (nothing else is in flight).
#[inline(always)]
fn queue_flush(free: &mut Vec<u32>, in_flight: &mut [InFlight], batch: &mut Vec<IoRequest>, now: u64) {
    let slot = free.pop().expect("a free slot when nothing is in flight");
    in_flight[slot as usize] = InFlight { start_ns: now, kind: OpKind::Flush, ..InFlight::IDLE };
    batch.push(IoRequest { slot, kind: OpKind::Flush, offset: 0, len: 0 });
}

/// The worker's result once its loop has ended: the payload's kept work done, the window's
/// end and the starts it fell behind, anything still in flight drained, its CPU time.
fn finish<E: Engine, P: Payload>(
    mut s: State<'_>,
    engine: &mut E,
    payload: &mut P,
    buffers: &BufferPool,
    mut outstanding: usize,
    mut done: Vec<Completion>,
    timing: Timing,
) -> WorkerResult {
    while payload.idle(buffers) {}
    let window_end = s.open_ns.min(timing.end_ns);
    s.result.window_end_ns = window_end;
    if let Some(interval) = s.plan.interval_ns {
        s.result.behind_schedule = starts_between(s.next_intended_ns, interval, timing.measure_start_ns, window_end);
    }
    // Drain anything still in flight after an engine error, so buffers are not freed under the kernel.
    while outstanding > 0 {
        done.clear();
        if engine.reap(outstanding, None, &mut done, ()).is_err() {
            break;
        }
        outstanding = outstanding.saturating_sub(done.len());
    }
    if s.plan.write_through && s.plan.fsync_every == 0 {
        // Each O_DSYNC write is a commit; copied once here rather than recorded twice per I/O.
        s.result.commit = s.result.write.clone();
    }
    if s.measuring {
        let end = thread_cpu();
        s.result.cpu = (end.0 - s.cpu_start.0, end.1 - s.cpu_start.1);
    }
    s.result
}

/// What the worker does as the engine hands its I/Os to the kernel: stamps each I/O's start at
/// its own hand-off, and, once the device holds the batch, lets the payload do the work it kept
/// for that moment (checking reads), so that work overlaps the device instead of delaying it.
struct Handover<'a, P> {
    in_flight: &'a mut [InFlight],
    pacer: &'a Pacer,
    payload: &'a mut P,
    buffers: &'a BufferPool,
}

impl<P: Payload> Handoff for Handover<'_, P> {
    #[inline(always)]
    fn handing(&mut self, slots: &[u32]) {
        let at = self.pacer.now();
        for &slot in slots {
            let io = &mut self.in_flight[slot as usize];
            io.start_ns = at.saturating_sub(io.device_late_ns);
        }
    }

    #[inline(always)]
    fn keeps_work(&self) -> bool {
        self.payload.keeps_work()
    }

    #[inline(always)]
    fn idle(&mut self) -> bool {
        self.payload.idle(self.buffers)
    }
}

/// Queues new I/Os into every free slot (or as many as the rate allows by `now`).
#[inline(always)]
fn fill_batch<P: Payload>(
    s: &mut State<'_>,
    free: &mut Vec<u32>,
    in_flight: &mut [InFlight],
    batch: &mut Vec<IoRequest>,
    buffers: &BufferPool,
    payload: &mut P,
    now: u64,
) {
    let pattern = s.plan.pattern;
    // Rate-limited starts due by now, and never one intended after the window's end.
    let due_by = now.min(s.end_ns.saturating_sub(1));
    let pattern_len = pattern.len();
    // Whether places were drawn: only then have the next places moved since the last look-ahead.
    let mut drew = false;
    while let Some(slot) = free.pop() {
        if s.plan.interval_ns.is_some() && s.next_intended_ns > due_by {
            free.push(slot);
            break;
        }
        let access = pattern.get(s.pattern_index);
        drew = true;
        let Some(offset) = place(s, access, payload) else {
            // Every place tried is in flight: reap first.
            free.push(slot);
            break;
        };
        s.pattern_index += 1;
        if s.pattern_index == pattern_len {
            s.pattern_index = 0;
        }
        let device_late_ns = match s.plan.interval_ns {
            Some(interval) => {
                let intended = s.next_intended_ns;
                s.next_intended_ns += interval;
                device_lateness(intended, s.device_busy_until_ns)
            }
            None => 0,
        };
        let kind = if access.read {
            OpKind::Read
        } else {
            // SAFETY: the slot is free (just popped from the free list), so not in flight.
            let buf = unsafe { &mut buffers.slot_mut(slot)[..access.len as usize] };
            payload.fill_write(buf, slot, offset, &mut s.rng);
            s.writes_since_flush += 1;
            OpKind::Write
        };
        in_flight[slot as usize] = InFlight {
            // Until the engine reports the hand-off (sync performs the I/O in `submit`, right after).
            start_ns: now - device_late_ns,
            device_late_ns,
            kind,
            offset,
            len: access.len,
        };
        batch.push(IoRequest { slot, kind, offset, len: access.len });
        if s.flush_due() {
            break;
        }
    }
    if P::ANTICIPATES && drew {
        anticipate_places(s, payload);
    }
}

/// Places looked ahead for a payload that anticipates them: about as many I/Os as one reap
/// hands back at depth 32 on a virtio disk (it completes in waves of ~16).
const LOOK_AHEAD: usize = 16;

/// Tells the payload where the next I/Os will probably go, drawn from copies of the random
/// stream and the cursor, so a verifying payload's claims after the next reap find the map's
/// cells in the cache: their misses then overlap the reap instead of following it one by one.
/// A claim that fails (a place in flight) draws again and shifts the stream: those hints are
/// wasted, nothing else.
#[inline(always)]
fn anticipate_places<P: Payload>(s: &State<'_>, payload: &P) {
    let (mut rng, mut cursor) = (s.rng.clone(), s.sequential_cursor);
    let pattern = s.plan.pattern;
    let mut index = s.pattern_index;
    for _ in 0..LOOK_AHEAD.min(s.plan.depth as usize) {
        let offset;
        (offset, cursor) = draw_place(pattern.get(index), &mut rng, cursor, s.plan.target_size);
        payload.anticipate(offset);
        index += 1;
        if index == pattern.len() {
            index = 0;
        }
    }
}

/// How late the device made a rate-limited I/O: how long past its intended start every slot
/// was in flight or a flush pending (until `device_busy_until`). Its latency counts that much
/// before its issue, so a stalled device shows as latency instead of silently lowering the
/// offered load (coordinated omission). Lateness that was spindle's own (a slot was free, but
/// the thread woke late or was not scheduled) is not the device's and is not counted.
#[inline(always)]
fn device_lateness(intended: u64, device_busy_until: u64) -> u64 {
    device_busy_until.saturating_sub(intended)
}

/// Where the next I/O of `access` goes, claimed from the payload; None when every place tried
/// overlaps an I/O in flight (only under verification, whose claims are exclusive).
#[inline(always)]
fn place<P: Payload>(s: &mut State<'_>, access: Access, payload: &mut P) -> Option<u64> {
    for _ in 0..PLACE_TRIES {
        let offset;
        (offset, s.sequential_cursor) = draw_place(access, &mut s.rng, s.sequential_cursor, s.plan.target_size);
        if payload.claim(offset, access.len) {
            return Some(offset);
        }
    }
    None
}

/// The next place for `access` and the sequential cursor after it: a random place from `rng`,
/// or the cursor's, which wraps at the target's end.
#[inline(always)]
fn draw_place(access: Access, rng: &mut Rng, cursor: u64, target_size: u64) -> (u64, u64) {
    if access.random {
        (access.random_offset(rng), cursor)
    } else {
        let at = if cursor + access.len as u64 > target_size { 0 } else { cursor };
        (at, at + access.len as u64)
    }
}

/// Records one completion, stamped `now`, in the batch's `phase`. A failure is counted
/// wherever it fell: it is something the target did.
#[inline(always)]
fn complete(s: &mut State<'_>, io: InFlight, result: i32, now: u64, phase: Phase, stop: &AtomicBool) {
    if result < 0 || (io.kind != OpKind::Flush && (result as u32) < io.len) {
        if result == -libc::ENOSPC {
            s.result.out_of_space = true;
            s.raise_stop(stop);
        }
        let kind = if result < 0 {
            errno_name(-result)
        } else if io.kind == OpKind::Read {
            "short read".to_string()
        } else {
            "short write".to_string()
        };
        count_error(&mut s.result, &kind);
        return;
    }
    // Only a flush closes a commit group, so without --fsync-every there is nothing to track.
    if io.kind == OpKind::Write && s.plan.fsync_every > 0 {
        s.commit_start_ns = Some(s.commit_start_ns.map_or(io.start_ns, |first| first.min(io.start_ns)));
    }
    let second = match phase {
        Phase::Measured(second) => second,
        Phase::Warmup if io.kind != OpKind::Flush => {
            s.warmup.0 += 1;
            s.warmup.1 += io.len as u64;
            s.warmup.2 += now.saturating_sub(io.start_ns);
            return;
        }
        Phase::After if io.kind != OpKind::Flush => {
            s.result.in_flight_at_end += 1;
            return;
        }
        Phase::Warmup | Phase::After => return,
    };
    let latency = now.saturating_sub(io.start_ns);
    match io.kind {
        OpKind::Read => {
            s.result.read.record(latency);
            s.result.bytes_read += io.len as u64;
        }
        OpKind::Write => {
            s.result.write.record(latency);
            s.result.bytes_written += io.len as u64;
        }
        OpKind::Flush => {
            s.result.flush.record(latency);
            // The commit a database acknowledges: its writes and this flush, in the window its
            // flush completed in.
            if let Some(first) = s.commit_start_ns {
                s.result.commit.record(now.saturating_sub(first));
            }
            return;
        }
    }
    let sec = &mut s.result.seconds[second];
    if io.kind == OpKind::Read {
        sec.read_ios += 1;
    } else {
        sec.write_ios += 1;
    }
    sec.bytes += io.len as u64;
    sec.latency_sum_ns += latency;
    sec.latency_max_ns = sec.latency_max_ns.max(latency);
}

fn count_error(result: &mut WorkerResult, kind: &str) {
    *result.errors.entry(kind.to_string()).or_insert(0) += 1;
}

/// `EIO`, `ENOSPC`, ...: the symbolic name DBAs search for, with the message beside it.
pub fn errno_name(errno: i32) -> String {
    let name = match errno {
        libc::EIO => "EIO",
        libc::ENOSPC => "ENOSPC",
        libc::EINVAL => "EINVAL",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::EFAULT => "EFAULT",
        libc::ENXIO => "ENXIO",
        libc::EROFS => "EROFS",
        libc::EDQUOT => "EDQUOT",
        libc::ETIMEDOUT => "ETIMEDOUT",
        _ => return format!("errno {errno} ({})", std::io::Error::from_raw_os_error(errno)),
    };
    format!("{name} ({})", std::io::Error::from_raw_os_error(errno))
}

/// This thread's CPU time so far (user, system), seconds.
pub fn thread_cpu() -> (f64, f64) {
    rusage(libc::RUSAGE_THREAD)
}

/// The whole process's CPU time so far (user, system), seconds.
pub fn process_cpu() -> (f64, f64) {
    rusage(libc::RUSAGE_SELF)
}

fn rusage(who: libc::c_int) -> (f64, f64) {
    // SAFETY: getrusage writes into the zeroed struct we own.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut usage) } != 0 {
        return (0.0, 0.0);
    }
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    (secs(usage.ru_utime), secs(usage.ru_stime))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::null::NullEngine;
    use spindle_model::spec::{MixEntry, Workload};
    use std::cell::RefCell;
    use std::time::Duration;

    /// Records the places anticipated and claimed (with how many hints came before), and stops
    /// the worker after `CLAIMS` claims.
    struct Recorder<'a> {
        hints: RefCell<Vec<u64>>,
        claims: Vec<(u64, usize)>,
        stop: &'a AtomicBool,
    }

    const CLAIMS: usize = 5000;
    const SIZE: u64 = 64 << 20;

    /// One thread's workload of `mix` at `depth`, paced at `rate_iops` if given.
    fn workload(mix: Vec<MixEntry>, depth: u32, rate_iops: Option<u64>) -> Workload {
        Workload { mix, threads: 1, depth, rate_iops, buffered: false, write_through: false, fsync_every: 0 }
    }

    /// The only thread's plan over a `SIZE`-byte target.
    fn plan_of(pattern: &Pattern, depth: u32, interval_ns: Option<u64>) -> WorkerPlan<'_> {
        WorkerPlan {
            target: 0,
            thread: 0,
            target_size: SIZE,
            pattern,
            depth,
            fsync_every: 0,
            write_through: false,
            interval_ns,
            first_start_ns: 0,
            sequential_start: 0,
            seed: 11,
        }
    }

    impl Payload for Recorder<'_> {
        const ANTICIPATES: bool = true;
        fn anticipate(&self, offset: u64) {
            self.hints.borrow_mut().push(offset);
        }
        fn claim(&mut self, offset: u64, _len: u32) -> bool {
            self.claims.push((offset, self.hints.borrow().len()));
            if self.claims.len() == CLAIMS {
                self.stop.store(true, Ordering::Relaxed);
            }
            true
        }
        fn fill_write(&mut self, _buf: &mut [u8], _slot: u32, _offset: u64, _rng: &mut Rng) {}
        fn completed(&mut self, done: Done, _buffers: &BufferPool) -> u32 {
            done.slot
        }
        fn keeps_work(&self) -> bool {
            false
        }
        fn idle(&mut self, _buffers: &BufferPool) -> bool {
            false
        }
    }

    #[test]
    fn the_places_anticipated_are_the_places_then_claimed() {
        // Random and sequential I/O of two sizes, so the hints must follow the pattern.
        let mix = |block, random_pct| MixEntry { block, weight: 1, read_pct: 50, random_pct };
        let pattern = Pattern::new(&workload(vec![mix(4096, 100), mix(8192, 0), mix(4096, 50)], 8, None), SIZE, 3);
        let plan = WorkerPlan { sequential_start: SIZE - 8192 * 3, ..plan_of(&pattern, 8, None) };
        let buffers = BufferPool::new(8, 8192);
        let stop = AtomicBool::new(false);
        let mut payload = Recorder { hints: RefCell::default(), claims: Vec::new(), stop: &stop };
        let timing = Timing { t0: Instant::now(), measure_start_ns: 0, end_ns: u64::MAX / 2 };
        run(&mut NullEngine::new(8), &buffers, &plan, &mut payload, timing, &stop, &LiveCounters::default());
        let hints = payload.hints.borrow();
        // The null engine completes a whole batch per reap, so each fill's places are the
        // front of the look-ahead made at the end of the fill before it.
        let mut missed = payload
            .claims
            .iter()
            .filter(|&&(_, hinted)| hinted > 0)
            .filter(|&&(offset, hinted)| !hints[hinted - LOOK_AHEAD.min(8)..hinted].contains(&offset));
        assert!(payload.claims.len() >= CLAIMS, "{} claims", payload.claims.len());
        assert_eq!(missed.next(), None, "a place claimed but not anticipated");
        assert!(payload.claims.iter().any(|&(offset, _)| offset == 0), "the sequential stream wrapped");
    }

    #[test]
    fn a_paced_worker_waking_after_its_window_owes_every_start_of_it() {
        let read = MixEntry { block: 4096, weight: 1, read_pct: 100, random_pct: 100 };
        let pattern = Pattern::new(&workload(vec![read], 4, Some(500)), SIZE, 3);
        let plan = plan_of(&pattern, 4, Some(2_000_000));
        // The host ran the worker only after its 400 ms window had closed: 200 starts, one
        // every 2 ms, were intended inside it, and none can complete inside it now.
        let window = 400_000_000;
        let timing = Timing {
            t0: Instant::now() - std::time::Duration::from_nanos(2 * window),
            measure_start_ns: 0,
            end_ns: window,
        };
        let (buffers, stop) = (BufferPool::new(4, 4096), AtomicBool::new(false));
        let live = LiveCounters::default();
        let r = run(&mut NullEngine::new(4), &buffers, &plan, &mut crate::payload::Plain, timing, &stop, &live);
        assert_eq!((r.read.count(), r.behind_schedule, r.in_flight_at_end), (0, 200, 0), "owed, none issued late");
    }

    /// The null engine, except that its first reap returns only at `until`, raising `stop`
    /// first when given one (a Ctrl-C while the I/O was in flight): the first I/O spans that.
    struct Held<'a> {
        engine: NullEngine,
        until: Instant,
        raise: Option<&'a AtomicBool>,
        held: bool,
    }

    impl Engine for Held<'_> {
        fn submit(&mut self, requests: &[IoRequest]) -> Result<(), crate::engine::EngineError> {
            self.engine.submit(requests)
        }

        fn reap(
            &mut self,
            min: usize,
            timeout: Option<std::time::Duration>,
            out: &mut Vec<Completion>,
            handoff: impl Handoff,
        ) -> Result<(), crate::engine::EngineError> {
            if !std::mem::replace(&mut self.held, true) {
                if let Some(stop) = self.raise {
                    stop.store(true, Ordering::Relaxed);
                }
                while Instant::now() < self.until {
                    std::thread::sleep(self.until - Instant::now());
                }
            }
            self.engine.reap(min, timeout, out, handoff)
        }
    }

    /// One read at a time for a 50 ms window, on `engine`; the worker's result.
    fn one_read_at_a_time(engine: &mut Held<'_>, t0: Instant, stop: &AtomicBool) -> WorkerResult {
        let read = MixEntry { block: 4096, weight: 1, read_pct: 100, random_pct: 100 };
        let pattern = Pattern::new(&workload(vec![read], 1, None), SIZE, 3);
        let plan = plan_of(&pattern, 1, None);
        let timing = Timing { t0, measure_start_ns: 0, end_ns: 50_000_000 };
        let (buffers, live) = (BufferPool::new(1, 4096), LiveCounters::default());
        run(engine, &buffers, &plan, &mut crate::payload::Plain, timing, stop, &live)
    }

    #[test]
    fn an_io_in_flight_at_the_windows_end_is_not_in_it() {
        // The first read is issued at once and completes 20 ms after the 50 ms window's end.
        let (t0, stop) = (Instant::now(), AtomicBool::new(false));
        let mut engine =
            Held { engine: NullEngine::new(1), until: t0 + Duration::from_millis(70), raise: None, held: false };
        let r = one_read_at_a_time(&mut engine, t0, &stop);
        assert_eq!((r.read.count(), r.in_flight_at_end), (0, 1), "the read spanning the end is not counted");
        assert_eq!(r.window_end_ns, 50_000_000, "no stop came: the window ran to its end");
    }

    #[test]
    fn an_io_that_completes_after_a_stop_is_not_in_the_window_the_stop_closed() {
        // Ctrl-C while the first read is in flight; it completes 400 ms after it began.
        let (t0, stop) = (Instant::now(), AtomicBool::new(false));
        let until = t0 + Duration::from_millis(400);
        let mut engine = Held { engine: NullEngine::new(1), until, raise: Some(&stop), held: false };
        let r = one_read_at_a_time(&mut engine, t0, &stop);
        assert_eq!((r.read.count(), r.in_flight_at_end), (0, 1), "the read the stop cut is not counted");
        let completed = until.duration_since(t0).as_nanos() as u64;
        assert!(r.window_end_ns < completed, "the window closed before the read completed: {}", r.window_end_ns);
    }

    #[test]
    fn threads_of_a_target_take_turns() {
        assert_eq!(first_start_ns(1_000, 0, 4), 0);
        assert_eq!(first_start_ns(1_000, 1, 4), 250);
        assert_eq!(first_start_ns(1_000, 3, 4), 750);
        assert_eq!(first_start_ns(1_000, 0, 0), 0, "no threads divides by nothing");
    }

    #[test]
    fn only_the_devices_lateness_counts_as_latency() {
        assert_eq!(device_lateness(100, 50), 0, "a slot was free at the intended start");
        // Every slot busy until 180: issued at 181, it counts from 101, near its intended start.
        assert_eq!(device_lateness(100, 180), 80);
        // Held until 130, issued at 170: 30 ns were the device's, 40 spindle's.
        assert_eq!(device_lateness(100, 130), 30);
    }
}
