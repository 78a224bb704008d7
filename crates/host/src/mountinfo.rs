//! Parsing `/proc/self/mountinfo` and finding the mount that holds a path.
//!
//! mountinfo (not `/proc/mounts`) is used because it carries the st_dev `major:minor` of each
//! mount, which is what ties a file's `stat` to its filesystem and block device, and because it
//! separates per-mount options from superblock options.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

/// One line of mountinfo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    pub mount_point: PathBuf,
    pub fs_type: String,
    /// Per-mount options (`rw,relatime`).
    pub options: String,
    /// What was mounted: a device path (`/dev/vda1`), or a name (`tmpfs`, `overlay`).
    pub source: String,
    /// st_dev of files on this mount; major 0 means no block device (tmpfs, overlay, btrfs...).
    pub major: u32,
    pub minor: u32,
    /// Options of the filesystem itself (`rw,discard,data=ordered`), shared by all its mounts.
    pub super_options: String,
    /// The directory of the filesystem that is mounted here (`/` unless a bind mount).
    pub root: PathBuf,
}

impl Mount {
    /// Per-mount and superblock options in one list, without repeats, in order of appearance:
    /// both matter to I/O (`noatime` is per-mount, `discard` or `data=journal` per-superblock).
    pub fn all_options(&self) -> String {
        let mut seen: Vec<&str> = Vec::new();
        for opt in self.options.split(',').chain(self.super_options.split(',')) {
            if !opt.is_empty() && !seen.contains(&opt) {
                seen.push(opt);
            }
        }
        seen.join(",")
    }
}

/// Parses mountinfo text. Malformed lines are skipped rather than failing the whole table,
/// because one odd line (a future kernel's extra field) must not hide every mount.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines().filter_map(parse_line).collect()
}

/// `36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue`
fn parse_line(line: &str) -> Option<Mount> {
    let fields: Vec<&str> = line.split(' ').filter(|f| !f.is_empty()).collect();
    // Optional fields (`shared:1`, `master:2`, ...) vary in number; a lone "-" ends them.
    let sep = fields.iter().position(|f| *f == "-")?;
    if sep < 6 || fields.len() < sep + 3 {
        return None;
    }
    let (major, minor) = parse_dev(fields[2])?;
    Some(Mount {
        root: PathBuf::from(OsString::from_vec(unescape(fields[3]))),
        mount_point: PathBuf::from(OsString::from_vec(unescape(fields[4]))),
        options: fields[5].to_string(),
        major,
        minor,
        fs_type: lossy(fields[sep + 1]),
        source: lossy(fields[sep + 2]),
        super_options: fields.get(sep + 3).map(|s| lossy(s)).unwrap_or_default(),
    })
}

fn lossy(field: &str) -> String {
    String::from_utf8_lossy(&unescape(field)).into_owned()
}

/// `"8:1"` -> `(8, 1)`.
pub(crate) fn parse_dev(s: &str) -> Option<(u32, u32)> {
    let (maj, min) = s.trim().split_once(':')?;
    Some((maj.parse().ok()?, min.parse().ok()?))
}

/// Undoes the kernel's octal escaping of space, tab, newline and backslash (`\040`, `\011`,
/// `\012`, `\134`). Any `\ooo` is decoded; a backslash not followed by three octal digits is kept.
pub fn unescape(field: &str) -> Vec<u8> {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() {
            let digits = &b[i + 1..i + 4];
            if digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                let v = digits.iter().fold(0u32, |acc, d| acc * 8 + u32::from(d - b'0'));
                if let Ok(byte) = u8::try_from(v) {
                    out.push(byte);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

/// The mount holding `canonical` (an absolute path without symlinks or `..`): the longest mount
/// point that is a component-wise prefix of it. Among equal mount points the last line wins,
/// because mountinfo lists mounts in order and a later mount on the same point hides earlier ones.
pub fn mount_containing<'a>(mounts: &'a [Mount], canonical: &Path) -> Option<&'a Mount> {
    let mut best: Option<&Mount> = None;
    for m in mounts {
        if canonical.starts_with(&m.mount_point) {
            let longer = best.is_none_or(|b| m.mount_point.as_os_str().len() >= b.mount_point.as_os_str().len());
            if longer {
                best = Some(m);
            }
        }
    }
    best
}

/// The mount table of this process; empty if it cannot be read (e.g. no /proc).
pub fn read_mounts() -> Vec<Mount> {
    std::fs::read_to_string("/proc/self/mountinfo").map(|t| parse_mountinfo(&t)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict
36 27 8:1 /data /mnt/my\\040disk rw,noatime shared:1 master:2 - ext4 /dev/sda1 rw,errors=remount-ro
37 27 0:40 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw,size=1024k
38 27 0:41 / /tmp rw - tmpfs tmpfs2 rw
39 27 0:42 / /var/lib/docker/overlay2/x/merged rw - overlay overlay rw,lowerdir=/a:/b
this line is garbage
40 27 0:43 / /weird\\134name\\011tab rw - xfs /dev/mapper/vg\\040x rw
";

    #[test]
    fn parses_fields_and_optional_fields() {
        let m = parse_mountinfo(SAMPLE);
        assert_eq!(m.len(), 7, "garbage line skipped: {m:#?}");
        let root = &m[1];
        assert_eq!(root.mount_point, PathBuf::from("/"));
        assert_eq!((root.major, root.minor), (254, 0));
        assert_eq!(root.fs_type, "ext4");
        assert_eq!(root.source, "/dev/vda");
        assert_eq!(root.options, "rw,relatime");
        assert_eq!(root.super_options, "rw,discard,resv_strict");
        assert_eq!(root.all_options(), "rw,relatime,discard,resv_strict");

        let disk = &m[2];
        assert_eq!(disk.mount_point, PathBuf::from("/mnt/my disk"));
        assert_eq!(disk.root, PathBuf::from("/data"));
        assert_eq!((disk.major, disk.minor), (8, 1));
        assert_eq!(disk.fs_type, "ext4");
        assert_eq!(disk.source, "/dev/sda1");
        assert_eq!(disk.options, "rw,noatime");
    }

    #[test]
    fn decodes_octal_escapes() {
        let m = parse_mountinfo(SAMPLE);
        let weird = m.iter().find(|m| m.fs_type == "xfs").unwrap();
        assert_eq!(weird.mount_point, PathBuf::from("/weird\\name\ttab"));
        assert_eq!(weird.source, "/dev/mapper/vg x");
        assert_eq!(unescape("a\\012b"), b"a\nb");
        // Not an escape: kept as is, and no panic at the end of the string.
        assert_eq!(unescape("a\\9zz"), b"a\\9zz");
        assert_eq!(unescape("end\\04"), b"end\\04");
        assert_eq!(unescape("\\"), b"\\");
        assert_eq!(unescape("\\777"), b"\\777", "out of byte range: kept");
    }

    #[test]
    fn longest_prefix_and_last_overmount_win() {
        let m = parse_mountinfo(SAMPLE);
        let at = |p: &str| mount_containing(&m, Path::new(p)).map(|m| m.source.clone());
        assert_eq!(at("/etc/passwd").as_deref(), Some("/dev/vda"));
        assert_eq!(at("/").as_deref(), Some("/dev/vda"));
        assert_eq!(at("/mnt/my disk/f").as_deref(), Some("/dev/sda1"));
        // Component-wise: "/mnt/my diskette" is not under "/mnt/my disk".
        assert_eq!(at("/mnt/my diskette").as_deref(), Some("/dev/vda"));
        // /tmp is mounted twice; the later mount hides the earlier.
        assert_eq!(at("/tmp/x").as_deref(), Some("tmpfs2"));
        assert_eq!(mount_containing(&[], Path::new("/x")), None);
    }

    #[test]
    fn no_panic_on_odd_input() {
        for text in ["", "-", "1 2 3 4 5 6 -", "1 2 x:y / / rw - a b c", "1 2 3:4 / / rw - ext4", "\\\\\\"] {
            let _ = parse_mountinfo(text);
        }
        assert_eq!(parse_mountinfo("1 2 3:4 / / rw - ext4 src").len(), 1, "missing super options is tolerated");
        assert_eq!(parse_dev("259:3"), Some((259, 3)));
        assert_eq!(parse_dev("x"), None);
    }

    #[test]
    fn reads_this_machine() {
        let m = read_mounts();
        assert!(mount_containing(&m, Path::new("/")).is_some(), "no root mount in {m:#?}");
    }
}
