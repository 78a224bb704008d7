//! Tests against this real machine: they assert what holds on any Linux box and, where a fact
//! depends on the machine (is the temp dir on a block device?), check it against mountinfo.

use super::*;
use spindle_model::record::DiskOrigin;
use std::process::Command;

#[test]
fn scheduler_list() {
    assert_eq!(active_scheduler("none [mq-deadline] kyber bfq \n").as_deref(), Some("mq-deadline"));
    assert_eq!(active_scheduler("[none] mq-deadline").as_deref(), Some("none"));
    assert_eq!(active_scheduler("none").as_deref(), Some("none"));
    assert_eq!(active_scheduler("none kyber"), None);
    assert_eq!(active_scheduler("[broken"), None);
    assert_eq!(active_scheduler("[]"), None);
    assert_eq!(active_scheduler(""), None);
}

#[test]
fn environment_of_this_machine() {
    let dir = tempfile::tempdir().unwrap();
    let env = environment(&[dir.path(), Path::new("/")]);
    assert!(env.logical_cpus >= 1);
    assert!(env.memory_bytes > 0);
    assert!(!env.hostname.is_empty());
    assert!(!env.kernel.is_empty());
    assert_eq!(env.devices.len(), 2);
    assert_eq!(env.devices[0].target, dir.path().display().to_string());
    eprintln!("{env:#?}");
}

#[test]
fn temp_dir_has_filesystem_and_device_when_on_one() {
    let dir = tempfile::tempdir().unwrap();
    let info = device_info(dir.path());
    let mount = mount_of(dir.path()).expect("temp dir has a mount");
    assert_eq!(info.filesystem.as_deref(), Some(mount.fs_type.as_str()));
    assert_eq!(info.mount_point, Some(mount.mount_point.display().to_string()));
    assert!(info.mount_options.as_deref().is_some_and(|o| !o.is_empty()));
    if mount.major != 0 {
        let bd = block_device_of(dir.path()).expect("st_dev has a block device");
        assert_eq!((bd.major, bd.minor), (mount.major, mount.minor));
        assert_eq!(info.device.as_deref(), Some(bd.disk.as_str()));
        let (logical, physical) = block_sizes(dir.path()).expect("block sizes");
        assert!(logical >= 512 && logical.is_power_of_two());
        assert!(physical >= logical);
        assert_eq!(info.logical_block_size, Some(logical));
        assert!(info.size_bytes.is_some_and(|s| s > 0));
        assert!(info.rotational.is_some());
    } else {
        spindle_testenv::unavailable("a temp directory on a block device", format!("it is on {}", mount.fs_type));
    }
}

#[test]
fn missing_file_is_described_by_its_ancestor() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("not/yet/created.dat");
    let a = device_info(dir.path());
    let b = device_info(&missing);
    assert_eq!(b.target, missing.display().to_string());
    assert_eq!(DeviceInfo { target: a.target.clone(), ..b }, a);
    assert_eq!(mount_of(&missing), mount_of(dir.path()));
    // Relative paths resolve from the current directory.
    assert_eq!(mount_of(Path::new("no-such-relative-file")), mount_of(&std::env::current_dir().unwrap()));
    assert!(mount_of(Path::new("")).is_some());
}

#[test]
fn tmpfs_has_filesystem_but_no_device() {
    let shm = Path::new("/dev/shm");
    match mount_of(shm) {
        Some(m) if m.fs_type == "tmpfs" => {
            let info = device_info(shm);
            assert_eq!(info.filesystem.as_deref(), Some("tmpfs"));
            assert_eq!(info.device, None);
            assert_eq!(info.logical_block_size, None);
            assert_eq!(block_sizes(shm), None);
            assert_eq!(block_device_of(shm), None);
        }
        other => spindle_testenv::unavailable("tmpfs at /dev/shm", format!("its mount is {other:?}")),
    }
}

#[test]
fn root_device_is_mounted() {
    let root = mount_of(Path::new("/")).expect("root mount");
    if !Path::new(&root.source).exists() {
        spindle_testenv::unavailable("a device node under /", format!("its source is {}", root.source));
        return;
    }
    match is_mounted_block_device(Path::new(&root.source)) {
        Ok(mounted) => assert!(mounted, "{} holds / but is not seen as mounted", root.source),
        Err(e) => spindle_testenv::unavailable("the device under /", format!("{}: {e}", root.source)),
    }
}

#[test]
fn non_block_devices_are_rejected() {
    let e = is_mounted_block_device(Path::new("/dev/null")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    assert!(is_mounted_block_device(Path::new("/no/such/device")).is_err());
}

#[test]
fn free_space_of_temp_dir() {
    let dir = tempfile::tempdir().unwrap();
    assert!(free_space(dir.path()).unwrap() > 0);
    assert!(free_space(&dir.path().join("missing")).is_err());
}

/// Removes what the loop test set up, in reverse order, even if an assertion fails.
struct LoopGuard {
    dev: String,
    mounted: Option<PathBuf>,
}

impl Drop for LoopGuard {
    fn drop(&mut self) {
        if let Some(m) = self.mounted.take() {
            let _ = Command::new("umount").arg(&m).status();
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

fn run_ok(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn a_loop_device_is_a_disk_of_its_own_over_the_disk_its_file_is_on() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("disk.img");
    std::fs::File::create(&img).unwrap().set_len(32 << 20).unwrap();
    let Some(dev) = run_ok(Command::new("losetup").args(["-f", "--show"]).arg(&img)) else {
        spindle_testenv::unavailable("a loop device", "losetup failed (it needs root and loop devices)");
        return;
    };
    let mut guard = LoopGuard { dev: dev.clone(), mounted: None };
    let dev_path = Path::new(&dev);
    let name = dev_path.file_name().unwrap().to_string_lossy().into_owned();

    let bd = block_device_of(dev_path).expect("loop device resolves");
    assert_eq!(bd.name, name);
    assert_eq!(bd.major, 7);
    assert_eq!(bd.disk, name, "a loop device is a disk of its own");
    let under = block_device_of(&img).map(|b| b.disk);
    let node_info = device_info(dev_path);
    assert_eq!(node_info.disks, [under.clone().unwrap_or_else(|| name.clone())], "the disk under it named");
    assert_eq!(node_info.size_bytes, Some(32 << 20), "the loop's own size, not its disk's");
    assert_eq!(node_info.filesystem, None, "an unmounted device node has no filesystem");
    assert!(node_info.logical_block_size.is_some());
    assert!(!is_mounted_block_device(dev_path).unwrap(), "fresh loop device is not mounted");

    if run_ok(Command::new("mkfs.ext4").args(["-q", &dev])).is_none() {
        spindle_testenv::unavailable("mkfs.ext4", "it failed on the loop device");
        return;
    }
    let mnt = dir.path().join("mnt with space");
    std::fs::create_dir(&mnt).unwrap();
    if run_ok(Command::new("mount").arg(&dev).arg(&mnt)).is_none() {
        spindle_testenv::unavailable("mount", "mounting the loop device failed");
        return;
    }
    guard.mounted = Some(mnt.clone());

    assert!(is_mounted_block_device(dev_path).unwrap());
    let why = block_device_use(dev_path).unwrap().unwrap();
    assert!(why.contains("mounted"), "{why}");

    let m = mount_of(&mnt.join("file")).expect("mount of a file on the loop");
    assert_eq!(m.mount_point, std::fs::canonicalize(&mnt).unwrap(), "octal escape of the space decoded");
    assert_eq!(m.fs_type, "ext4");
    assert_eq!(m.major, 7);

    let info = device_info(&mnt.join("db.dat"));
    assert_eq!(info.filesystem.as_deref(), Some("ext4"));
    assert_eq!((info.device.as_deref(), info.partition.as_deref()), (Some(name.as_str()), None));
    assert_eq!(info.disks, [under.unwrap_or_else(|| name.clone())]);
    let node_info = device_info(dev_path);
    assert_eq!(node_info.filesystem.as_deref(), Some("ext4"), "a mounted device node reports its mount");
    assert!(free_space(&mnt).unwrap() > 0);
    drop(guard);
}

#[test]
fn device_info_fields_come_from_the_disk_under_a_partition() {
    let dir = tempfile::tempdir().unwrap();
    let canonical = std::fs::canonicalize(dir.path()).unwrap();
    let (maj, min) = split_dev(std::fs::metadata(&canonical).unwrap().dev());
    if maj == 0 {
        spindle_testenv::unavailable("a temp directory on a block device", "it is on an anonymous device");
        return;
    }
    // The temp dir's real st_dev is made partition 3 of a fake SATA SSD.
    let f = crate::fake_sysfs::Fake::new();
    f.add("pci/ata1/block/sdz", "8:4000", false);
    f.add("pci/ata1/block/sdz/sdz3", &format!("{maj}:{min}"), true);
    for (rel, text) in [
        ("device/model", "FAKE SSD 860   \n"),
        ("device/vendor", "ATA     \n"),
        ("queue/rotational", "0\n"),
        ("size", "2048\n"),
        ("queue/scheduler", "[none] mq-deadline\n"),
        ("queue/write_cache", "write through\n"),
        ("queue/read_ahead_kb", "128\n"),
        ("queue/max_sectors_kb", "1280\n"),
        ("queue/logical_block_size", "4096\n"),
        ("queue/physical_block_size", "4096\n"),
    ] {
        f.write(&format!("pci/ata1/block/sdz/{rel}"), text);
    }
    let mounts = parse_mountinfo(&format!(
        "1 0 {maj}:{min} / {} rw,noatime - xfs /dev/sdz3 rw,attr2\n",
        canonical.display().to_string().replace(' ', "\\040")
    ));
    let target = dir.path().join("db.dat");
    let info = device_info_in(&f.sysfs(), &mounts, None, &target);
    assert_eq!(
        info,
        DeviceInfo {
            target: target.display().to_string(),
            device: Some("sdz".into()),
            partition: Some("sdz3".into()),
            model: Some("FAKE SSD 860".into()),
            vendor: Some("ATA".into()),
            rotational: Some(false),
            size_bytes: Some(2048 * 512),
            scheduler: Some("none".into()),
            logical_block_size: Some(4096),
            physical_block_size: Some(4096),
            filesystem: Some("xfs".into()),
            mount_point: Some(canonical.display().to_string()),
            mount_options: Some("rw,noatime,attr2".into()),
            write_cache: Some("write through".into()),
            read_ahead_kb: Some(128),
            max_sectors_kb: Some(1280),
            loop_backing_file: None,
            loop_direct_io: None,
            members: Vec::new(),
            disks: vec!["sdz".into()],
            origin: Some(DiskOrigin::Local {
                evidence: "sdz (no driver; ATA FAKE SSD 860) on a machine that is not virtual".into()
            }),
        }
    );
}

#[test]
fn a_target_on_a_loop_device_records_its_backing_file_and_direct_io_mode() {
    let dir = tempfile::tempdir().unwrap();
    let canonical = std::fs::canonicalize(dir.path()).unwrap();
    let (maj, min) = split_dev(std::fs::metadata(&canonical).unwrap().dev());
    if maj == 0 {
        spindle_testenv::unavailable("a temp directory on a block device", "it is on an anonymous device");
        return;
    }
    // The temp dir's real st_dev is made a loop device whose backing file is on no disk.
    let f = crate::fake_sysfs::Fake::new();
    f.add("virtual/block/loop9", &format!("{maj}:{min}"), false);
    f.write("virtual/block/loop9/loop/backing_file", "/srv/images/data.img (deleted)\n");
    f.write("virtual/block/loop9/loop/dio", "1\n");
    let mounts = parse_mountinfo(&format!(
        "1 0 {maj}:{min} / {} rw - ext4 /dev/loop9 rw\n",
        canonical.display().to_string().replace(' ', "\\040")
    ));
    let target = dir.path().join("db.dat");
    let info = device_info_in(&f.sysfs(), &mounts, None, &target);
    assert_eq!(info.loop_backing_file.as_deref(), Some("/srv/images/data.img (deleted)"));
    assert_eq!(info.loop_direct_io, Some(true));
    assert_eq!((info.device.as_deref(), info.disks.as_slice()), (Some("loop9"), &["loop9".to_string()][..]));
    assert!(info.members.is_empty());
    f.write("virtual/block/loop9/loop/dio", "0\n");
    assert_eq!(device_info_in(&f.sysfs(), &mounts, None, &target).loop_direct_io, Some(false));
}

/// A 32 MiB image with an MBR holding one Linux partition from sector 2048 to the end.
fn partitioned_image(path: &Path) {
    let size: u64 = 32 << 20;
    let mut mbr = [0u8; 512];
    let entry = &mut mbr[446..462];
    entry[4] = 0x83; // Linux
    entry[8..12].copy_from_slice(&2048u32.to_le_bytes());
    entry[12..16].copy_from_slice(&((size / 512 - 2048) as u32).to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xaa;
    std::fs::write(path, mbr).unwrap();
    std::fs::OpenOptions::new().write(true).open(path).unwrap().set_len(size).unwrap();
}

#[test]
fn partition_of_a_loop_device_maps_to_the_loop_and_mount_marks_the_whole_device() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("parted.img");
    partitioned_image(&img);
    let Some(dev) = run_ok(Command::new("losetup").args(["-P", "-f", "--show"]).arg(&img)) else {
        spindle_testenv::unavailable("a loop device", "losetup failed (it needs root and loop devices)");
        return;
    };
    let mut guard = LoopGuard { dev: dev.clone(), mounted: None };
    let name = Path::new(&dev).file_name().unwrap().to_string_lossy().into_owned();
    let part_name = format!("{name}p1");
    let part = PathBuf::from(format!("/dev/{part_name}"));
    // The kernel scans the table on attach; the node may take a moment to appear. A kernel
    // without the MBR parser (CONFIG_MSDOS_PARTITION unset, as here) is told by partx instead.
    for attempt in 0..50 {
        if part.exists() {
            break;
        }
        if attempt == 10 {
            let _ = run_ok(Command::new("partx").args(["-a", &dev]));
        }
        std::thread::sleep(std::time::Duration::from_millis(40));
    }
    if !part.exists() {
        spindle_testenv::unavailable("a partition of a loop device", format!("{} did not appear", part.display()));
        return;
    }
    let sys = Sysfs::default();
    assert_eq!(sys.parent_disk(&part_name).as_deref(), Some(name.as_str()));
    assert_eq!(sys.partitions(&name), vec![part_name.clone()]);

    let bd = block_device_of(&part).expect("partition resolves");
    assert_eq!(bd.name, part_name);
    let under = block_device_of(&img).map(|b| b.disk).unwrap_or_else(|| name.clone());
    assert_eq!(bd.disk, name, "partition -> the loop, a disk of its own");
    assert_eq!(block_sizes(&part), sys.block_sizes(&name), "a partition uses its disk's queue");
    assert!(!is_mounted_block_device(Path::new(&dev)).unwrap());

    if run_ok(Command::new("mkfs.ext4").arg("-q").arg(&part)).is_none() {
        spindle_testenv::unavailable("mkfs.ext4", "it failed on the partition");
        return;
    }
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    if run_ok(Command::new("mount").arg(&part).arg(&mnt)).is_none() {
        spindle_testenv::unavailable("mount", "mounting the partition failed");
        return;
    }
    guard.mounted = Some(mnt.clone());

    // Writing to the whole loop device would destroy the mounted partition.
    let why = block_device_use(Path::new(&dev)).unwrap().expect("whole device in use");
    assert!(why.contains(&part_name), "{why}");
    assert!(is_mounted_block_device(&part).unwrap());

    let info = device_info(&mnt.join("wal"));
    assert_eq!(info.partition.as_deref(), Some(part_name.as_str()));
    assert_eq!(info.loop_backing_file.as_deref(), Some(img.display().to_string().as_str()), "{info:?}");
    assert_eq!(info.loop_direct_io, Some(false), "losetup without --direct-io");
    assert_eq!((info.device.as_deref(), info.disks.as_slice()), (Some(name.as_str()), &[under][..]));
    assert_eq!(info.filesystem.as_deref(), Some("ext4"));
    drop(guard);
}
