//! The directories a check runs in: refused before any I/O when one is missing, not a
//! directory, not writable, or short of the space the battery needs; and what the host says
//! lies under each (filesystem, device, partition start, a loop device's backing file).

use crate::battery::Budget;
use spindle_analysis::findings::{DirEvidence, LoopBacking};
use spindle_model::record::{DeviceInfo, shared_disks};
use spindle_model::units::format_bytes_approx;
use spindle_plan::usage::UsageError;
use std::fs::OpenOptions;
use std::path::Path;

/// A directory the battery can write in, with `needed` bytes free; exit 2 naming it otherwise.
pub fn usable(dir: &Path, needed: u64, budget: Budget) -> Result<(), UsageError> {
    let meta = std::fs::metadata(dir).map_err(|e| {
        let why =
            if e.kind() == std::io::ErrorKind::NotFound { "no such directory".to_string() } else { e.to_string() };
        UsageError::file(dir, why)
    })?;
    if !meta.is_dir() {
        return Err(UsageError::file(dir, "not a directory: name the directory to check"));
    }
    // Write access is tried, not inferred from mode bits: a read-only mount, an ACL or a
    // full inode table all answer here, before the battery plans a file it cannot make.
    let probe = dir.join(format!(".spindle-check-probe-{}", std::process::id()));
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
        }
        Err(e) if e.raw_os_error() == Some(libc::EROFS) => {
            return Err(UsageError::file(dir, "on a read-only filesystem: the check writes its test files here"));
        }
        Err(e) => return Err(UsageError::file(dir, format_args!("cannot create a file here ({e})"))),
    }
    let free = spindle_host::free_space(dir).map_err(|e| UsageError::file(dir, e))?;
    if free < needed {
        return Err(UsageError::file(
            dir,
            format_args!(
                "{} free, and the {} battery needs {}; free some space{}",
                format_bytes_approx(free),
                budget.name(),
                format_bytes_approx(needed),
                if budget == Budget::Quick { "" } else { ", or use --quick (a smaller test file)" }
            ),
        ));
    }
    Ok(())
}

/// What the host says lies under `dir`, before the battery writes anything.
pub fn host_facts(dir: &Path) -> DirEvidence {
    let device = spindle_host::device_info(dir);
    let partition_start_bytes = device.partition.as_deref().and_then(spindle_host::layers::partition_start_bytes);
    // A loop device is the "partition" over its backing file's disk, or, when that file is on
    // no disk (tmpfs), the device itself.
    let loop_device = [&device.partition, &device.device].into_iter().flatten().find(|n| n.starts_with("loop"));
    let loop_backing = loop_device.and_then(|n| spindle_host::layers::loop_info(n)).map(|l| LoopBacking {
        file: l.backing_file,
        direct_io: l.direct_io,
        backing_filesystem: l.backing_filesystem,
    });
    DirEvidence {
        dir: dir.display().to_string(),
        free_bytes: spindle_host::free_space(dir).ok(),
        filesystem_bytes: spindle_host::filesystem_size(dir).ok(),
        partition_start_bytes,
        loop_backing,
        device,
        ..DirEvidence::default()
    }
}

/// The disk two directories share, if they do.
pub fn shared_disk(a: &DeviceInfo, b: &DeviceInfo) -> Option<String> {
    shared_disks(&[a.clone(), b.clone()]).into_iter().next().map(|s| s.disk)
}

/// Directories that sit on one physical device, said before the first step: their figures
/// are not independent, and data and log split between them share the device all the same.
pub fn sharing_a_device(dirs: &[DirEvidence]) -> Vec<String> {
    let devices: Vec<DeviceInfo> = dirs.iter().map(|d| d.device.clone()).collect();
    shared_disks(&devices)
        .into_iter()
        .map(|s| {
            let names: Vec<&str> = s.targets.iter().map(|&i| dirs[i].dir.as_str()).collect();
            format!(
                "{} are on one physical device ({}): what one does, the other waits for; data and log on them are \
                 on one volume",
                and_list(&names),
                s.disk
            )
        })
        .collect()
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [only] => only.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_or_full_directory_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let usable = |dir: &Path, needed| usable(dir, needed, Budget::Default);
        assert!(usable(&missing, 0).unwrap_err().to_string().contains("nope: no such directory"));
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(usable(&file, 0).unwrap_err().to_string().contains("not a directory"));
        let e = usable(dir.path(), u64::MAX / 2).unwrap_err().to_string();
        assert!(e.contains("the default battery needs") && e.contains("--quick"), "{e}");
        usable(dir.path(), 1).expect("a writable directory with room");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the probe is removed");
    }

    #[test]
    fn directories_on_one_disk_are_said_to_share_it() {
        let on = |dir: &str, disk: Option<&str>| {
            let mut d = DirEvidence { dir: dir.into(), ..DirEvidence::default() };
            d.device.device = disk.map(String::from);
            d
        };
        let said = sharing_a_device(&[on("/data", Some("vda")), on("/log", Some("vdb")), on("/tmp", Some("vda"))]);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].starts_with("/data and /tmp are on one physical device (vda)"), "{said:?}");
        assert!(sharing_a_device(&[on("/a", None), on("/b", None)]).is_empty(), "unknown is not the same");
    }
}
