//! What machine spindle runs on: the environment recorded with every run, and the block devices,
//! filesystems and mounts under target paths.
//!
//! Linux-only facts come from `/proc` and `/sys`. Nothing here fails a run: a fact that cannot be
//! read is left empty (`None`, `""`, `0`), except where a caller must decide something safely
//! (`is_mounted_block_device`, `free_space`), which return `io::Result`.

pub mod blockdev;
pub mod dio;
#[cfg(test)]
mod fake_sysfs;
pub mod layers;
pub mod mountinfo;
pub mod origin;
pub mod system;

pub use blockdev::{BlockDevice, Sysfs};
pub use dio::{DioAlign, direct_io_alignment};
pub use mountinfo::{Mount, parse_mountinfo};

use blockdev::split_dev;
use spindle_model::record::{DeviceInfo, Environment};
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The environment recorded with every run, with one `DeviceInfo` per target path.
pub fn environment(targets: &[&Path]) -> Environment {
    let devices: Vec<DeviceInfo> = targets.iter().map(|t| device_info(t)).collect();
    Environment {
        hostname: system::hostname(),
        os: system::os(),
        kernel: system::kernel(),
        cpu_model: system::cpu_model(),
        logical_cpus: system::logical_cpus(),
        memory_bytes: system::memory_bytes(),
        shared_disks: spindle_model::record::shared_disks(&devices),
        devices,
    }
}

/// What lies under one path: a file, a file not created yet (its nearest existing ancestor
/// directory is described), a directory, or a block device node.
pub fn device_info(path: &Path) -> DeviceInfo {
    device_info_in(&Sysfs::default(), &mountinfo::read_mounts(), origin::guest().as_deref(), path)
}

/// `device_info` against a given sysfs tree and mount table (tests use fake ones), on a
/// machine that is a virtual machine when `guest` says why (`origin::guest`).
fn device_info_in(sys: &Sysfs, mounts: &[Mount], guest: Option<&str>, path: &Path) -> DeviceInfo {
    let mut info = DeviceInfo { target: path.display().to_string(), ..DeviceInfo::default() };
    let found = locate(path);

    let mount = match &found {
        // A device node lives on devtmpfs; what matters is where the device itself is mounted.
        Some(f) if f.is_block => mount_of_device(mounts, f.dev),
        Some(f) => mountinfo::mount_containing(mounts, &f.canonical).cloned(),
        None => None,
    };
    if let Some(m) = &mount {
        info.filesystem = Some(m.fs_type.clone());
        info.mount_point = Some(m.mount_point.display().to_string());
        info.mount_options = Some(m.all_options());
    }

    let Some(bd) = found.as_ref().and_then(|f| resolve_located(sys, f, mount.as_ref())) else {
        return info;
    };
    let disk = bd.disk.as_str();
    info.model = sys.attr(disk, "device/model");
    info.vendor = sys.attr(disk, "device/vendor");
    info.rotational = sys.attr(disk, "queue/rotational").map(|r| r == "1");
    info.size_bytes =
        sys.attr(disk, "size").and_then(|s| s.parse::<u64>().ok()).and_then(|sectors| sectors.checked_mul(512));
    info.scheduler = sys.attr(disk, "queue/scheduler").and_then(|s| active_scheduler(&s));
    info.write_cache = sys.attr(disk, "queue/write_cache");
    // A partition has no queue of its own; a loop or dm device has, with settings of its own.
    let queue = if sys.attr(&bd.name, "queue/read_ahead_kb").is_some() { bd.name.as_str() } else { disk };
    let kb = |attr: &str| sys.attr(queue, attr).and_then(|v| v.parse::<u64>().ok());
    info.read_ahead_kb = kb("queue/read_ahead_kb");
    info.max_sectors_kb = kb("queue/max_sectors_kb");
    if let Some((logical, physical)) = sys.block_sizes(&bd.name) {
        info.logical_block_size = Some(logical);
        info.physical_block_size = Some(physical);
    }
    if bd.name != bd.disk {
        info.partition = Some(bd.name.clone());
    }
    let stack = layers::stack_in(sys, &bd.name);
    info.loop_direct_io = stack.loop_device.as_ref().map(|l| l.direct_io);
    info.loop_backing_file = stack.loop_device.map(|l| l.backing_file);
    info.members = stack.members;
    info.disks = stack.disks;
    let disks: Vec<&str> = info.disks.iter().map(String::as_str).collect();
    info.origin = origin::origin_in(sys, guest, &disks);
    info.device = Some(bd.disk);
    info
}

/// The block device a path lives on, and the disk that stands for it (a partition's disk; a
/// loop device itself).
pub fn block_device_of(path: &Path) -> Option<BlockDevice> {
    let found = locate(path)?;
    let mount = if found.is_block {
        None
    } else {
        mountinfo::mount_containing(&mountinfo::read_mounts(), &found.canonical).cloned()
    };
    resolve_located(&Sysfs::default(), &found, mount.as_ref())
}

/// Logical and physical block size of the device under a path: what direct I/O must align to.
/// None if unknown (e.g. tmpfs; callers then assume 512).
pub fn block_sizes(path: &Path) -> Option<(u64, u64)> {
    let bd = block_device_of(path)?;
    Sysfs::default().block_sizes(&bd.name)
}

/// The mount containing a path (for a path not created yet, the mount of its nearest existing
/// ancestor).
pub fn mount_of(path: &Path) -> Option<Mount> {
    let found = locate(path)?;
    mountinfo::mount_containing(&mountinfo::read_mounts(), &found.canonical).cloned()
}

/// Whether a block device node (e.g. `/dev/loop3`) is in use in a way that writing to it would
/// destroy: it, a partition of it, or a device built on it (dm/md) is mounted or used as swap,
/// or the kernel refuses an exclusive open (held by dm/md, a mounted filesystem, or another
/// program that opened it with `O_EXCL`). Errors if the path is not a block device.
pub fn is_mounted_block_device(dev_path: &Path) -> io::Result<bool> {
    Ok(block_device_use(dev_path)?.is_some())
}

/// Like `is_mounted_block_device`, but says why the device is in use, for error messages.
pub fn block_device_use(dev_path: &Path) -> io::Result<Option<String>> {
    let meta = std::fs::metadata(dev_path)?;
    if !meta.file_type().is_block_device() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a block device", dev_path.display()),
        ));
    }
    let sys = Sysfs::default();
    let own = split_dev(meta.rdev());
    // Every device through which this one's blocks may be in use, by major:minor and name.
    let mut users: Vec<((u32, u32), String)> = Vec::new();
    match sys.name_of(own.0, own.1) {
        Some(name) => {
            for n in sys.users_of(&name) {
                if let Some(dev) = sys.dev_of(&n) {
                    users.push((dev, n));
                }
            }
        }
        None => users.push((own, dev_path.display().to_string())),
    }
    if !users.iter().any(|(d, _)| *d == own) {
        users.push((own, dev_path.display().to_string()));
    }
    let user_named = |dev: (u32, u32)| users.iter().find(|(d, _)| *d == dev).map(|(_, n)| n.clone());

    for m in mountinfo::read_mounts() {
        // Most filesystems report the device in st_dev; btrfs reports an anonymous one, so the
        // mount source (a device path) is checked too.
        let by_source = source_dev(&m.source);
        let hit = user_named((m.major, m.minor)).or_else(|| by_source.and_then(user_named));
        if let Some(name) = hit {
            return Ok(Some(format!("{name} is mounted at {} ({})", m.mount_point.display(), m.fs_type)));
        }
    }
    if let Ok(swaps) = std::fs::read_to_string("/proc/swaps") {
        for line in swaps.lines().skip(1) {
            let Some(first) = line.split_whitespace().next() else { continue };
            let bytes = mountinfo::unescape(first);
            if let Some(name) = source_dev(OsStr::from_bytes(&bytes)).and_then(user_named) {
                return Ok(Some(format!("{name} is in use as swap")));
            }
        }
    }
    // The kernel's own answer: O_EXCL on a block device fails with EBUSY while anything holds
    // it (a mounted filesystem, dm, md, or another exclusive opener).
    match std::fs::OpenOptions::new().read(true).custom_flags(libc::O_EXCL | libc::O_CLOEXEC).open(dev_path) {
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
            Ok(Some(format!("{} is busy: the kernel refuses an exclusive open", dev_path.display())))
        }
        _ => Ok(None),
    }
}

/// Free bytes available to an unprivileged user in the filesystem holding `dir`
/// (`f_bavail * f_frsize`: root's reserved blocks are not counted).
pub fn free_space(dir: &Path) -> io::Result<u64> {
    let st = statvfs(dir)?;
    #[allow(clippy::unnecessary_cast)] // field widths differ between targets
    Ok((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// The size of the filesystem holding `dir`, in bytes (`f_blocks * f_frsize`).
pub fn filesystem_size(dir: &Path) -> io::Result<u64> {
    let st = statvfs(dir)?;
    #[allow(clippy::unnecessary_cast)] // field widths differ between targets
    Ok((st.f_blocks as u64).saturating_mul(st.f_frsize as u64))
}

fn statvfs(dir: &Path) -> io::Result<libc::statvfs> {
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))?;
    // SAFETY: statvfs is plain old data; all-zero is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid NUL-terminated string and `st` a valid, writable statvfs.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st)
}

/// The active entry of a `queue/scheduler` list: `none [mq-deadline] kyber` -> `mq-deadline`.
/// A single unbracketed entry (some drivers print just `none`) is taken as is.
pub fn active_scheduler(list: &str) -> Option<String> {
    if let Some(start) = list.find('[') {
        let rest = &list[start + 1..];
        let end = rest.find(']')?;
        let s = rest[..end].trim();
        return (!s.is_empty()).then(|| s.to_string());
    }
    let mut words = list.split_whitespace();
    match (words.next(), words.next()) {
        (Some(only), None) => Some(only.to_string()),
        _ => None,
    }
}

/// A path found on disk: the existing path itself or its nearest existing ancestor.
struct Located {
    canonical: PathBuf,
    /// st_rdev for a block device node, else st_dev.
    dev: (u32, u32),
    is_block: bool,
}

/// Finds `path`, or for a path not created yet its nearest existing ancestor (relative paths
/// from the current directory), so that a test file can be described before it is created.
fn locate(path: &Path) -> Option<Located> {
    let abs = if path.as_os_str().is_empty() {
        std::env::current_dir().ok()?
    } else if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let existing = abs.ancestors().find(|p| std::fs::metadata(p).is_ok())?;
    let canonical = std::fs::canonicalize(existing).ok()?;
    let meta = std::fs::metadata(&canonical).ok()?;
    let is_block = meta.file_type().is_block_device();
    let dev = split_dev(if is_block { meta.rdev() } else { meta.dev() });
    Some(Located { canonical, dev, is_block })
}

fn resolve_located(sys: &Sysfs, found: &Located, mount: Option<&Mount>) -> Option<BlockDevice> {
    let (major, minor) = found.dev;
    if major == 0 {
        // No block device in st_dev (tmpfs, overlay, or btrfs, whose st_dev is anonymous): a
        // mount source that is a device node still names the device (btrfs); names like
        // `tmpfs` or `overlay` do not.
        let (maj, min) = source_dev(&mount?.source)?;
        return sys.resolve(maj, min);
    }
    sys.resolve(major, minor)
}

/// major:minor of a mount source when it is a block device node (`/dev/sda1`).
fn source_dev(source: impl AsRef<Path>) -> Option<(u32, u32)> {
    let source = source.as_ref();
    if !source.is_absolute() {
        return None;
    }
    let meta = std::fs::metadata(source).ok()?;
    meta.file_type().is_block_device().then(|| split_dev(meta.rdev()))
}

/// The mount of block device `dev` itself, preferring the mount of its whole filesystem over
/// bind mounts of a subdirectory.
fn mount_of_device(mounts: &[Mount], dev: (u32, u32)) -> Option<Mount> {
    let on_dev: Vec<&Mount> =
        mounts.iter().filter(|m| (m.major, m.minor) == dev || source_dev(&m.source) == Some(dev)).collect();
    on_dev.iter().find(|m| m.root == Path::new("/")).or_else(|| on_dev.first()).map(|m| (*m).clone())
}

#[cfg(test)]
mod tests;
