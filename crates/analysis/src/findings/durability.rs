//! What a flush time and a filesystem say about durability. A flush that returns sooner than
//! the device can put data on stable media means something in between answered it: a cache
//! that survives power loss (a battery-backed controller, an SSD with power-loss protection) or
//! one that does not. `durability write`'s hints (spindle-io) and the check's findings judge by
//! these same floors, so the two never disagree about one device.

/// A spinning disk needs at least part of a rotation to put a write on the platter: a
/// 15,000 rpm disk turns once in 4 ms, so no flush that reached the platter returns in 1 ms.
pub const SPINNING_DISK_FLOOR_NS: u64 = 1_000_000;
/// An SSD that empties a volatile cache on a flush takes about this long at the least; one
/// with power-loss protection (or a cache that ignores flushes) answers in microseconds.
pub const VOLATILE_SSD_FLOOR_NS: u64 = 50_000;

/// A flush faster than the device class allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastFlush {
    /// The device says it spins, yet flushes return in under a millisecond.
    SpinningDisk,
    /// The device does not say it spins, and flushes return in microseconds.
    Ssd,
}

/// Whether a median flush time is faster than the device class allows. A device that does not
/// say whether it spins is held to the SSD floor, the milder judgement.
pub fn fast_flush(rotational: Option<bool>, median_flush_ns: u64) -> Option<FastFlush> {
    if rotational == Some(true) {
        (median_flush_ns < SPINNING_DISK_FLOOR_NS).then_some(FastFlush::SpinningDisk)
    } else {
        (median_flush_ns < VOLATILE_SSD_FLOOR_NS).then_some(FastFlush::Ssd)
    }
}

/// Filesystems that keep every file in memory: nothing on them survives a power cut.
pub fn is_memory_filesystem(filesystem: &str) -> bool {
    matches!(filesystem, "tmpfs" | "ramfs")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_device_class_has_its_own_floor_and_the_floor_itself_is_slow_enough() {
        assert_eq!(fast_flush(Some(true), SPINNING_DISK_FLOOR_NS - 1), Some(FastFlush::SpinningDisk));
        assert_eq!(fast_flush(Some(true), SPINNING_DISK_FLOOR_NS), None);
        assert_eq!(fast_flush(Some(false), VOLATILE_SSD_FLOOR_NS - 1), Some(FastFlush::Ssd));
        assert_eq!(fast_flush(Some(false), VOLATILE_SSD_FLOOR_NS), None);
        // Unknown rotation: the SSD floor, so a 500 µs flush is no finding.
        assert_eq!(fast_flush(None, 500_000), None);
        assert_eq!(fast_flush(None, 0), Some(FastFlush::Ssd));
    }

    #[test]
    fn memory_filesystems_are_tmpfs_and_ramfs() {
        assert!(is_memory_filesystem("tmpfs") && is_memory_filesystem("ramfs"));
        assert!(!is_memory_filesystem("ext4") && !is_memory_filesystem(""));
    }
}
