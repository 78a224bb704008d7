//! What flush times say about a write cache. A flush that returns sooner than the device can
//! put data on stable media means something in between answered it: a cache that survives
//! power loss (a battery-backed controller, an SSD with power-loss protection) or one that does
//! not. The times cannot tell which, so these are hints, and `durability verify` after a real
//! power cut is the proof. On a hypervisor's or a cloud's disk the host answers the flush, and
//! the hint says that rather than judge the device by its flags.
//!
//! The floors and the judgement are `durability`'s, which `spindle check`'s findings use too;
//! this module words them for `durability write`, which hands it the writer's median flush.

use super::durability::{FlushReading, is_memory_filesystem, read_flush};
use spindle_model::record::DeviceInfo;
use spindle_model::units::format_latency_ns;

/// Hints about the cache under `info`, from the median flush time.
pub fn cache_hints(info: &DeviceInfo, median_flush_ns: u64) -> Vec<String> {
    let median = format_latency_ns(median_flush_ns as f64);
    if info.filesystem.as_deref().is_some_and(is_memory_filesystem) {
        return vec![format!(
            "{} is in memory ({}): nothing on it survives a power cut, whatever a flush says",
            info.target,
            info.filesystem.as_deref().unwrap_or("")
        )];
    }
    let mut hints = Vec::new();
    let through = info.write_cache.as_deref() == Some("write through");
    let device = info.device.as_deref().unwrap_or("the device");
    match read_flush(info, median_flush_ns) {
        FlushReading::SpinningDisk => hints.push(format!(
            "flushes take {median} (median), but {device} says it is a spinning disk, which needs milliseconds \
             to put a write on the platter: a write cache answers them. That is safe only if the cache survives \
             power loss (a battery-backed controller)"
        )),
        FlushReading::Ssd => hints.push(format!(
            "flushes take {median} (median): {device} keeps nothing it must empty on a flush. That is safe \
             only if its cache survives power loss (an SSD with power-loss protection, a battery-backed \
             controller); a drive without that takes a millisecond or more"
        )),
        FlushReading::HostAnswered { platform } => hints.push(format!(
            "flushes take {median} (median): {device} is a virtual disk ({platform}), so the host answers them, \
             and whether they reach stable media is the host's promise; this test's verify after a real power \
             cut of the host is what shows it"
        )),
        FlushReading::CannotJudge => hints.push(format!(
            "flushes take {median} (median); {device} is a virtual machine's disk that names no hypervisor, so \
             the time cannot say whether a cache answered them"
        )),
        FlushReading::AsSlowAsMedia => {}
    }
    let judged = matches!(read_flush(info, median_flush_ns), FlushReading::SpinningDisk | FlushReading::Ssd);
    if through && judged {
        hints.push(format!(
            "the kernel sends {device} no cache flushes (its write_cache is \"write through\"): right for a \
             cache that survives power loss; if it does not, set /sys/block/{device}/queue/write_cache to \
             \"write back\""
        ));
    }
    hints
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(rotational: bool, cache: &str) -> DeviceInfo {
        DeviceInfo {
            target: "/dev/sdq".into(),
            device: Some("sdq".into()),
            rotational: Some(rotational),
            write_cache: Some(cache.into()),
            filesystem: None,
            ..DeviceInfo::default()
        }
    }

    #[test]
    fn a_flush_faster_than_the_device_class_allows_is_a_hint_and_a_slow_one_is_not() {
        let hdd = cache_hints(&device(true, "write back"), 200_000);
        assert_eq!(hdd.len(), 1);
        assert!(hdd[0].contains("200.00us") && hdd[0].contains("spinning disk"), "{hdd:?}");
        assert!(cache_hints(&device(true, "write back"), 8_000_000).is_empty());
        let ssd = cache_hints(&device(false, "write through"), 9_000);
        assert_eq!(ssd.len(), 2, "{ssd:?}");
        assert!(ssd[0].contains("power-loss protection") && ssd[1].contains("write through"), "{ssd:?}");
        assert!(cache_hints(&device(false, "write back"), 1_500_000).is_empty());
    }

    #[test]
    fn on_a_virtual_disk_the_hint_names_the_host_not_a_cache() {
        let mut vda = device(true, "write back");
        vda.origin = Some(spindle_model::record::DiskOrigin::Virtual {
            platform: "virtio".into(),
            evidence: "vda's driver is virtio_blk".into(),
        });
        let hints = cache_hints(&vda, 107_000);
        assert_eq!(hints.len(), 1, "{hints:?}");
        assert!(hints[0].contains("the host answers them") && !hints[0].contains("spinning disk"), "{hints:?}");
    }

    #[test]
    fn memory_never_survives_a_power_cut() {
        let tmpfs = DeviceInfo { target: "/run/x".into(), filesystem: Some("tmpfs".into()), ..DeviceInfo::default() };
        let hints = cache_hints(&tmpfs, 3_000);
        assert_eq!(hints.len(), 1);
        assert!(hints[0].contains("in memory (tmpfs)"), "{hints:?}");
    }
}
