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
}
