//! The io_uring engine (Linux): one ring per worker thread, the target registered as fixed file
//! 0 and the buffer pool registered once, so the kernel neither looks up the file nor pins pages
//! per I/O. `submit` only writes SQEs; `reap` hands them to the kernel and waits, finishing with
//! one `io_uring_enter` that both submits the last and waits (with a timeout when the worker has
//! an I/O falling due: the EXT_ARG timespec, kernel 5.11+). Work the caller keeps for idle
//! moments is done just before that last enter.

use super::{BufferPool, Completion, Engine, EngineError, EngineTarget, Handoff, IoRequest, OpKind};
use io_uring::{IoUring, Probe, opcode, squeue, types};
use std::io;
use std::time::Duration;

pub struct UringEngine<'a> {
    ring: IoUring,
    buffers: &'a BufferPool,
    /// Whether the pool is registered; without it (RLIMIT_MEMLOCK too low, more slots than the
    /// kernel registers) plain READ/WRITE are used and the kernel pins pages per I/O.
    fixed_buffers: bool,
    /// Whether `io_uring_enter` takes a timeout (IORING_FEAT_EXT_ARG, 5.11+). Without it a
    /// timed reap waits for its completion: a rate-limited worker with I/Os in flight then
    /// issues its next I/O late, and the lateness counts as latency.
    timed_wait: bool,
    /// Completions drained while the kernel refused submission (EBUSY), kept for the next reap.
    ready: Vec<Completion>,
    /// The slots of the SQEs the kernel has not consumed yet, in submission-queue order.
    queued: Vec<u32>,
}

/// The opcodes this engine issues; `probe` checks all of them.
const OPCODES: [(u8, &str); 5] = [
    (opcode::ReadFixed::CODE, "READ_FIXED"),
    (opcode::WriteFixed::CODE, "WRITE_FIXED"),
    (opcode::Read::CODE, "READ"),
    (opcode::Write::CODE, "WRITE"),
    (opcode::Fsync::CODE, "FSYNC"),
];

/// The fixed-file index the target is registered at.
const TARGET: types::Fixed = types::Fixed(0);

/// The kernel's cap on registered buffers (IORING_MAX_REG_BUFFERS); also bounds `buf_index`.
const MAX_REGISTERED_BUFFERS: usize = 1 << 14;

impl<'a> UringEngine<'a> {
    /// Sets up a ring for `target` on the calling thread, which must be the thread that submits
    /// and reaps (the ring may be created single-issuer).
    pub fn open(target: EngineTarget<'a>) -> Result<UringEngine<'a>, EngineError> {
        let depth = target.depth.max(1);
        let ring = build_ring(depth.saturating_add(1).next_power_of_two())?;
        ring.submitter()
            .register_files(&[target.fd])
            .map_err(|source| EngineError::Os { op: "io_uring_register(files)", source })?;
        let fixed_buffers = register_pool(&ring, target.buffers);
        let timed_wait = ring.params().is_feature_ext_arg();
        let queued = Vec::with_capacity(depth as usize);
        Ok(UringEngine { ring, buffers: target.buffers, fixed_buffers, timed_wait, ready: Vec::new(), queued })
    }

    /// Whether I/O goes through registered buffers (READ_FIXED/WRITE_FIXED).
    pub fn uses_fixed_buffers(&self) -> bool {
        self.fixed_buffers
    }

    #[inline(always)]
    fn entry(&self, r: &IoRequest) -> squeue::Entry {
        let buf = self.buffers.slot_ptr(r.slot);
        let entry = match (r.kind, self.fixed_buffers) {
            (OpKind::Read, true) => opcode::ReadFixed::new(TARGET, buf, r.len, r.slot as u16).offset(r.offset).build(),
            (OpKind::Write, true) => {
                opcode::WriteFixed::new(TARGET, buf, r.len, r.slot as u16).offset(r.offset).build()
            }
            (OpKind::Read, false) => opcode::Read::new(TARGET, buf, r.len).offset(r.offset).build(),
            (OpKind::Write, false) => opcode::Write::new(TARGET, buf, r.len).offset(r.offset).build(),
            (OpKind::Flush, _) => opcode::Fsync::new(TARGET).flags(types::FsyncFlags::DATASYNC).build(),
        };
        entry.user_data(r.slot as u64)
    }

    /// Submits every queued SQE but the last `keep`, one `io_uring_enter` each, as fio does by
    /// default (`iodepth_batch_submit=1`); those kept go with the wait. Measured on a virtio disk, one
    /// 32-deep batch per enter cost a third of the IOPS: the device receives I/Os in bursts,
    /// completes them in bursts, and every I/O waits for its burst. Handing them over singly
    /// keeps the device streaming, and still costs less CPU per I/O than fio, which also enters
    /// the kernel separately to reap.
    ///
    /// Each I/O is announced to `Handoff::handing` just before its enter. The device completes in waves
    /// (~16 at a time at depth 32 on this VM), so a batch is that long: stamped with the batch's
    /// start, its I/Os read 55 us (mean; p99 150 us) slower than they were (2026-11-23).
    fn submit_singly(&mut self, handoff: &mut impl Handoff, keep: usize) -> Result<(), EngineError> {
        while self.queued.len() > keep {
            handoff.handing(&self.queued[..1]);
            // SAFETY: submits one SQE already in the ring; no argument is passed.
            let entered = unsafe { self.ring.submitter().enter::<libc::sigset_t>(1, 0, 0, None) };
            self.forget_consumed();
            match entered {
                Ok(_) => {}
                // `enter` retries whatever is still queued.
                Err(e) if retryable(&e) => return Ok(()),
                Err(source) => return Err(EngineError::Os { op: "io_uring_enter", source }),
            }
        }
        Ok(())
    }

    /// One `io_uring_enter` that submits everything queued and waits until `out` has `min`
    /// completions past `start` or `timeout` has passed, then drains the CQ into `out`.
    fn enter(
        &mut self,
        min: usize,
        start: usize,
        timeout: Option<&types::Timespec>,
        out: &mut Vec<Completion>,
    ) -> Result<(), EngineError> {
        loop {
            let want = min.saturating_sub(out.len() - start);
            let entered = match timeout {
                Some(ts) => self.ring.submitter().submit_with_args(want, &types::SubmitArgs::new().timespec(ts)),
                None => self.ring.submit_and_wait(want),
            };
            self.forget_consumed();
            self.drain(out);
            match entered {
                Ok(_) => return Ok(()),
                // The timeout passed first: the worker has an I/O to issue.
                Err(e) if e.raw_os_error() == Some(libc::ETIME) => return Ok(()),
                // Interrupted by a signal, or the kernel wants its completion backlog drained
                // before it accepts more (EBUSY) or is short of memory (EAGAIN): what was
                // available is drained above; go round until `min` have arrived and everything
                // queued is submitted.
                Err(e) if retryable(&e) => {
                    if out.len() - start >= min && self.ring.submission().is_empty() {
                        return Ok(());
                    }
                }
                Err(source) => return Err(EngineError::Os { op: "io_uring_enter", source }),
            }
        }
    }

    /// Whether a completion waits to be reaped: posted, or pending as the task work that posts
    /// it (IORING_SQ_TASKRUN; deferred task work posts nothing until the wait).
    #[inline(always)]
    fn completion_waiting(&mut self) -> bool {
        self.ring.submission().taskrun() || !self.ring.completion().is_empty()
    }

    /// Drops from `queued` the slots whose SQEs the kernel has consumed (the front of the queue).
    #[inline(always)]
    fn forget_consumed(&mut self) {
        let consumed = self.queued.len() - self.ring.submission().len();
        self.queued.drain(..consumed);
    }

    /// Moves every completion the kernel has posted into `out`.
    #[inline(always)]
    fn drain(&mut self, out: &mut Vec<Completion>) {
        out.extend(self.ring.completion().map(|c| Completion { slot: c.user_data() as u32, result: c.result() }));
    }
}

impl Engine for UringEngine<'_> {
    fn submit(&mut self, requests: &[IoRequest]) -> Result<(), EngineError> {
        for r in requests {
            let entry = self.entry(r);
            // SAFETY: the slot buffer and the registered file outlive the I/O: the worker keeps
            // the pool and the fd until every in-flight slot is reaped.
            while unsafe { self.ring.submission().push(&entry) }.is_err() {
                // The SQ is full only when the caller queues more than the ring holds: hand
                // what is queued to the kernel to make room (those I/Os keep the caller's
                // stamp from when it queued them).
                let submitted = self.ring.submit();
                self.forget_consumed();
                match submitted {
                    Ok(_) => {}
                    Err(e) if retryable(&e) => {
                        let mut ready = std::mem::take(&mut self.ready);
                        self.drain(&mut ready);
                        self.ready = ready;
                    }
                    Err(source) => return Err(EngineError::Os { op: "io_uring_enter", source }),
                }
            }
            self.queued.push(r.slot);
        }
        Ok(())
    }

    fn reap(
        &mut self,
        min: usize,
        timeout: Option<Duration>,
        out: &mut Vec<Completion>,
        mut handoff: impl Handoff,
    ) -> Result<(), EngineError> {
        let start = out.len();
        out.append(&mut self.ready);
        self.submit_singly(&mut handoff, 1)?;
        if handoff.keeps_work() {
            // The kept work a piece at a time while no completion waits, before the last I/O
            // goes with the wait: the work delays no completion beyond the piece under way,
            // and only the last I/O's hand-off, while the device holds all the others. Handing
            // the last over first cost a wait-only enter per reap, which at depth 4 took 9% of
            // a verified run's IOPS (2026-11-25).
            while !self.completion_waiting() && handoff.idle() {}
        }
        if !self.queued.is_empty() {
            handoff.handing(&self.queued);
        }
        let timeout = timeout.filter(|_| self.timed_wait).map(types::Timespec::from);
        self.enter(min, start, timeout.as_ref(), out)
    }
}

fn retryable(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EINTR | libc::EBUSY | libc::EAGAIN))
}

/// Builds the ring with the cheapest completion model the kernel offers, falling back on EINVAL
/// (a flag the kernel does not know). Single-issuer + deferred task work (6.1+) runs completion
/// work only when we wait for it, in our own thread, with no inter-processor interrupts;
/// cooperative task run (5.19+) at least avoids interrupting the thread to run it.
fn build_ring(entries: u32) -> Result<IoUring, EngineError> {
    let configs: [fn(&mut io_uring::Builder); 3] = [
        |b| {
            b.setup_single_issuer().setup_defer_taskrun().setup_coop_taskrun().setup_taskrun_flag();
        },
        |b| {
            b.setup_coop_taskrun().setup_taskrun_flag();
        },
        |_| {},
    ];
    let mut last = None;
    for configure in configs {
        let mut builder = IoUring::builder();
        // Very deep queues still get a ring; `submit` pushes early when the SQ fills.
        builder.setup_clamp();
        configure(&mut builder);
        match builder.build(entries) {
            Ok(ring) => return Ok(ring),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => last = Some(e),
            Err(e) => return Err(unavailable(e)),
        }
    }
    Err(unavailable(last.expect("at least one configuration was tried")))
}

/// Registers one iovec per slot so `buf_index` is the slot. Failure is not fatal: plain
/// READ/WRITE work on unregistered memory.
fn register_pool(ring: &IoUring, pool: &BufferPool) -> bool {
    if pool.slots() > MAX_REGISTERED_BUFFERS {
        return false;
    }
    let iovecs: Vec<libc::iovec> = (0..pool.slots() as u32)
        .map(|slot| libc::iovec { iov_base: pool.slot_ptr(slot).cast(), iov_len: pool.slot_size() })
        .collect();
    // SAFETY: the iovecs cover the pool, which outlives the ring (the engine borrows it).
    unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok()
}

fn unavailable(e: io::Error) -> EngineError {
    EngineError::Unavailable(why_unavailable(&e))
}

fn why_unavailable(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOSYS) => format!("the kernel has no io_uring, or a seccomp policy hides it ({e})"),
        Some(libc::EPERM | libc::EACCES) => {
            format!("io_uring is not permitted here: kernel.io_uring_disabled sysctl or a seccomp policy ({e})")
        }
        Some(libc::ENOMEM) => format!("cannot allocate a ring: locked-memory limit too low? ({e})"),
        _ => format!("io_uring_setup failed: {e}"),
    }
}

/// Checks that io_uring works here and supports every opcode this engine issues, so a caller
/// can fall back to the sync engine with a message instead of failing mid-run.
pub fn probe() -> Result<(), String> {
    let ring = IoUring::new(2).map_err(|e| why_unavailable(&e))?;
    let mut probe = Probe::new();
    ring.submitter()
        .register_probe(&mut probe)
        .map_err(|e| format!("the kernel's io_uring is too old to report its opcodes (needs 5.6+): {e}"))?;
    let missing: Vec<&str> =
        OPCODES.iter().filter(|(code, _)| !probe.is_supported(*code)).map(|(_, name)| *name).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("the kernel's io_uring lacks the {} opcode(s)", missing.join(", ")))
    }
}

#[cfg(test)]
mod tests;
