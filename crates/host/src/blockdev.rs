//! Mapping a device number to the block device that I/O really hits, through sysfs.
//!
//! The sysfs root is a parameter so the mapping rules (partition -> disk, dm/md -> slave, a loop
//! device a disk of its own) can be tested on a fake tree without root or special hardware.

use crate::mountinfo::parse_dev;
use std::path::PathBuf;

/// A block device and the whole disk under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockDevice {
    /// The device a path sits on directly (`vda1`, `loop0`, `dm-0`, `nvme0n1p2`).
    pub name: String,
    /// The disk whose counters and facts stand for the device: a partition's disk, a dm/md
    /// device's first member's; a loop device is a disk of its own (its own queue, size and
    /// counters, as a mounted VHD is a PhysicalDisk to perfmon), so the mapping stops there
    /// (`layers::stack_in` goes on to the disks under its backing file).
    pub disk: String,
    pub major: u32,
    pub minor: u32,
}

/// Loops of loops, or dm on loop on dm, are legal but never deep; the limit stops a cycle.
const MAX_DEPTH: usize = 16;

/// Splits a Linux `dev_t` the way glibc's `major()`/`minor()` do (12-bit major and 20-bit minor
/// in the encoding the kernel exports to user space).
pub fn split_dev(dev: u64) -> (u32, u32) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major as u32, minor as u32)
}

/// A sysfs tree: `/sys` normally, a temporary directory in tests.
#[derive(Clone, Debug)]
pub struct Sysfs {
    root: PathBuf,
}

impl Default for Sysfs {
    fn default() -> Self {
        Sysfs::new("/sys")
    }
}

impl Sysfs {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Sysfs { root: root.into() }
    }

    /// The directory of a block device by kernel name; `class/block` lists disks and partitions.
    fn node(&self, name: &str) -> PathBuf {
        self.root.join("class/block").join(name)
    }

    /// A sysfs attribute of device `name`, trimmed; None if absent, unreadable or empty.
    pub fn attr(&self, name: &str, rel: &str) -> Option<String> {
        let s = std::fs::read_to_string(self.node(name).join(rel)).ok()?;
        let s = s.trim();
        (!s.is_empty()).then(|| s.to_string())
    }

    /// The drivers bound from device `name`'s hardware up to its bus, nearest first
    /// (`virtio_blk`, `virtio-pci`); empty for a device of no hardware (loop, zram, dm).
    pub fn drivers(&self, name: &str) -> Vec<String> {
        let devices = self.root.join("devices");
        let Ok(mut dir) = std::fs::canonicalize(self.node(name).join("device")) else { return Vec::new() };
        let devices = std::fs::canonicalize(&devices).unwrap_or(devices);
        let mut drivers = Vec::new();
        while dir.starts_with(&devices) && dir != devices {
            drivers.extend(crate::origin::driver_of(&dir));
            if !dir.pop() {
                break;
            }
        }
        drivers
    }

    /// Kernel name of the block device `major:minor`: `/sys/dev/block/M:m` links to its directory.
    pub fn name_of(&self, major: u32, minor: u32) -> Option<String> {
        let link = std::fs::read_link(self.root.join(format!("dev/block/{major}:{minor}"))).ok()?;
        Some(link.file_name()?.to_string_lossy().into_owned())
    }

    /// `major:minor` of device `name`, from its `dev` attribute.
    pub fn dev_of(&self, name: &str) -> Option<(u32, u32)> {
        parse_dev(&self.attr(name, "dev")?)
    }

    /// A partition's directory holds a `partition` file and sits inside its disk's directory.
    pub fn parent_disk(&self, name: &str) -> Option<String> {
        let dir = std::fs::canonicalize(self.node(name)).ok()?;
        if !dir.join("partition").is_file() {
            return None;
        }
        Some(dir.parent()?.file_name()?.to_string_lossy().into_owned())
    }

    /// The disk that stands for device `name`: partition -> its disk, dm/md -> its first slave,
    /// each step repeated until none applies or a loop device is met (a disk of its own).
    pub fn disk_under(&self, name: &str) -> String {
        let mut cur = name.to_string();
        for _ in 0..MAX_DEPTH {
            match self.step_down(&cur) {
                Some(next) if next != cur => cur = next,
                _ => break,
            }
        }
        cur
    }

    fn step_down(&self, name: &str) -> Option<String> {
        if let Some(disk) = self.parent_disk(name) {
            return Some(disk);
        }
        if self.attr(name, "loop/backing_file").is_some() {
            return None;
        }
        // dm (LVM, crypt) and md list what they sit on in `slaves`; the first stands for all,
        // since DeviceInfo has room for one disk. Sorted so the choice is stable.
        self.slaves(name).into_iter().next()
    }

    fn list_dir(&self, name: &str, rel: &str) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(self.node(name).join(rel))
            .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        out.sort();
        out
    }

    /// Devices that `name` is built on (dm/md members).
    pub fn slaves(&self, name: &str) -> Vec<String> {
        self.list_dir(name, "slaves")
    }

    /// Devices built on `name` (dm/md using it).
    pub fn holders(&self, name: &str) -> Vec<String> {
        self.list_dir(name, "holders")
    }

    /// Partitions of disk `name`: subdirectories holding a `partition` file.
    pub fn partitions(&self, name: &str) -> Vec<String> {
        let Ok(dir) = std::fs::canonicalize(self.node(name)) else {
            return Vec::new();
        };
        let mut out: Vec<String> = std::fs::read_dir(&dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter(|e| e.path().join("partition").is_file())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out
    }

    /// `name`, its partitions and everything holding any of them, transitively: every device
    /// through which `name`'s blocks can be in use.
    pub fn users_of(&self, name: &str) -> Vec<String> {
        let mut all = vec![name.to_string()];
        let mut i = 0;
        while i < all.len() && all.len() < 4096 {
            let cur = all[i].clone();
            for n in self.partitions(&cur).into_iter().chain(self.holders(&cur)) {
                if !all.contains(&n) {
                    all.push(n);
                }
            }
            i += 1;
        }
        all
    }

    /// The device `major:minor` and the disk under it.
    pub fn resolve(&self, major: u32, minor: u32) -> Option<BlockDevice> {
        if major == 0 {
            return None; // anonymous device: tmpfs, overlay, proc, btrfs subvolumes...
        }
        let name = self.name_of(major, minor)?;
        let disk = self.disk_under(&name);
        Some(BlockDevice { name, disk, major, minor })
    }

    /// Logical and physical block size that direct I/O to device `name` must respect.
    ///
    /// Read from the device's own queue when it has one (loop and dm devices do, and their
    /// limits may differ from the disk below), else from the partition's parent disk.
    pub fn block_sizes(&self, name: &str) -> Option<(u64, u64)> {
        let queue_dev = if self.node(name).join("queue").is_dir() { name.to_string() } else { self.parent_disk(name)? };
        let read = |f: &str| self.attr(&queue_dev, f)?.parse::<u64>().ok().filter(|v| *v > 0);
        let logical = read("queue/logical_block_size")?;
        let physical = read("queue/physical_block_size").unwrap_or(logical);
        Some((logical, physical))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_sysfs::Fake;
    use std::fs;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn splits_dev_t() {
        assert_eq!(split_dev(0x0801), (8, 1));
        assert_eq!(split_dev(0xfe00), (254, 0));
        // Large numbers use the high bits; cross-checked against libc's makedev.
        for (maj, min) in [(259u32, 0x34512u32), (0x1234, 0xabcde), (7, 3)] {
            assert_eq!(split_dev(libc::makedev(maj, min)), (maj, min));
        }
    }

    #[test]
    fn partition_maps_to_disk_and_uses_disk_queue() {
        let f = Fake::new();
        f.add("pci/virtio1/block/vda", "254:0", false);
        f.add("pci/virtio1/block/vda/vda1", "254:1", true);
        f.write("pci/virtio1/block/vda/queue/logical_block_size", "512\n");
        f.write("pci/virtio1/block/vda/queue/physical_block_size", "4096\n");
        let s = f.sysfs();
        let b = s.resolve(254, 1).unwrap();
        assert_eq!(b, BlockDevice { name: "vda1".into(), disk: "vda".into(), major: 254, minor: 1 });
        assert_eq!(s.resolve(254, 0).unwrap().disk, "vda");
        assert_eq!(s.block_sizes("vda1"), Some((512, 4096)));
        assert_eq!(s.partitions("vda"), vec!["vda1".to_string()]);
        assert_eq!(s.dev_of("vda1"), Some((254, 1)));
        assert_eq!(s.resolve(254, 9), None);
        assert_eq!(s.resolve(0, 40), None, "anonymous devices have no block device");
    }

    #[test]
    fn dm_on_partition_maps_to_disk_and_users_include_holders() {
        let f = Fake::new();
        f.add("pci/block/sda", "8:0", false);
        f.add("pci/block/sda/sda2", "8:2", true);
        f.add("virtual/block/dm-0", "253:0", false);
        f.add("virtual/block/dm-1", "253:1", false);
        f.stack("virtual/block/dm-0", "pci/block/sda/sda2");
        f.stack("virtual/block/dm-1", "virtual/block/dm-0");
        f.write("virtual/block/dm-1/queue/logical_block_size", "4096");
        let s = f.sysfs();
        let b = s.resolve(253, 1).unwrap();
        assert_eq!((b.name.as_str(), b.disk.as_str()), ("dm-1", "sda"));
        assert_eq!(s.block_sizes("dm-1"), Some((4096, 4096)), "physical defaults to logical");
        assert_eq!(s.block_sizes("sda"), None, "no size files: unknown");
        let users = s.users_of("sda");
        assert_eq!(users, vec!["sda", "sda2", "dm-0", "dm-1"]);
    }

    #[test]
    fn a_loop_device_is_a_disk_of_its_own() {
        let f = Fake::new();
        // The backing file is a real file; its real st_dev is given a fake disk in the fake tree.
        let backing = f.dir.path().join("backing.img");
        fs::write(&backing, b"x").unwrap();
        let (maj, min) = split_dev(fs::metadata(&backing).unwrap().dev());
        if maj == 0 {
            spindle_testenv::unavailable("a temp directory on a block device", "it is on an anonymous device");
            return;
        }
        f.add("pci/block/nvme0n1", &format!("{maj}:{min}"), false);
        f.add("virtual/block/loop3", "7:3", false);
        f.write("virtual/block/loop3/loop/backing_file", &format!("{}\n", backing.display()));
        f.add("virtual/block/loop3/loop3p1", "259:7", true);
        f.add("virtual/block/dm-4", "253:4", false);
        f.stack("virtual/block/dm-4", "virtual/block/loop3");
        let s = f.sysfs();
        assert_eq!(s.resolve(7, 3).unwrap().disk, "loop3", "not the disk under its backing file");
        assert_eq!(s.resolve(259, 7).unwrap().disk, "loop3", "partition of a loop");
        assert_eq!(s.resolve(253, 4).unwrap().disk, "loop3", "dm on a loop");
    }

    #[test]
    fn cycles_and_missing_trees_do_not_hang_or_panic() {
        let f = Fake::new();
        f.add("virtual/block/md0", "9:0", false);
        f.add("virtual/block/md1", "9:1", false);
        f.stack("virtual/block/md0", "virtual/block/md1");
        f.stack("virtual/block/md1", "virtual/block/md0");
        let s = f.sysfs();
        let _ = s.resolve(9, 0);
        let _ = s.users_of("md0");
        let none = Sysfs::new("/nonexistent-sysfs");
        assert_eq!(none.resolve(8, 0), None);
        assert_eq!(none.disk_under("sda"), "sda");
        assert!(none.users_of("sda") == vec!["sda".to_string()]);
        assert_eq!(none.block_sizes("sda"), None);
    }
}
