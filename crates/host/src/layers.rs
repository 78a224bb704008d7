//! What lies between a directory and its disk that `DeviceInfo` leaves out: where the
//! partition starts (alignment), and a loop device's backing file and how the loop reaches it.

use crate::Sysfs;
use std::path::Path;

/// A loop device's backing file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopInfo {
    pub backing_file: String,
    /// Whether the loop reads and writes its backing file with direct I/O (`loop/dio`); when
    /// not, the backing file's page cache answers reads and absorbs writes.
    pub direct_io: bool,
    /// The filesystem the backing file lives on (`tmpfs` makes the "disk" memory).
    pub backing_filesystem: Option<String>,
}

/// Where partition `name` starts on its disk, in bytes; `None` for a whole disk.
pub fn partition_start_bytes(name: &str) -> Option<u64> {
    partition_start_in(&Sysfs::default(), name)
}

fn partition_start_in(sys: &Sysfs, name: &str) -> Option<u64> {
    sys.parent_disk(name)?;
    // `start` counts 512-byte sectors whatever the device's logical block size.
    sys.attr(name, "start")?.parse::<u64>().ok()?.checked_mul(512)
}

/// The backing file of loop device `name`; `None` when `name` is not a bound loop device.
pub fn loop_info(name: &str) -> Option<LoopInfo> {
    let sys = Sysfs::default();
    let mut info = loop_info_in(&sys, name)?;
    info.backing_filesystem = crate::mount_of(Path::new(&info.backing_file)).map(|m| m.fs_type);
    Some(info)
}

fn loop_info_in(sys: &Sysfs, name: &str) -> Option<LoopInfo> {
    let backing_file = sys.attr(name, "loop/backing_file")?;
    let direct_io = sys.attr(name, "loop/dio").is_some_and(|d| d == "1");
    Some(LoopInfo { backing_file, direct_io, backing_filesystem: None })
}

/// What a device is built on, walking down from the device a target sits on: the first loop
/// device met (its backing file and direct-I/O mode), the members of the first device-mapper
/// or md device met, and every whole disk at the bottom.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stack {
    pub loop_device: Option<LoopInfo>,
    /// The devices at the bottom of the first dm/md device's `slaves`, sorted (`sda2`, `sdb2`).
    pub members: Vec<String>,
    /// Every whole disk the device's I/O reaches, in the order met (slaves sorted).
    pub disks: Vec<String>,
}

/// Loops of loops, or dm on loop on dm, are legal but never deep; the limit stops a cycle.
const MAX_DEPTH: usize = 16;

/// What device `name` is built on.
pub(crate) fn stack_in(sys: &Sysfs, name: &str) -> Stack {
    let mut stack = Stack::default();
    walk(sys, name, 0, &mut stack);
    stack
}

fn walk(sys: &Sysfs, name: &str, depth: usize, stack: &mut Stack) {
    let bottom = |stack: &mut Stack, disk: &str| {
        if !stack.disks.iter().any(|d| d == disk) {
            stack.disks.push(disk.to_string());
        }
    };
    if depth >= MAX_DEPTH {
        return bottom(stack, name);
    }
    if let Some(disk) = sys.parent_disk(name) {
        return walk(sys, &disk, depth + 1, stack);
    }
    if let Some(info) = loop_info_in(sys, name) {
        // The loop driver turns I/O into file I/O on the backing file's filesystem.
        let under = std::fs::metadata(Path::new(&info.backing_file)).ok().and_then(|m| {
            let (major, minor) = crate::blockdev::split_dev(std::os::unix::fs::MetadataExt::dev(&m));
            sys.name_of(major, minor)
        });
        stack.loop_device.get_or_insert(info);
        return match under {
            Some(under) => walk(sys, &under, depth + 1, stack),
            // A backing file on no block device (tmpfs) or gone: the loop is the bottom.
            None => bottom(stack, name),
        };
    }
    let slaves = sys.slaves(name);
    if slaves.is_empty() {
        return bottom(stack, name);
    }
    if stack.members.is_empty() {
        stack.members = leaves(sys, name, depth);
    }
    for slave in slaves {
        walk(sys, &slave, depth + 1, stack);
    }
}

/// The devices at the bottom of `name`'s `slaves`, through dm on dm (LVM on crypt), sorted.
fn leaves(sys: &Sysfs, name: &str, depth: usize) -> Vec<String> {
    let mut out = Vec::new();
    for slave in sys.slaves(name) {
        let below = if depth < MAX_DEPTH { leaves(sys, &slave, depth + 1) } else { Vec::new() };
        if below.is_empty() {
            out.push(slave);
        } else {
            out.extend(below);
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_sysfs::Fake;

    #[test]
    fn a_partition_start_is_in_bytes_and_a_disk_has_none() {
        let f = Fake::new();
        f.add("pci/block/sda", "8:0", false);
        f.add("pci/block/sda/sda1", "8:1", true);
        f.write("pci/block/sda/sda1/start", "2048\n");
        assert_eq!(partition_start_in(&f.sysfs(), "sda1"), Some(1024 * 1024));
        assert_eq!(partition_start_in(&f.sysfs(), "sda"), None);
        assert_eq!(partition_start_in(&f.sysfs(), "nonesuch"), None);
    }

    #[test]
    fn a_loop_device_names_its_backing_file_and_whether_it_bypasses_the_page_cache() {
        let f = Fake::new();
        f.add("virtual/block/loop3", "7:3", false);
        f.write("virtual/block/loop3/loop/backing_file", "/tmp/disk.img\n");
        assert_eq!(
            loop_info_in(&f.sysfs(), "loop3"),
            Some(LoopInfo { backing_file: "/tmp/disk.img".into(), direct_io: false, backing_filesystem: None })
        );
        f.write("virtual/block/loop3/loop/dio", "1\n");
        assert!(loop_info_in(&f.sysfs(), "loop3").unwrap().direct_io);
        f.add("pci/block/sda", "8:0", false);
        assert_eq!(loop_info_in(&f.sysfs(), "sda"), None);
    }

    /// A fake disk for the real device the temp directory `f` lives on, so a backing file
    /// there maps to it; `None` (the test skips) when the directory is on no block device.
    fn backing_disk(f: &Fake, disk: &str) -> Option<std::path::PathBuf> {
        let backing = f.dir.path().join("disk.img");
        std::fs::write(&backing, b"x").unwrap();
        let dev = std::os::unix::fs::MetadataExt::dev(&std::fs::metadata(&backing).unwrap());
        let (maj, min) = crate::blockdev::split_dev(dev);
        if maj == 0 {
            spindle_testenv::unavailable("a temp directory on a block device", "it is on an anonymous device");
            return None;
        }
        f.add(&format!("pci/block/{disk}"), &format!("{maj}:{min}"), false);
        Some(backing)
    }

    #[test]
    fn a_loop_stack_names_its_backing_file_its_mode_and_the_disk_under_the_file() {
        let f = Fake::new();
        let Some(backing) = backing_disk(&f, "nvme0n1") else { return };
        f.add("virtual/block/loop3", "7:3", false);
        f.write("virtual/block/loop3/loop/backing_file", &format!("{}\n", backing.display()));
        f.write("virtual/block/loop3/loop/dio", "0\n");
        f.add("virtual/block/loop3/loop3p1", "259:70007", true);
        let s = f.sysfs();
        for on in ["loop3", "loop3p1"] {
            let stack = stack_in(&s, on);
            assert_eq!(
                stack,
                Stack {
                    loop_device: Some(LoopInfo {
                        backing_file: backing.display().to_string(),
                        direct_io: false,
                        backing_filesystem: None
                    }),
                    members: Vec::new(),
                    disks: vec!["nvme0n1".into()],
                },
                "{on}"
            );
        }
        f.write("virtual/block/loop3/loop/dio", "1\n");
        assert_eq!(stack_in(&s, "loop3").loop_device.map(|l| l.direct_io), Some(true));
        // A backing file that is gone (or on tmpfs): the loop is the bottom.
        f.write("virtual/block/loop3/loop/backing_file", "/nonexistent (deleted)\n");
        let stack = stack_in(&s, "loop3");
        assert_eq!(stack.disks, ["loop3"]);
        assert_eq!(stack.loop_device.unwrap().backing_file, "/nonexistent (deleted)");
    }

    #[test]
    fn a_dm_device_on_two_disks_lists_both_members_and_both_disks() {
        let f = Fake::new();
        f.add("pci/block/sda", "8:0", false);
        f.add("pci/block/sda/sda2", "8:2", true);
        f.add("pci/block/sdb", "8:16", false);
        f.add("pci/block/sdb/sdb2", "8:18", true);
        // LVM striped over two partitions, with a crypt device on top.
        f.add("virtual/block/dm-0", "253:0", false);
        f.stack("virtual/block/dm-0", "pci/block/sda/sda2");
        f.stack("virtual/block/dm-0", "pci/block/sdb/sdb2");
        f.add("virtual/block/dm-1", "253:1", false);
        f.stack("virtual/block/dm-1", "virtual/block/dm-0");
        let s = f.sysfs();
        let want = Stack {
            loop_device: None,
            members: vec!["sda2".into(), "sdb2".into()],
            disks: vec!["sda".into(), "sdb".into()],
        };
        assert_eq!(stack_in(&s, "dm-0"), want);
        assert_eq!(stack_in(&s, "dm-1"), want, "through dm on dm, the members at the bottom");
        assert_eq!(s.disk_under("dm-1"), "sda", "the one disk DeviceInfo.device names is the first");
        // A plain partition has no members.
        assert_eq!(stack_in(&s, "sda2"), Stack { disks: vec!["sda".into()], ..Stack::default() });
    }

    #[test]
    fn md_members_are_whole_disks_or_partitions_and_a_loop_under_md_is_found() {
        let f = Fake::new();
        let Some(backing) = backing_disk(&f, "vdc") else { return };
        // Device numbers far from real ones: the temp directory's own is in the tree too.
        f.add("pci/block/vda", "250:1000", false);
        f.add("pci/block/vdb", "250:1016", false);
        f.add("virtual/block/md0", "9:0", false);
        f.stack("virtual/block/md0", "pci/block/vda");
        f.stack("virtual/block/md0", "pci/block/vdb");
        let s = f.sysfs();
        let md = stack_in(&s, "md0");
        assert_eq!(
            (md.members.as_slice(), md.disks.as_slice()),
            (&["vda".into(), "vdb".into()][..], &["vda".into(), "vdb".into()][..])
        );
        // md over a disk and a loop device: the loop's backing file reaches a third disk.
        f.add("virtual/block/loop7", "7:7", false);
        f.write("virtual/block/loop7/loop/backing_file", &format!("{}\n", backing.display()));
        f.add("virtual/block/md1", "9:1", false);
        f.stack("virtual/block/md1", "pci/block/vda");
        f.stack("virtual/block/md1", "virtual/block/loop7");
        let md = stack_in(&s, "md1");
        assert_eq!(md.members, ["loop7", "vda"]);
        assert_eq!(md.disks, ["vdc", "vda"], "slaves in sorted order, each to its bottom");
        assert!(md.loop_device.is_some_and(|l| !l.direct_io));
    }
}
