//! A fake sysfs tree for tests: the mapping rules are checked without root or special disks.

use crate::blockdev::Sysfs;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

/// Builds a fake sysfs: `devices/...` directories with `dev` files, and the `dev/block` and
/// `class/block` symlinks the kernel makes.
pub(crate) struct Fake {
    pub(crate) dir: tempfile::TempDir,
}

impl Fake {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("dev/block")).unwrap();
        fs::create_dir_all(dir.path().join("class/block")).unwrap();
        Fake { dir }
    }
    pub(crate) fn sysfs(&self) -> Sysfs {
        Sysfs::new(self.dir.path())
    }
    /// Adds device `name` at `devices/<rel>` (rel ends with name).
    pub(crate) fn add(&self, rel: &str, dev: &str, partition: bool) -> PathBuf {
        let d = self.dir.path().join("devices").join(rel);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("dev"), format!("{dev}\n")).unwrap();
        if partition {
            fs::write(d.join("partition"), "1\n").unwrap();
        } else {
            fs::create_dir_all(d.join("queue")).unwrap();
            fs::create_dir_all(d.join("slaves")).unwrap();
            fs::create_dir_all(d.join("holders")).unwrap();
        }
        let name = d.file_name().unwrap().to_str().unwrap().to_string();
        symlink(format!("../../devices/{rel}"), self.dir.path().join("dev/block").join(dev)).unwrap();
        symlink(format!("../../devices/{rel}"), self.dir.path().join("class/block").join(&name)).unwrap();
        d
    }
    pub(crate) fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join("devices").join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    /// The device at `rel` is bound to driver `name`.
    pub(crate) fn driver(&self, rel: &str, name: &str) {
        symlink(format!("../../bus/fake/drivers/{name}"), self.dir.path().join("devices").join(rel).join("driver"))
            .unwrap();
    }
    /// Block device `disk_rel`'s hardware is the device at `target_rel`.
    pub(crate) fn device_link(&self, disk_rel: &str, target_rel: &str) {
        let devices = self.dir.path().join("devices");
        symlink(devices.join(target_rel), devices.join(disk_rel).join("device")).unwrap();
    }
    /// `holder` sits on `slave`: links both ways as the kernel does.
    pub(crate) fn stack(&self, holder_rel: &str, slave_rel: &str) {
        let root = self.dir.path().join("devices");
        let h = root.join(holder_rel);
        let s = root.join(slave_rel);
        symlink(&s, h.join("slaves").join(s.file_name().unwrap())).unwrap();
        fs::create_dir_all(s.join("holders")).unwrap();
        symlink(&h, s.join("holders").join(h.file_name().unwrap())).unwrap();
    }
}
