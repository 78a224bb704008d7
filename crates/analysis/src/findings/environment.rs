//! Judges of where a directory lives: its filesystem, device, mount options, write cache,
//! partition and free space. Each reads the facts the CLI gathered; none measures.

use super::durability::{FlushReading, cache_off_advice, is_memory_filesystem, read_flush};
use super::figures::latency;
use super::rules::{Check, Judgement, bound_for, level_of};
use super::{DirEvidence, Level};
use spindle_model::record::DiskOrigin;
use spindle_model::units::{format_bytes_approx, format_size, grouped};

fn device_name(dir: &DirEvidence) -> &str {
    dir.device.device.as_deref().or(dir.device.partition.as_deref()).unwrap_or("the device")
}

fn judgement(level: Level, text: String, figure: String) -> Judgement {
    Judgement { level, text, figure, threshold: None, advice: None }
}

/// tmpfs or ramfs: every figure is memory's. Any other filesystem is an `Ok`, so the
/// environment has a verdict whenever its filesystem is known.
pub(crate) fn memory_filesystem(c: &Check) -> Option<Judgement> {
    let fs = c.dir.device.filesystem.as_deref().filter(|fs| !fs.is_empty())?;
    if is_memory_filesystem(fs) {
        return Some(Judgement {
            advice: Some("Check a directory on the disk the database will use".into()),
            ..judgement(
                Level::Problem,
                format!(
                    "This directory is on {fs}: these are memory figures, not storage, and nothing on it survives a restart"
                ),
                fs.into(),
            )
        });
    }
    Some(judgement(Level::Ok, format!("{fs} on {}: storage, not memory", device_name(c.dir)), fs.into()))
}

/// overlay (a container's writable layer, or fuse-overlayfs): copy-on-write between layers.
pub(crate) fn overlay_filesystem(c: &Check) -> Option<Judgement> {
    let fs = c.dir.device.filesystem.as_deref().filter(|fs| fs.contains("overlay"))?;
    Some(Judgement {
        advice: Some("Give the database a volume (docker run -v, a bind mount) and check that directory".into()),
        ..judgement(
            Level::Warning,
            format!(
                "This directory is on {fs}, a container's layered filesystem: a database's writes pay its \
                 copy-on-write, and the figures are not those of a volume"
            ),
            fs.into(),
        )
    })
}

/// A loop device: a file pretending to be a disk. Backed by tmpfs it is memory; without direct
/// I/O the backing file's page cache answers reads and absorbs writes.
pub(crate) fn loop_device(c: &Check) -> Option<Judgement> {
    let on_loop = [&c.dir.device.device, &c.dir.device.partition]
        .into_iter()
        .any(|name| name.as_deref().is_some_and(|n| n.starts_with("loop")));
    if !on_loop && c.dir.loop_backing.is_none() {
        return None;
    }
    let name = device_name(c.dir);
    let Some(backing) = &c.dir.loop_backing else {
        return Some(judgement(
            Level::Note,
            format!("This directory is on a loop device ({name}): the figures are those of the file behind it"),
            name.into(),
        ));
    };
    let file = if backing.file.is_empty() { "its backing file" } else { backing.file.as_str() };
    if let Some(fs) = backing.backing_filesystem.as_deref().filter(|fs| is_memory_filesystem(fs)) {
        return Some(Judgement {
            advice: Some("Check a directory on the disk the database will use".into()),
            ..judgement(
                Level::Problem,
                format!(
                    "This directory is on {name}, a loop device backed by {file} on {fs}: these are memory \
                     figures, not storage, and nothing on it survives a restart"
                ),
                format!("{name} on {fs}"),
            )
        });
    }
    if !backing.direct_io {
        return Some(Judgement {
            advice: Some(format!("losetup --direct-io=on /dev/{name}, then check again")),
            ..judgement(
                Level::Warning,
                format!(
                    "{name} reads and writes {file} through the page cache: memory answers the reads and \
                     absorbs the writes, so the figures are not the disk's"
                ),
                format!("{name} without direct I/O"),
            )
        });
    }
    Some(judgement(
        Level::Note,
        format!(
            "This directory is on {name}, a loop device backed by {file}: the figures are those of the filesystem under it"
        ),
        format!("{name} with direct I/O"),
    ))
}

/// Mount options that drop the flushes a journal orders its commits with, or the data order.
pub(crate) fn mount_options(c: &Check) -> Option<Judgement> {
    let options = c.dir.device.mount_options.as_deref()?;
    let set: Vec<&str> = options.split(',').map(str::trim).collect();
    let dropped: Vec<&str> = set.iter().copied().filter(|o| matches!(*o, "nobarrier" | "barrier=0")).collect();
    if let Some(first) = dropped.first() {
        return Some(Judgement {
            threshold: Some("barriers on (the default)".into()),
            advice: Some(format!(
                "Remount without {first} unless the write cache survives power loss (battery-backed, power-loss protection)"
            )),
            ..judgement(
                Level::Warning,
                format!(
                    "Mounted with {first}: the filesystem sends the device no cache flushes, so a volatile write \
                     cache can lose committed data and tear the journal on power failure"
                ),
                (*first).into(),
            )
        });
    }
    set.contains(&"data=writeback").then(|| Judgement {
        threshold: Some("data=ordered (the default)".into()),
        advice: Some("Remount with data=ordered unless the database alone writes this filesystem".into()),
        ..judgement(
            Level::Note,
            "Mounted with data=writeback: after a crash, recently written files may hold stale blocks; a \
             database's own fsyncs still order its log"
                .into(),
            "data=writeback".into(),
        )
    })
}

/// What the flush times measured here show about durability. On a disk this machine drives
/// itself, a flush faster than the device class allows means a cache answered it; on a
/// hypervisor's or a cloud's disk only that the host answered; on a virtual machine's disk of
/// unknown origin nothing. The commit step measures the flush alone; a memory filesystem is the
/// memory-filesystem rule's finding, not this one's.
pub(crate) fn volatile_write_cache(c: &Check) -> Option<Judgement> {
    let commits = c.dir.commits.as_ref().filter(|m| m.count > 0)?;
    if c.dir.device.filesystem.as_deref().is_some_and(is_memory_filesystem) {
        return None;
    }
    let median = latency(commits.flush_median_ns as f64);
    let name = device_name(c.dir);
    let floor = |level| bound_for(c.thresholds, level).map(latency).unwrap_or_default();
    let evidence = c.dir.device.origin.as_ref().map(DiskOrigin::evidence).unwrap_or_default();
    let (level, text, threshold) = match read_flush(&c.dir.device, commits.flush_median_ns) {
        FlushReading::HostAnswered { platform } => {
            return Some(Judgement {
                advice: Some(ask_the_host()),
                ..judgement(
                    Level::Note,
                    format!(
                        "The host answers {name}'s flushes in {median} (median): {}, so whether a flushed write \
                         reaches stable media is the host's promise, which no flush time measured here can show",
                        is_virtual(c.dir, &platform, evidence)
                    ),
                    median,
                )
            });
        }
        FlushReading::CannotJudge => {
            return Some(Judgement {
                advice: Some(ask_the_host()),
                ..judgement(
                    Level::Note,
                    format!(
                        "Flushes return in {median} (median), and that cannot judge durability here: {evidence}; \
                         the rotational flag is what the host chose to show"
                    ),
                    median,
                )
            });
        }
        FlushReading::SpinningDisk => (
            Level::Warning,
            format!(
                "Flushes return in {median} on {name}, a disk of this machine's that says it spins: a write cache \
                 answers them, and committed data can be lost on power failure unless the cache is battery-backed"
            ),
            format!("at least {} on a spinning disk", floor(Level::Warning)),
        ),
        FlushReading::Ssd => (
            Level::Note,
            format!(
                "Flushes return in {median}: {name} keeps nothing it must empty on a flush; committed data can be \
                 lost on power failure unless its cache has power-loss protection"
            ),
            format!("at least {} without power-loss protection", floor(Level::Note)),
        ),
        FlushReading::AsSlowAsMedia => {
            return Some(judgement(
                Level::Ok,
                format!("Flushes take {median} (median), as long as putting data on stable media takes"),
                median,
            ));
        }
    };
    Some(Judgement { level, text, figure: median, threshold: Some(threshold), advice: Some(cache_advice(c, name)) })
}

/// `vda is a virtual disk (virtio; ...)`, or for a device over one (a loop device's backing file
/// on it) `loop0 sits on vda, a virtual disk (...)`.
fn is_virtual(dir: &DirEvidence, platform: &str, evidence: &str) -> String {
    let name = device_name(dir);
    match dir.device.physical_disks().into_iter().find(|d| *d != name) {
        Some(under) => format!("{name} sits on {under}, a virtual disk ({platform}; {evidence})"),
        None => format!("{name} is a virtual disk ({platform}; {evidence})"),
    }
}

/// What to do about a fast flush on a disk of this machine's: a cache the kernel sends no
/// flushes to, one to make safe or turn off with the tool for its kind, or (a loop device) the
/// storage under the backing file.
fn cache_advice(c: &Check, name: &str) -> String {
    if c.dir.device.write_cache.as_deref() == Some("write through") {
        return format!(
            "The kernel sends {name} no flushes (its write_cache is \"write through\"): right only if the cache \
             survives power loss; if not, set /sys/block/{name}/queue/write_cache to \"write back\""
        );
    }
    match cache_off_advice(name) {
        Some(off) => {
            format!("Make sure the cache is battery-backed or has power-loss protection, or turn it off: {off}")
        }
        None => format!(
            "{name} has no cache of its own to turn off: the storage under its backing file answers; check that"
        ),
    }
}

/// Where a flush is the host's to answer: who can say what it means, and how to test it.
fn ask_the_host() -> String {
    "Ask the host's owner (or read the provider's durability terms for this kind of volume) whether writes it \
     acknowledges survive a power loss; spindle durability tests it with a real power cut"
        .into()
}

/// A partition that does not start on a 4 KiB boundary splits every page write over two
/// physical sectors; off the 1 MiB grain is unusual but costs less.
pub(crate) fn partition_alignment(c: &Check) -> Option<Judgement> {
    let start = c.dir.partition_start_bytes?;
    let level = level_of(c.thresholds, start as f64);
    if level == Level::Ok {
        return None;
    }
    let at = if start % 1024 == 0 { format_size(start) } else { format!("byte {}", grouped(start)) };
    let text = if level >= Level::Warning {
        format!(
            "The partition starts at {at}, not on a 4 KiB boundary: each 4 KiB write spans two physical sectors \
             and costs a read-modify-write"
        )
    } else {
        format!("The partition starts at {at}, not on the 1 MiB boundary fdisk and parted use")
    };
    Some(Judgement {
        level,
        text,
        figure: at,
        threshold: Some("a multiple of 1 MiB".into()),
        advice: Some("Recreate the partition at a 1 MiB boundary (the default of fdisk and parted)".into()),
    })
}

/// Free space on the directory's filesystem, as a share of its size.
pub(crate) fn free_space(c: &Check) -> Option<Judgement> {
    let (free, size) = (c.dir.free_bytes?, c.dir.filesystem_bytes.filter(|s| *s > 0)?);
    let share = free as f64 / size as f64;
    let level = level_of(c.thresholds, share);
    let figure = format!("{} free of {} ({:.0}%)", format_bytes_approx(free), format_bytes_approx(size), share * 100.0);
    let least = bound_for(c.thresholds, Level::Note).unwrap_or_default();
    Some(Judgement {
        level,
        text: if level == Level::Ok {
            figure.clone()
        } else {
            format!("Only {figure}: a growing database and its log need room, and a full log stops every write")
        },
        figure,
        threshold: Some(format!("at least {:.0}% free", least * 100.0)),
        advice: (level > Level::Ok).then(|| "Free space or grow the filesystem before the database needs it".into()),
    })
}

/// A virtual disk: what it does is the host's storage, shared, behind the host's cache; a
/// virtual machine's disk of unknown origin may be.
pub(crate) fn virtual_disk(c: &Check) -> Option<Judgement> {
    let name = device_name(c.dir);
    let (text, advice) = match c.dir.device.origin.as_ref()? {
        DiskOrigin::Local { .. } => return None,
        DiskOrigin::Virtual { platform, evidence } => (
            format!(
                "{}: the figures are the host's storage, shared with other guests",
                is_virtual(c.dir, platform, evidence)
            ),
            "Check the host's storage too, or ask its owner what is under this disk",
        ),
        DiskOrigin::Unknown { evidence } => (
            format!("{name} may be a virtual disk: {evidence}"),
            "Ask the host's owner whether this disk is the host's storage or a device passed through",
        ),
    };
    Some(Judgement { advice: Some(advice.into()), ..judgement(Level::Note, text, name.into()) })
}

/// The steps during which other processes were busy enough to move the figures: each named,
/// with what they did. A note: what the storage did is the measured rules' finding, beside
/// which the same load is said.
pub(crate) fn host_load(c: &Check) -> Option<Judgement> {
    let busy: Vec<&super::load::StepLoad> = c.dir.loads.iter().filter(|l| l.busy()).collect();
    if busy.is_empty() {
        return None;
    }
    let named: Vec<String> = busy.iter().take(3).map(|l| format!("{} ({})", l.step, l.words())).collect();
    let more = if busy.len() > 3 { format!(", and {} more", busy.len() - 3) } else { String::new() };
    let drowned = busy.iter().filter(|l| l.drowned()).count();
    let worst = busy.iter().filter_map(|l| l.io_share()).fold(0.0, f64::max);
    Some(Judgement {
        level: Level::Note,
        text: format!(
            "The host was busy during {} of {} steps: {}{more}{}",
            busy.len(),
            c.dir.loads.len(),
            named.join("; "),
            if drowned > 0 { format!("; {drowned} drowned by other I/O, so not judged") } else { String::new() }
        ),
        figure: format!("{:.0}% of a step's own I/O at most", worst * 100.0),
        threshold: Some(format!(
            "other processes' I/O at most {:.0}% of a step's own",
            bound_for(c.thresholds, Level::Note).unwrap_or_default() * 100.0
        )),
        advice: Some("Check again when nothing else uses this storage and the CPUs are idle".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::super::evidence::LoopBacking;
    use super::super::fixtures::{commits, dir, judge, level};
    use super::*;

    fn on(fs: &str) -> DirEvidence {
        let mut d = dir();
        d.device.filesystem = Some(fs.into());
        d
    }

    #[test]
    fn a_memory_filesystem_is_a_problem_and_any_other_an_ok() {
        let tmpfs = judge("memory-filesystem", &on("tmpfs")).unwrap();
        assert_eq!(tmpfs.level, Level::Problem);
        assert!(tmpfs.text.contains("on tmpfs: these are memory figures, not storage"), "{}", tmpfs.text);
        assert_eq!(level("memory-filesystem", &on("ramfs")), Some(Level::Problem));
        let ext4 = judge("memory-filesystem", &dir()).unwrap();
        assert_eq!((ext4.level, ext4.text.as_str()), (Level::Ok, "ext4 on sda: storage, not memory"));
        let mut unknown = dir();
        unknown.device.filesystem = None;
        assert_eq!(level("memory-filesystem", &unknown), None);
        assert_eq!(level("memory-filesystem", &on("")), None);
    }

    #[test]
    fn an_overlay_is_a_warning() {
        assert_eq!(level("overlay-filesystem", &on("overlay")), Some(Level::Warning));
        assert_eq!(level("overlay-filesystem", &on("fuse.fuse-overlayfs")), Some(Level::Warning));
        assert_eq!(level("overlay-filesystem", &dir()), None);
    }

    fn looped(backing: Option<LoopBacking>) -> DirEvidence {
        let mut d = dir();
        d.device.device = Some("loop3".into());
        d.loop_backing = backing;
        d
    }

    fn backing(direct_io: bool, fs: &str) -> Option<LoopBacking> {
        Some(LoopBacking { file: "/srv/disk.img".into(), direct_io, backing_filesystem: Some(fs.into()) })
    }

    #[test]
    fn a_loop_device_is_a_note_a_warning_through_the_page_cache_and_a_problem_on_memory() {
        let memory = judge("loop-device", &looped(backing(true, "tmpfs"))).unwrap();
        assert_eq!(memory.level, Level::Problem);
        assert!(memory.text.contains("/srv/disk.img on tmpfs"), "{}", memory.text);
        let cached = judge("loop-device", &looped(backing(false, "ext4"))).unwrap();
        assert_eq!(cached.level, Level::Warning);
        assert!(cached.text.contains("page cache") && cached.advice.unwrap().contains("--direct-io=on"));
        assert_eq!(level("loop-device", &looped(backing(true, "ext4"))), Some(Level::Note));
        // A loop device whose backing was not read: still a note.
        assert_eq!(level("loop-device", &looped(None)), Some(Level::Note));
        assert_eq!(level("loop-device", &dir()), None);
    }

    fn mounted(options: &str) -> DirEvidence {
        let mut d = dir();
        d.device.mount_options = Some(options.into());
        d
    }

    #[test]
    fn dropped_barriers_are_a_warning_and_writeback_a_note() {
        let nobarrier = judge("mount-options", &mounted("rw,relatime,nobarrier")).unwrap();
        assert_eq!((nobarrier.level, nobarrier.figure.as_str()), (Level::Warning, "nobarrier"));
        assert_eq!(level("mount-options", &mounted("rw,barrier=0,data=writeback")), Some(Level::Warning));
        assert_eq!(level("mount-options", &mounted("rw,data=writeback")), Some(Level::Note));
        // The edge: barriers named on, and the default data mode.
        assert_eq!(level("mount-options", &mounted("rw,barrier=1,data=ordered")), None);
        assert_eq!(level("mount-options", &mounted("")), None);
    }

    fn flushing(rotational: Option<bool>, flush_median_ns: u64) -> DirEvidence {
        let mut d = dir();
        d.device.rotational = rotational;
        d.device.write_cache = Some("write back".into());
        d.device.origin =
            Some(DiskOrigin::Local { evidence: "sda (sd, ahci) on a machine that is not virtual".into() });
        d.commits = Some(commits(2e6, 4_000_000, flush_median_ns));
        d
    }

    #[test]
    fn a_flush_faster_than_a_rotation_is_a_warning_on_a_spinning_disk_of_this_machines() {
        let fast = judge("volatile-write-cache", &flushing(Some(true), 20_000)).unwrap();
        assert_eq!(fast.level, Level::Warning);
        assert_eq!(
            fast.text,
            "Flushes return in 20 µs on sda, a disk of this machine's that says it spins: a write cache answers \
             them, and committed data can be lost on power failure unless the cache is battery-backed"
        );
        assert_eq!(fast.threshold.as_deref(), Some("at least 1 ms on a spinning disk"));
        assert!(
            fast.advice
                .unwrap()
                .ends_with("hdparm -W 0 /dev/sda (SATA) or sdparm --clear=WCE /dev/sda (SAS, SCSI) turns it off")
        );
        assert!(fast.basis.is_own(), "the floors are spindle's own");
        assert_eq!(level("volatile-write-cache", &flushing(Some(true), 999_999)), Some(Level::Warning));
        assert_eq!(level("volatile-write-cache", &flushing(Some(true), 1_000_000)), Some(Level::Ok));
        assert_eq!(level("volatile-write-cache", &flushing(Some(true), 8_000_000)), Some(Level::Ok));
        // A loop device over no disk, said to spin: the warning, with advice for what is under it.
        let mut looped = flushing(Some(true), 30_000);
        looped.device.device = Some("loop3".into());
        looped.device.origin = Some(DiskOrigin::Local { evidence: "loop3 is a loop device over no disk".into() });
        let j = judge("volatile-write-cache", &looped).unwrap();
        assert_eq!(j.level, Level::Warning);
        assert!(j.advice.unwrap().starts_with("loop3 has no cache of its own"));
    }

    #[test]
    fn on_a_virtual_disk_the_host_answers_and_no_warning_is_made_of_it() {
        let mut vda = flushing(Some(true), 107_000);
        vda.device.device = Some("vda".into());
        vda.device.origin =
            Some(DiskOrigin::Virtual { platform: "virtio".into(), evidence: "vda's driver is virtio_blk".into() });
        let j = judge("volatile-write-cache", &vda).unwrap();
        assert_eq!(j.level, Level::Note);
        assert_eq!(
            j.text,
            "The host answers vda's flushes in 107 µs (median): vda is a virtual disk (virtio; vda's driver is \
             virtio_blk), so whether a flushed write reaches stable media is the host's promise, which no flush \
             time measured here can show"
        );
        let advice = j.advice.unwrap();
        assert!(advice.contains("spindle durability") && !advice.contains("hdparm"), "{advice}");
        // A loop device over a file on it: the loop is named, and the virtual disk under it.
        let mut looped = vda.clone();
        looped.device.device = Some("loop0".into());
        looped.device.disks = vec!["vda".into()];
        let j = judge("volatile-write-cache", &looped).unwrap();
        assert!(
            j.text.starts_with(
                "The host answers loop0's flushes in 107 µs (median): loop0 sits on vda, a virtual disk (virtio; vda's \
                 driver is virtio_blk), so"
            ),
            "{}",
            j.text
        );
        assert!(judge("virtual-disk", &looped).unwrap().text.starts_with("loop0 sits on vda, a virtual disk (virtio;"));
        // Of unknown origin on a virtual machine: not judged, whatever the rotational flag says.
        vda.device.origin = Some(DiskOrigin::Unknown { evidence: "this machine is a virtual machine".into() });
        let j = judge("volatile-write-cache", &vda).unwrap();
        assert_eq!(j.level, Level::Note);
        assert!(j.text.contains("cannot judge durability here: this machine is a virtual machine"), "{}", j.text);
    }

    #[test]
    fn a_flush_in_microseconds_is_a_note_on_an_ssd() {
        assert_eq!(level("volatile-write-cache", &flushing(Some(false), 9_000)), Some(Level::Note));
        assert_eq!(level("volatile-write-cache", &flushing(Some(false), 49_999)), Some(Level::Note));
        assert_eq!(level("volatile-write-cache", &flushing(Some(false), 50_000)), Some(Level::Ok));
        assert_eq!(level("volatile-write-cache", &flushing(None, 500_000)), Some(Level::Ok));
        let mut through = flushing(Some(false), 9_000);
        through.device.write_cache = Some("write through".into());
        let advice = judge("volatile-write-cache", &through).unwrap().advice.unwrap();
        assert!(advice.contains("/sys/block/sda/queue/write_cache"), "{advice}");
        // No flushes measured, or memory (the memory-filesystem rule's finding): nothing to say.
        assert_eq!(level("volatile-write-cache", &dir()), None);
        let mut memory = flushing(Some(false), 1_000);
        memory.device.filesystem = Some("tmpfs".into());
        assert_eq!(level("volatile-write-cache", &memory), None);
    }

    fn starting_at(bytes: u64) -> DirEvidence {
        let mut d = dir();
        d.partition_start_bytes = Some(bytes);
        d
    }

    #[test]
    fn a_partition_off_4_kib_is_a_warning_and_off_1_mib_a_note() {
        let sector_63 = judge("partition-alignment", &starting_at(32_256)).unwrap();
        assert_eq!(sector_63.level, Level::Warning);
        assert!(sector_63.text.starts_with("The partition starts at byte 32,256, not on a 4 KiB boundary"));
        assert_eq!(level("partition-alignment", &starting_at(4095)), Some(Level::Warning));
        assert_eq!(level("partition-alignment", &starting_at(4096)), Some(Level::Note));
        assert_eq!(level("partition-alignment", &starting_at(64 << 10)), Some(Level::Note));
        assert_eq!(level("partition-alignment", &starting_at(1 << 20)), None);
        assert_eq!(level("partition-alignment", &starting_at(0)), None);
        assert_eq!(level("partition-alignment", &dir()), None);
    }

    fn free(free: u64, size: u64) -> DirEvidence {
        let mut d = dir();
        (d.free_bytes, d.filesystem_bytes) = (Some(free), Some(size));
        d
    }

    #[test]
    fn free_space_under_a_fifth_is_a_note_and_under_a_tenth_a_warning() {
        let plenty = judge("free-space", &free(62 << 30, 100 << 30)).unwrap();
        assert_eq!((plenty.level, plenty.text.as_str()), (Level::Ok, "62.0 GiB free of 100.0 GiB (62%)"));
        assert_eq!(level("free-space", &free(20, 100)), Some(Level::Ok));
        assert_eq!(level("free-space", &free(19, 100)), Some(Level::Note));
        assert_eq!(level("free-space", &free(10, 100)), Some(Level::Note));
        assert_eq!(level("free-space", &free(9, 100)), Some(Level::Warning));
        assert_eq!(level("free-space", &free(0, 0)), None);
        assert_eq!(level("free-space", &dir()), None);
    }

    #[test]
    fn a_virtual_disk_is_a_note_naming_what_says_so_and_a_local_disk_is_none() {
        let on = |origin: Option<DiskOrigin>| {
            let mut d = dir();
            d.device.device = Some("vda".into());
            d.device.origin = origin;
            d
        };
        let virtio = DiskOrigin::Virtual { platform: "virtio".into(), evidence: "vda's driver is virtio_blk".into() };
        let vda = judge("virtual-disk", &on(Some(virtio))).unwrap();
        assert_eq!(vda.level, Level::Note);
        assert_eq!(
            vda.text,
            "vda is a virtual disk (virtio; vda's driver is virtio_blk): the figures are the host's storage, shared \
             with other guests"
        );
        let unknown = judge("virtual-disk", &on(Some(DiskOrigin::Unknown { evidence: "it may be".into() }))).unwrap();
        assert_eq!((unknown.level, unknown.text.as_str()), (Level::Note, "vda may be a virtual disk: it may be"));
        assert_eq!(level("virtual-disk", &on(Some(DiskOrigin::Local { evidence: "its own".into() }))), None);
        assert_eq!(level("virtual-disk", &on(None)), None);
    }

    fn loaded(share: f64) -> super::super::load::StepLoad {
        super::super::load::StepLoad {
            area: super::super::Area::LargeWrites,
            step: "large writes".into(),
            own_mb_per_sec: 100.0,
            other_mb_per_sec: Some(share * 100.0),
            other_cpu: Some(0.1),
        }
    }

    #[test]
    fn a_busy_host_is_named_with_its_steps_and_a_drowned_step_gives_no_verdict() {
        let mut d = dir();
        d.loads = vec![loaded(0.05)];
        assert_eq!(level("host-load", &d), None, "a twentieth is quiet enough");
        d.loads.push(loaded(0.13));
        let j = judge("host-load", &d).unwrap();
        assert_eq!(j.level, Level::Note);
        assert_eq!(
            j.text,
            "The host was busy during 1 of 2 steps: large writes (other processes moved 13 MB/s (13% of the step's own))"
        );
        assert!(j.basis.is_own());
        // The large-writes finding says it too; drowned, it gives no verdict.
        d.large_writes = Some(super::super::Transfer {
            block: 262_144,
            outstanding: 32,
            mb_per_sec: 100.0,
            iops: 400.0,
            latency_mean_ns: 1e6,
            latency_p99_ns: 2_000_000,
        });
        let writes = judge("large-writes", &d).unwrap();
        assert!(writes.text.ends_with("; while it ran, other processes moved 13 MB/s (13% of the step's own), so the figure may understate this storage"), "{}", writes.text);
        d.loads = vec![loaded(1.5)];
        d.commits = Some(commits(20e6, 40_000_000, 10_000));
        d.loads.push(super::super::load::StepLoad { area: super::super::Area::Commits, ..loaded(1.5) });
        let slow = judge("commit-latency", &d).unwrap();
        assert_eq!(slow.level, Level::Note, "20 ms commits would be a warning, but other I/O drowned them");
        assert!(
            slow.text.ends_with(
                "; no verdict: while it ran, other processes moved 150 MB/s (150% of the step's own), which drowned it"
            ),
            "{}",
            slow.text
        );
        assert!(judge("host-load", &d).unwrap().text.ends_with("; 2 drowned by other I/O, so not judged"));
    }
}
