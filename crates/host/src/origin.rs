//! Whether the disks under a target are a hypervisor's or a cloud's, this machine's own, or
//! cannot be told. A flush time means different things on each: on a local disk it says what
//! the device did; on a virtual disk only that the host answered, since whether the write
//! reached stable media is the host's promise. The kernel's flags cannot tell them apart (it
//! marks a virtio disk rotational by default), so this reads the drivers, vendor and model in
//! sysfs and the machine's firmware.

use crate::Sysfs;
use spindle_model::record::DiskOrigin;
use std::path::Path;

/// Drivers of a hypervisor's paravirtual disks and disk controllers, with the platform each
/// belongs to. Matched against every driver from the disk's device up to the bus.
const VIRTUAL_DRIVERS: &[(&str, &str)] = &[
    ("virtio_blk", "virtio"),
    ("virtio_scsi", "virtio"),
    ("vbd", "Xen"),
    ("xen-blkfront", "Xen"),
    ("hv_storvsc", "Hyper-V (Azure)"),
    ("storvsc", "Hyper-V (Azure)"),
    ("vmw_pvscsi", "VMware"),
];

/// Vendor or model words (matched without case) of virtual disks that a common driver (nvme,
/// sd, ahci) drives: clouds' block storage and hypervisors' emulated disks.
const VIRTUAL_LABELS: &[(&str, &str)] = &[
    ("Amazon Elastic Block Store", "Amazon EBS"),
    ("PersistentDisk", "Google Persistent Disk"),
    ("nvme_card-pd", "Google Persistent Disk"),
    ("BlockVolume", "Oracle Cloud Block Volume"),
    ("Virtual Disk", "a hypervisor's virtual disk"),
    ("Msft", "Hyper-V (Azure)"),
    ("VMware", "VMware"),
    ("QEMU", "QEMU"),
    ("VBOX", "VirtualBox"),
    // The PCI vendor of virtio devices, which a virtio disk gives as its vendor.
    ("0x1af4", "virtio"),
];

/// Models of the SSDs a cloud attaches to the machine itself (instance store, local SSD): on a
/// virtual machine, yet a flush there is the SSD's.
const LOCAL_CLOUD_LABELS: &[&str] = &["Amazon EC2 NVMe Instance Storage", "EphemeralDisk", "nvme_card"];

/// Firmware makers and products (DMI) of virtual machines.
const VIRTUAL_MACHINES: &[&str] = &[
    "QEMU",
    "KVM",
    "VMware",
    "VirtualBox",
    "innotek",
    "Xen",
    "Amazon EC2",
    "Google Compute Engine",
    "Virtual Machine",
    "OpenStack",
    "Bochs",
    "Parallels",
    "DigitalOcean",
];

/// What one disk's sysfs entries say about it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiskFacts {
    pub name: String,
    /// The drivers from the disk's device up to its bus (`virtio_blk`, `virtio-pci`).
    pub drivers: Vec<String>,
    pub vendor: Option<String>,
    pub model: Option<String>,
}

impl DiskFacts {
    fn read(sys: &Sysfs, name: &str) -> DiskFacts {
        DiskFacts {
            name: name.to_string(),
            drivers: sys.drivers(name),
            vendor: sys.attr(name, "device/vendor"),
            model: sys.attr(name, "device/model"),
        }
    }

    fn label(&self) -> String {
        [&self.vendor, &self.model].iter().filter_map(|s| s.as_deref()).collect::<Vec<_>>().join(" ")
    }
}

/// Whether this machine is a virtual machine, and what says so; `None` on bare metal, or where
/// nothing tells.
pub fn guest() -> Option<String> {
    let read = |path: &str| std::fs::read_to_string(path).map(|s| s.trim().to_string()).ok().filter(|s| !s.is_empty());
    let dmi: Vec<String> =
        ["sys_vendor", "product_name"].iter().filter_map(|f| read(&format!("/sys/class/dmi/id/{f}"))).collect();
    let cpu_flag = read("/proc/cpuinfo").is_some_and(|info| {
        info.lines().any(|l| l.starts_with("flags") && l.split_whitespace().any(|f| f == "hypervisor"))
    });
    guest_from(&dmi, read("/sys/hypervisor/type").as_deref(), cpu_flag)
}

/// The judgement of [`guest`] on what it read: the firmware's names first (they say which),
/// then Xen's sysfs, then the CPU's flag.
pub fn guest_from(dmi: &[String], hypervisor_type: Option<&str>, cpu_flag: bool) -> Option<String> {
    let named = dmi.iter().find(|s| VIRTUAL_MACHINES.iter().any(|v| contains_word(s, v)));
    if let Some(name) = named {
        return Some(format!("the firmware says {name}"));
    }
    if let Some(kind) = hypervisor_type {
        return Some(format!("the kernel runs under {kind}"));
    }
    cpu_flag.then(|| "the CPU reports a hypervisor".to_string())
}

fn contains_word(text: &str, word: &str) -> bool {
    text.to_ascii_lowercase().contains(&word.to_ascii_lowercase())
}

/// Whose disks `disks` are, on a machine that is a virtual machine when `guest` says why. One
/// virtual disk among them makes the whole virtual (its flushes pass through the host); else
/// one that cannot be told makes it unknown. `None` for no disk.
pub fn origin_in(sys: &Sysfs, guest: Option<&str>, disks: &[&str]) -> Option<DiskOrigin> {
    let each: Vec<DiskOrigin> = disks.iter().map(|d| judge(&DiskFacts::read(sys, d), guest)).collect();
    let first = |kind: fn(&DiskOrigin) -> bool| each.iter().find(|o| kind(o)).cloned();
    first(|o| matches!(o, DiskOrigin::Virtual { .. }))
        .or_else(|| first(|o| matches!(o, DiskOrigin::Unknown { .. })))
        .or_else(|| each.into_iter().next())
}

/// One disk's origin from its facts.
pub fn judge(disk: &DiskFacts, guest: Option<&str>) -> DiskOrigin {
    let name = &disk.name;
    if let Some((driver, platform)) =
        disk.drivers.iter().find_map(|d| VIRTUAL_DRIVERS.iter().find(|(v, _)| v == d).map(|(_, p)| (d, p)))
    {
        return DiskOrigin::Virtual {
            platform: platform.to_string(),
            evidence: format!("{name}'s driver is {driver}"),
        };
    }
    let label = disk.label();
    if let Some(local) = LOCAL_CLOUD_LABELS.iter().find(|l| contains_word(&label, l)) {
        return DiskOrigin::Local { evidence: format!("{name} calls itself {label}, a cloud's local SSD ({local})") };
    }
    if let Some((_, platform)) = VIRTUAL_LABELS.iter().find(|(l, _)| contains_word(&label, l)) {
        return DiskOrigin::Virtual {
            platform: platform.to_string(),
            evidence: format!("{name} calls itself {label}"),
        };
    }
    if name.starts_with("xvd") {
        return DiskOrigin::Virtual {
            platform: "Xen".into(),
            evidence: format!("{name} is named as Xen names its disks"),
        };
    }
    // A loop (or zram) device with no disk under it: a file in memory, or memory itself; the
    // flags it shows are the ones it was given, and the loop-device rule says what it is.
    if disk.drivers.is_empty() && (name.starts_with("loop") || name.starts_with("zram")) {
        return DiskOrigin::Local { evidence: format!("{name} is a {} device over no disk", kernel_device(name)) };
    }
    let drivers = if disk.drivers.is_empty() { "no driver".to_string() } else { disk.drivers.join(", ") };
    let what = if label.is_empty() { drivers } else { format!("{drivers}; {label}") };
    match guest {
        Some(why) => DiskOrigin::Unknown {
            evidence: format!(
                "this machine is a virtual machine ({why}) and {name} ({what}) names no hypervisor: it may be the \
                 host's disk or one passed through"
            ),
        },
        None => DiskOrigin::Local { evidence: format!("{name} ({what}) on a machine that is not virtual") },
    }
}

fn kernel_device(name: &str) -> &'static str {
    if name.starts_with("zram") { "zram" } else { "loop" }
}

/// The origin of the disks under a target, read from this machine.
pub fn origin(disks: &[&str]) -> Option<DiskOrigin> {
    origin_in(&Sysfs::default(), guest().as_deref(), disks)
}

/// The driver's name a sysfs device directory links to, if any.
pub(crate) fn driver_of(dir: &Path) -> Option<String> {
    Some(std::fs::read_link(dir.join("driver")).ok()?.file_name()?.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_sysfs::Fake;

    fn facts(name: &str, drivers: &[&str], vendor: Option<&str>, model: Option<&str>) -> DiskFacts {
        DiskFacts {
            name: name.into(),
            drivers: drivers.iter().map(|d| d.to_string()).collect(),
            vendor: vendor.map(Into::into),
            model: model.map(Into::into),
        }
    }

    fn platform(o: &DiskOrigin) -> Option<&str> {
        match o {
            DiskOrigin::Virtual { platform, .. } => Some(platform),
            _ => None,
        }
    }

    const KVM: Option<&str> = Some("the CPU reports a hypervisor");

    #[test]
    fn a_paravirtual_driver_or_a_cloud_label_makes_a_disk_virtual_on_any_machine() {
        let vda = judge(&facts("vda", &["virtio_blk", "virtio-pci"], Some("0x1af4"), None), None);
        assert_eq!(platform(&vda), Some("virtio"));
        assert_eq!(vda.evidence(), "vda's driver is virtio_blk");
        let scsi = judge(&facts("sda", &["sd", "virtio_scsi", "virtio-pci"], Some("QEMU"), Some("QEMU HARDDISK")), KVM);
        assert_eq!(scsi.evidence(), "sda's driver is virtio_scsi");
        let ebs = judge(&facts("nvme1n1", &["nvme"], None, Some("Amazon Elastic Block Store")), KVM);
        assert_eq!(platform(&ebs), Some("Amazon EBS"));
        for (label, expected) in [
            ("Msft Virtual Disk", "a hypervisor's virtual disk"),
            ("VMware Virtual S", "VMware"),
            ("Google PersistentDisk", "Google Persistent Disk"),
            ("VBOX HARDDISK", "VirtualBox"),
        ] {
            let o = judge(&facts("sdb", &["sd", "ahci"], None, Some(label)), None);
            assert_eq!(platform(&o), Some(expected), "{label}");
        }
        assert_eq!(platform(&judge(&facts("xvdf", &[], None, None), None)), Some("Xen"));
        assert_eq!(platform(&judge(&facts("sdc", &["sd", "hv_storvsc"], None, None), KVM)), Some("Hyper-V (Azure)"));
    }

    #[test]
    fn a_disk_that_names_no_hypervisor_is_local_on_bare_metal_and_unknown_on_a_virtual_machine() {
        let samsung = facts("nvme0n1", &["nvme"], None, Some("Samsung SSD 980"));
        assert!(matches!(judge(&samsung, None), DiskOrigin::Local { .. }));
        let passed = judge(&samsung, KVM);
        assert!(matches!(passed, DiskOrigin::Unknown { .. }), "{passed:?}");
        assert!(passed.evidence().contains("nvme0n1 (nvme; Samsung SSD 980) names no hypervisor"), "{passed:?}");
        // A cloud's local SSD is the machine's own, virtual machine or not.
        let store = facts("nvme1n1", &["nvme"], None, Some("Amazon EC2 NVMe Instance Storage"));
        assert!(matches!(judge(&store, KVM), DiskOrigin::Local { .. }));
        // A loop device over no disk (its file in memory): its own flags, even on a guest.
        let mem = judge(&facts("loop3", &[], None, None), KVM);
        assert_eq!(mem, DiskOrigin::Local { evidence: "loop3 is a loop device over no disk".into() });
    }

    #[test]
    fn the_firmware_names_a_virtual_machine_before_the_cpu_flag_does() {
        assert_eq!(
            guest_from(&["QEMU".into(), "Standard PC (Q35 + ICH9, 2009)".into()], None, true).unwrap(),
            "the firmware says QEMU"
        );
        assert_eq!(
            guest_from(&["Microsoft Corporation".into(), "Virtual Machine".into()], None, false).unwrap(),
            "the firmware says Virtual Machine"
        );
        assert_eq!(guest_from(&[], Some("xen"), false).unwrap(), "the kernel runs under xen");
        assert_eq!(guest_from(&[], None, true).unwrap(), "the CPU reports a hypervisor");
        assert_eq!(guest_from(&["Dell Inc.".into(), "PowerEdge R740".into()], None, false), None);
    }

    #[test]
    fn drivers_are_read_from_the_device_up_to_the_bus_and_one_virtual_disk_makes_the_stack_virtual() {
        let fake = Fake::new();
        fake.add("pci0000:00/0000:00:02.0/virtio1/block/vda", "254:0", false);
        fake.driver("pci0000:00/0000:00:02.0/virtio1", "virtio_blk");
        fake.driver("pci0000:00/0000:00:02.0", "virtio-pci");
        fake.device_link("pci0000:00/0000:00:02.0/virtio1/block/vda", "pci0000:00/0000:00:02.0/virtio1");
        fake.add("pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1", "259:0", false);
        fake.driver("pci0000:00/0000:00:04.0", "nvme");
        fake.device_link("pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1", "pci0000:00/0000:00:04.0/nvme/nvme0");
        fake.add("virtual/block/loop0", "7:0", false);
        let sys = fake.sysfs();
        assert_eq!(sys.drivers("vda"), ["virtio_blk", "virtio-pci"]);
        assert_eq!(sys.drivers("loop0"), Vec::<String>::new());
        let vda = origin_in(&sys, None, &["vda"]).unwrap();
        assert_eq!(vda.evidence(), "vda's driver is virtio_blk");
        let both = origin_in(&sys, None, &["nvme0n1", "vda"]).unwrap();
        assert!(matches!(both, DiskOrigin::Virtual { .. }), "{both:?}");
        assert!(matches!(origin_in(&sys, None, &["nvme0n1"]), Some(DiskOrigin::Local { .. })));
        assert!(matches!(origin_in(&sys, KVM, &["nvme0n1", "loop0"]), Some(DiskOrigin::Unknown { .. })));
        assert_eq!(origin_in(&sys, KVM, &[]), None);
    }
}
