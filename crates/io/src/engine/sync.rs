//! The sync engine: pread/pwrite/fdatasync, one I/O at a time per thread, on any Unix.
//! Concurrency comes from threads, so a plan gives it a depth of 1.

use super::performed::{Perform, Performed};
use super::{BufferPool, EngineTarget, IoRequest, OpKind};
use std::os::fd::RawFd;

/// pread, pwrite or fdatasync on one file, into and out of the worker's buffers.
pub struct Syscalls<'a> {
    fd: RawFd,
    buffers: &'a BufferPool,
}

pub type SyncEngine<'a> = Performed<Syscalls<'a>>;

impl<'a> SyncEngine<'a> {
    pub fn new(target: EngineTarget<'a>) -> SyncEngine<'a> {
        Performed::with(Syscalls { fd: target.fd, buffers: target.buffers }, target.depth)
    }
}

impl Perform for Syscalls<'_> {
    fn perform(&self, r: &IoRequest) -> i32 {
        let buf = self.buffers.slot_ptr(r.slot);
        // SAFETY: the slot buffer holds at least `len` bytes (the pool's slot size is the
        // job's largest block) and is owned by this in-flight request until its completion.
        let n = unsafe {
            match r.kind {
                OpKind::Read => libc::pread(self.fd, buf.cast(), r.len as usize, r.offset as libc::off_t),
                OpKind::Write => libc::pwrite(self.fd, buf.cast(), r.len as usize, r.offset as libc::off_t),
                OpKind::Flush => libc::fdatasync(self.fd) as isize,
            }
        };
        if n < 0 { -std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO) } else { n as i32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Completion, Engine};
    use std::io::Write;
    use std::os::fd::AsRawFd;

    #[test]
    fn reads_and_writes_a_file() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&[1u8; 8192]).unwrap();
        let pool = BufferPool::new(1, 4096);
        let mut engine = SyncEngine::new(EngineTarget { fd: file.as_raw_fd(), buffers: &pool, depth: 1 });
        let mut out = Vec::new();
        engine.submit(&[IoRequest { slot: 0, kind: OpKind::Read, offset: 4096, len: 4096 }]).unwrap();
        engine.reap(1, None, &mut out, ()).unwrap();
        assert_eq!(out, vec![Completion { slot: 0, result: 4096 }]);
        assert!(unsafe { pool.slot_mut(0) }.iter().all(|b| *b == 1));
        engine.submit(&[IoRequest { slot: 0, kind: OpKind::Read, offset: 8192, len: 4096 }]).unwrap();
        engine.submit(&[IoRequest { slot: 0, kind: OpKind::Flush, offset: 0, len: 0 }]).unwrap();
        out.clear();
        engine.reap(1, None, &mut out, ()).unwrap();
        assert_eq!(out[0].result, 0, "read at end of file returns 0 bytes");
        assert_eq!(out[1].result, 0, "fdatasync succeeds");
    }
}
