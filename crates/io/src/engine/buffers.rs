//! Aligned I/O buffers, one slot per outstanding I/O. O_DIRECT needs buffers aligned to the
//! device's logical block; 4096 covers every device in practice, and io_uring registers the
//! whole pool once so the kernel does not pin and unpin pages on every I/O.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;

/// Alignment of every slot; a multiple of any logical block size up to 4096.
pub const ALIGN: usize = 4096;

pub struct BufferPool {
    ptr: NonNull<u8>,
    slot_size: usize,
    slots: usize,
    layout: Layout,
}

// The pool is a plain allocation; slots are handed to the kernel by pointer and never shared
// between threads while in flight.
unsafe impl Send for BufferPool {}

impl BufferPool {
    /// A pool of `slots` buffers of `slot_size` bytes (rounded up to the alignment).
    pub fn new(slots: usize, slot_size: usize) -> BufferPool {
        let slot_size = slot_size.max(1).next_multiple_of(ALIGN);
        let layout = Layout::from_size_align(slot_size * slots.max(1), ALIGN).expect("buffer pool layout");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        BufferPool { ptr, slot_size, slots: slots.max(1), layout }
    }

    pub fn slot_size(&self) -> usize {
        self.slot_size
    }

    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Start of the whole pool (for registering it with the kernel).
    pub fn base(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Start of one slot's buffer.
    #[inline(always)]
    pub fn slot_ptr(&self, slot: u32) -> *mut u8 {
        debug_assert!((slot as usize) < self.slots);
        // SAFETY: slot < slots keeps the offset inside the allocation.
        unsafe { self.ptr.as_ptr().add(slot as usize * self.slot_size) }
    }

    /// Every buffer filled with random bytes (incompressible data for the writes), before the
    /// pool is handed to an engine: `&mut self` says nothing is in flight.
    pub fn fill_random(&mut self, rng: &mut crate::rng::Rng) {
        let len = self.slot_size * self.slots;
        // SAFETY: the whole allocation, borrowed exclusively.
        rng.fill(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), len) });
    }

    /// One slot's buffer, for filling before a write.
    ///
    /// # Safety
    /// The slot must not be in flight (the kernel may be reading or writing it), and no other
    /// reference to the same slot may be alive.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slot_mut(&self, slot: u32) -> &mut [u8] {
        // SAFETY: in bounds (see slot_ptr); exclusivity is the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(slot), self.slot_size) }
    }

    /// One slot's buffer, to look at what a completed read brought.
    ///
    /// # Safety
    /// The slot must not be in flight, and no mutable reference to it may be alive.
    #[inline(always)]
    pub unsafe fn slot(&self, slot: u32) -> &[u8] {
        // SAFETY: in bounds (see slot_ptr); the caller promises nobody writes it meanwhile.
        unsafe { std::slice::from_raw_parts(self.slot_ptr(slot), self.slot_size) }
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_aligned_and_disjoint() {
        let pool = BufferPool::new(4, 6000);
        assert_eq!(pool.slot_size(), 8192);
        for s in 0..4 {
            assert_eq!(pool.slot_ptr(s) as usize % ALIGN, 0);
        }
        assert_eq!(pool.slot_ptr(1) as usize - pool.slot_ptr(0) as usize, 8192);
        unsafe { pool.slot_mut(3)[8191] = 7 };
        assert_eq!(unsafe { pool.slot_mut(3)[8191] }, 7);
    }
}
