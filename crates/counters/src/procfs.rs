//! Parsers for the /proc files the sampler reads. Text in, numbers out; a malformed line is
//! skipped, never a panic (see ../shared/reference/counter-formats.md, section 2 and 3).

/// One /proc/diskstats line's cumulative counters (iostats.rst field numbers in comments).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskStat {
    pub reads: u64,           // 1
    pub sectors_read: u64,    // 3
    pub read_ms: u64,         // 4
    pub writes: u64,          // 5
    pub sectors_written: u64, // 7
    pub write_ms: u64,        // 8
    pub in_flight: u64,       // 9
    pub io_ms: u64,           // 10
    pub weighted_io_ms: u64,  // 11
    /// Flush requests completed (16), counted by kernels from 5.5 on; `None` before, so an
    /// old kernel's lines are never read as a device that flushed nothing.
    pub flushes: Option<u64>,
    /// Milliseconds spent on them (17), from the same kernels.
    pub flush_ms: Option<u64>,
}

/// `(device name, counters)` for every line with at least the 11 classic fields (old 4-field
/// partition lines and anything shorter are skipped, as sysstat does); the flush count where
/// the line has the 17 fields of kernels 5.5 and later.
pub fn parse_diskstats(text: &str) -> Vec<(String, DiskStat)> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 14 {
                return None;
            }
            let n = |i: usize| f[i + 2].parse::<u64>().ok();
            Some((
                f[2].to_string(),
                DiskStat {
                    reads: n(1)?,
                    sectors_read: n(3)?,
                    read_ms: n(4)?,
                    writes: n(5)?,
                    sectors_written: n(7)?,
                    write_ms: n(8)?,
                    in_flight: n(9)?,
                    io_ms: n(10)?,
                    weighted_io_ms: n(11)?,
                    flushes: f.get(16 + 2).and_then(|v| v.parse().ok()),
                    flush_ms: f.get(17 + 2).and_then(|v| v.parse().ok()),
                },
            ))
        })
        .collect()
}

/// The `cpu` line of /proc/stat, in USER_HZ ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTicks {
    pub user: u64,
    pub nice: u64,
    pub system: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
}

impl CpuTicks {
    /// The first eight columns; guest time is already inside user and nice.
    pub fn total(&self) -> u64 {
        [self.user, self.nice, self.system, self.idle, self.iowait, self.irq, self.softirq, self.steal]
            .into_iter()
            .fold(0u64, u64::saturating_add)
    }
}

pub fn parse_cpu(text: &str) -> Option<CpuTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).map_while(|x| x.parse().ok()).collect();
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    (v.len() >= 4).then(|| CpuTicks {
        user: at(0),
        nice: at(1),
        system: at(2),
        idle: at(3),
        iowait: at(4),
        irq: at(5),
        softirq: at(6),
        steal: at(7),
    })
}

/// The /proc/vmstat counters behind paging.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VmStat {
    pub pswpin: u64,
    pub pswpout: u64,
    pub pgmajfault: u64,
}

pub fn parse_vmstat(text: &str) -> Option<VmStat> {
    let mut vm = VmStat::default();
    let mut seen = 0;
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (Some(key), Some(Ok(value))) = (it.next(), it.next().map(str::parse::<u64>)) else { continue };
        let slot = match key {
            "pswpin" => &mut vm.pswpin,
            "pswpout" => &mut vm.pswpout,
            "pgmajfault" => &mut vm.pgmajfault,
            _ => continue,
        };
        *slot = value;
        seen += 1;
    }
    (seen > 0).then_some(vm)
}

/// `MemAvailable` from /proc/meminfo, in KiB.
pub fn parse_mem_available_kib(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The transactions a jbd2 journal (ext4's) has committed, from the first line of its
/// `/proc/fs/jbd2/<device>-<inode>/info`: `502 transactions (501 requested), each up to 2730
/// blocks`.
pub fn parse_jbd2_transactions(text: &str) -> Option<u64> {
    let mut words = text.lines().next()?.split_whitespace();
    let n = words.next()?.parse().ok()?;
    (words.next()? == "transactions").then_some(n)
}

/// The device a /proc/fs/jbd2 entry is the journal of: `loop0-8` and `dm-0-8` (a journal in
/// inode 8) are `loop0`'s and `dm-0`'s.
pub fn jbd2_device(entry: &str) -> Option<&str> {
    let (device, inode) = entry.rsplit_once('-')?;
    (inode.parse::<u64>().is_ok() && !device.is_empty()).then_some(device)
}

/// Cumulative stall time (µs) from /proc/pressure/io: `some` and, where present, `full`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pressure {
    pub some_us: u64,
    pub full_us: Option<u64>,
}

/// Whether `/proc/PID/stat` is a kernel thread's (PF_KTHREAD in its flags, the ninth field):
/// a loop device's worker reads and writes its backing file on behalf of whoever used the loop,
/// so its I/O is no other process's.
pub fn is_kernel_thread(stat: &str) -> bool {
    const PF_KTHREAD: u64 = 0x0020_0000;
    // The command name may hold spaces and parentheses: the fields follow its last ')'.
    let fields = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    fields.split_whitespace().nth(6).and_then(|f| f.parse::<u64>().ok()).is_some_and(|flags| flags & PF_KTHREAD != 0)
}

/// What one process read from and wrote to storage, from `/proc/PID/io` (`read_bytes`, and
/// `write_bytes` less `cancelled_write_bytes`: dirty pages truncated before they were written).
pub fn parse_process_io(text: &str) -> Option<(u64, u64)> {
    let field = |name: &str| -> Option<u64> {
        text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(':')?.trim().parse().ok())
    };
    let written = field("write_bytes")?.saturating_sub(field("cancelled_write_bytes").unwrap_or(0));
    Some((field("read_bytes")?, written))
}

pub fn parse_pressure(text: &str) -> Option<Pressure> {
    let total = |kind: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(kind))?;
        line.split_whitespace().find_map(|f| f.strip_prefix("total="))?.parse().ok()
    };
    Some(Pressure { some_us: total("some ")?, full_us: total("full ") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_threads_are_told_by_their_flags() {
        // A loop device's worker (flags 0x04208060) and a shell (0x00400100) whose name has a
        // space and a parenthesis.
        assert!(is_kernel_thread("95 (kworker/u4:2-loop0) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 40"));
        assert!(!is_kernel_thread("4321 (my (odd) sh) S 1 4321 4321 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 9"));
        assert!(!is_kernel_thread("garbage"));
    }

    #[test]
    fn a_process_io_file_gives_what_reached_storage() {
        let text = "rchar: 67108975\nwchar: 0\nsyscr: 66\nsyscw: 0\nread_bytes: 67108864\nwrite_bytes: 12288\n\
                    cancelled_write_bytes: 4096\n";
        assert_eq!(parse_process_io(text), Some((67_108_864, 8192)));
        assert_eq!(parse_process_io("rchar: 1\n"), None, "no read_bytes: no figure");
        assert_eq!(parse_process_io("read_bytes: 5\nwrite_bytes: 1\ncancelled_write_bytes: 9\n"), Some((5, 0)));
    }

    #[test]
    fn diskstats_from_sysstat_test_data() {
        let text = include_str!("../testdata/diskstats-sysstat-root6.txt");
        let disks = parse_diskstats(text);
        let sda = disks.iter().find(|(n, _)| n == "sda").map(|(_, d)| *d).unwrap();
        assert_eq!((sda.reads, sda.sectors_read, sda.read_ms), (49601, 3195498, 623970));
        assert_eq!((sda.writes, sda.sectors_written, sda.write_ms), (12180, 821088, 117109));
        assert_eq!((sda.in_flight, sda.io_ms, sda.weighted_io_ms), (0, 32862, 714408));
        assert!(disks.iter().any(|(n, _)| n == "cciss/c0d0"), "names with a slash are kept");
        assert!(parse_diskstats("8 1 sda1 51 0 4216 3107\n   garbage line\n\n").is_empty(), "short lines skipped");
        assert_eq!((sda.flushes, sda.flush_ms), (None, None), "a 4.18 kernel's 18 fields have no flush count");
    }

    #[test]
    fn diskstats_flushes_and_queue_from_a_5_5_kernel() {
        // Lines as a 6.18 kernel writes them (17 fields after the name): the discard fields,
        // then flush requests completed and the time spent flushing.
        let text = "   7       0 loop0 2820541 1 88520824 342848 321220 11989 50486080 230185 0 61272 580730 8 0 7807008 0 87818 7695\n \
                    253       0 vda 118 0 5926 31 98 12 1004 77 2 65 113 0 0 0 0 0 0\n";
        let disks = parse_diskstats(text);
        let loop0 = disks[0].1;
        assert_eq!((loop0.writes, loop0.sectors_written), (321220, 50486080));
        assert_eq!((loop0.weighted_io_ms, loop0.flushes, loop0.flush_ms), (580730, Some(87818), Some(7695)));
        assert_eq!((disks[1].1.in_flight, disks[1].1.flushes), (2, Some(0)));
    }

    #[test]
    fn cpu_vmstat_meminfo_pressure() {
        let cpu = parse_cpu("cpu  93044 0 39199 576369 44086 0 7142 8565 0 0\ncpu0 1 2 3 4\n").unwrap();
        assert_eq!((cpu.user, cpu.system, cpu.idle, cpu.iowait, cpu.steal), (93044, 39199, 576369, 44086, 8565));
        assert_eq!(cpu.total(), 93044 + 39199 + 576369 + 44086 + 7142 + 8565);
        assert_eq!(parse_cpu("cpu 1 2 3 4").unwrap().iowait, 0, "old kernels have four columns");
        assert!(parse_cpu("cpu0 1 2 3 4\n").is_none());

        let vm = parse_vmstat("pgpgin 260780063\npswpin 3\npswpout 4\npgmajfault 9817\nbad\n").unwrap();
        assert_eq!((vm.pswpin, vm.pswpout, vm.pgmajfault), (3, 4, 9817));
        assert!(parse_vmstat("nothing here").is_none());

        let mem = "MemTotal:       24683656 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(parse_mem_available_kib(mem), Some(20_000_000));

        let psi = "some avg10=76.26 avg60=73.89 avg300=51.64 total=433242602\nfull avg10=71.54 avg60=59.16 avg300=35.83 total=340888941\n";
        assert_eq!(parse_pressure(psi), Some(Pressure { some_us: 433242602, full_us: Some(340888941) }));
        assert_eq!(parse_pressure("some avg10=0.00 total=5\n"), Some(Pressure { some_us: 5, full_us: None }));
        assert!(parse_pressure("").is_none());
    }

    #[test]
    fn a_journals_commits_and_its_device() {
        let info =
            "502 transactions (501 requested), each up to 2730 blocks\naverage: \n  0ms waiting for transaction\n";
        assert_eq!(parse_jbd2_transactions(info), Some(502));
        assert_eq!(parse_jbd2_transactions("average: 5 transactions\n"), None);
        assert_eq!(parse_jbd2_transactions(""), None);
        assert_eq!(
            (jbd2_device("loop0-8"), jbd2_device("dm-0-8"), jbd2_device("vda1-12")),
            (Some("loop0"), Some("dm-0"), Some("vda1"))
        );
        assert_eq!((jbd2_device("loop0"), jbd2_device("-8"), jbd2_device("dm-x")), (None, None, None));
    }
}
