//! Any text as /proc/diskstats, /proc/stat, /proc/vmstat, /proc/meminfo and
//! /proc/pressure/io: no panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle_counters::procfs;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = procfs::parse_diskstats(&text);
    let _ = procfs::parse_cpu(&text).map(|c| c.total());
    let _ = procfs::parse_vmstat(&text);
    let _ = procfs::parse_mem_available_kib(&text);
    let _ = procfs::parse_pressure(&text);
});
