//! What a flush time and a filesystem say about durability. On a disk this machine drives
//! itself, a flush that returns sooner than the device can put data on stable media means
//! something in between answered it: a cache that survives power loss (a battery-backed
//! controller, an SSD with power-loss protection) or one that does not. On a hypervisor's or a
//! cloud's disk the host answers the flush, and whether the write reached stable media is the
//! host's promise: no time measured in the guest can show it. `durability write`'s hints
//! (flush_hints.rs) and the check's findings read flushes through `read_flush`, so the two never
//! disagree about one device.

use spindle_model::record::{DeviceInfo, DiskOrigin};

/// A spinning disk needs at least part of a rotation to put a write on the platter: a
/// 15,000 rpm disk turns once in 4 ms, so no flush that reached the platter returns in 1 ms.
pub const SPINNING_DISK_FLOOR_NS: u64 = 1_000_000;
/// An SSD that empties a volatile cache on a flush takes about this long at the least; one
/// with power-loss protection (or a cache that ignores flushes) answers in microseconds.
pub const VOLATILE_SSD_FLOOR_NS: u64 = 50_000;

/// What a median flush time can say about the disk under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlushReading {
    /// As slow as putting data on stable media takes on this device class.
    AsSlowAsMedia,
    /// A disk of this machine's that says it spins, yet flushes return in under a millisecond.
    SpinningDisk,
    /// A disk of this machine's that does not say it spins, and flushes return in microseconds.
    Ssd,
    /// A hypervisor's or a cloud's disk (`platform`): the host answered the flush.
    HostAnswered { platform: String },
    /// A virtual machine's disk that names neither a hypervisor nor local hardware: the time
    /// cannot be judged, and the rotational flag is whatever the host chose to show.
    CannotJudge,
}

/// What `median_flush_ns` says about the disk under `device`. A disk of unknown rotation on
/// this machine is held to the SSD floor, the milder judgement; a record from before disks'
/// origins were read is judged as this machine's own, as it was then.
pub fn read_flush(device: &DeviceInfo, median_flush_ns: u64) -> FlushReading {
    match &device.origin {
        Some(DiskOrigin::Virtual { platform, .. }) => FlushReading::HostAnswered { platform: platform.clone() },
        Some(DiskOrigin::Unknown { .. }) => FlushReading::CannotJudge,
        Some(DiskOrigin::Local { .. }) | None if device.rotational == Some(true) => {
            if median_flush_ns < SPINNING_DISK_FLOOR_NS {
                FlushReading::SpinningDisk
            } else {
                FlushReading::AsSlowAsMedia
            }
        }
        Some(DiskOrigin::Local { .. }) | None => {
            if median_flush_ns < VOLATILE_SSD_FLOOR_NS {
                FlushReading::Ssd
            } else {
                FlushReading::AsSlowAsMedia
            }
        }
    }
}

/// How to turn off the write cache of disk `name`, with the tool that works on its kind; `None`
/// for a device that has no cache of its own to turn off (a loop device: its backing file's
/// storage has the cache).
pub fn cache_off_advice(name: &str) -> Option<String> {
    if let Some(rest) = name.strip_prefix("nvme") {
        // nvme0n1 is namespace 1 of controller nvme0, where the feature is set.
        let controller = &name[..4 + rest.find('n').unwrap_or(rest.len())];
        return Some(format!(
            "nvme get-feature /dev/{controller} -f 6 shows the volatile write cache; nvme set-feature /dev/{controller} \
             -f 6 -v 0 turns it off"
        ));
    }
    if name.starts_with("sd") || name.starts_with("hd") {
        return Some(format!(
            "hdparm -W 0 /dev/{name} (SATA) or sdparm --clear=WCE /dev/{name} (SAS, SCSI) turns it off"
        ));
    }
    if name.starts_with("loop") || name.starts_with("zram") {
        return None;
    }
    Some(format!("turn it off with the tool of {name}'s controller"))
}

/// Filesystems that keep every file in memory: nothing on them survives a power cut.
pub fn is_memory_filesystem(filesystem: &str) -> bool {
    matches!(filesystem, "tmpfs" | "ramfs")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk(origin: Option<DiskOrigin>, rotational: Option<bool>) -> DeviceInfo {
        DeviceInfo { device: Some("sdb".into()), origin, rotational, ..DeviceInfo::default() }
    }

    fn local() -> Option<DiskOrigin> {
        Some(DiskOrigin::Local { evidence: "sdb (sd, ahci) on a machine that is not virtual".into() })
    }

    #[test]
    fn each_local_device_class_has_its_own_floor_and_the_floor_itself_is_slow_enough() {
        assert_eq!(read_flush(&disk(local(), Some(true)), 999_999), FlushReading::SpinningDisk);
        assert_eq!(read_flush(&disk(local(), Some(true)), 1_000_000), FlushReading::AsSlowAsMedia);
        assert_eq!(read_flush(&disk(local(), Some(false)), 49_999), FlushReading::Ssd);
        assert_eq!(read_flush(&disk(local(), Some(false)), 50_000), FlushReading::AsSlowAsMedia);
        // Unknown rotation: the SSD floor, so a 500 µs flush is no finding.
        assert_eq!(read_flush(&disk(local(), None), 500_000), FlushReading::AsSlowAsMedia);
        assert_eq!(read_flush(&disk(local(), None), 0), FlushReading::Ssd);
        // A record from before origins were read: judged as a local disk, as it was then.
        assert_eq!(read_flush(&disk(None, Some(true)), 20_000), FlushReading::SpinningDisk);
    }

    #[test]
    fn a_virtual_disk_says_the_host_answered_and_an_unknown_one_is_not_judged_whatever_it_claims() {
        let virtio =
            Some(DiskOrigin::Virtual { platform: "virtio".into(), evidence: "vda's driver is virtio_blk".into() });
        // The kernel marks a virtio disk rotational: a 107 µs flush there is the host's answer.
        assert_eq!(
            read_flush(&disk(virtio.clone(), Some(true)), 107_000),
            FlushReading::HostAnswered { platform: "virtio".into() }
        );
        assert_eq!(
            read_flush(&disk(virtio, Some(true)), 9_000_000),
            FlushReading::HostAnswered { platform: "virtio".into() }
        );
        let unknown = Some(DiskOrigin::Unknown { evidence: "a virtual machine's sdb names no hypervisor".into() });
        assert_eq!(read_flush(&disk(unknown.clone(), Some(true)), 20_000), FlushReading::CannotJudge);
        assert_eq!(read_flush(&disk(unknown, Some(false)), 2_000), FlushReading::CannotJudge);
    }

    #[test]
    fn the_advice_names_the_tool_that_works_on_the_device() {
        assert!(
            cache_off_advice("sdb").unwrap().starts_with("hdparm -W 0 /dev/sdb (SATA) or sdparm --clear=WCE /dev/sdb")
        );
        assert!(cache_off_advice("nvme0n1").unwrap().contains("nvme set-feature /dev/nvme0 -f 6 -v 0"));
        assert!(cache_off_advice("nvme12n3").unwrap().contains("/dev/nvme12 -f 6"));
        assert_eq!(cache_off_advice("loop3"), None);
        assert!(cache_off_advice("mmcblk0").unwrap().contains("mmcblk0's controller"));
    }

    #[test]
    fn memory_filesystems_are_tmpfs_and_ramfs() {
        assert!(is_memory_filesystem("tmpfs") && is_memory_filesystem("ramfs"));
        assert!(!is_memory_filesystem("ext4") && !is_memory_filesystem(""));
    }
}
