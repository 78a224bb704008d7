//! The generation map's cells: zeroed anonymous memory, on huge pages where the kernel gives
//! them. A verified run touches one cell per I/O at a random place; on 4 KiB pages nearly
//! every such touch also missed the TLB (a nested page walk on a virtual machine), and the
//! claim's first load was the slowest instruction of the run.

use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU32;

/// A huge page on x86-64 and most arm64 kernels; maps of half one or more are rounded up to
/// whole huge pages so the kernel can back them with some.
const HUGE_PAGE: usize = 2 << 20;

pub struct Cells {
    ptr: NonNull<AtomicU32>,
    len: usize,
    mapped: usize,
}

// SAFETY: the cells are atomics; the mapping is owned and unmapped only on drop.
unsafe impl Send for Cells {}
unsafe impl Sync for Cells {}

impl Cells {
    /// `len` cells, all zero; memory is taken from the kernel as cells are first touched.
    pub fn zeroed(len: usize) -> Cells {
        let bytes = (len.max(1) * size_of::<AtomicU32>()).next_multiple_of(4096);
        let mapped = if bytes >= HUGE_PAGE / 2 { bytes.next_multiple_of(HUGE_PAGE) } else { bytes };
        // SAFETY: a fresh private anonymous mapping; nothing else refers to it.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            // As a Vec would on failing to allocate; the plan checked the map's size beforehand.
            std::alloc::handle_alloc_error(std::alloc::Layout::from_size_align(mapped, 4096).expect("layout"));
        }
        #[cfg(target_os = "linux")]
        if mapped >= HUGE_PAGE {
            // SAFETY: advice on our own mapping; refused advice (no THP) leaves small pages.
            unsafe { libc::madvise(raw, mapped, libc::MADV_HUGEPAGE) };
        }
        let ptr = NonNull::new(raw.cast::<AtomicU32>()).expect("mmap returned a mapping");
        Cells { ptr, len, mapped }
    }
}

impl Deref for Cells {
    type Target = [AtomicU32];

    fn deref(&self) -> &[AtomicU32] {
        // SAFETY: `len` zero-initialised cells (a valid AtomicU32 each) inside the mapping.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Cells {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `zeroed`, no longer borrowed.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.mapped) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn cells_start_zero_and_hold_what_is_stored() {
        for len in [0, 1, 1000, 300_000, 1 << 20] {
            let cells = Cells::zeroed(len);
            assert_eq!(cells.len(), len);
            assert!(cells.iter().all(|c| c.load(Ordering::Relaxed) == 0));
            if len > 0 {
                cells[len - 1].store(7, Ordering::Relaxed);
                assert_eq!(cells[len - 1].load(Ordering::Relaxed), 7);
            }
        }
    }
}
