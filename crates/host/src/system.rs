//! The machine itself: hostname, OS, kernel, CPU and memory.
//!
//! Parsers are pure functions of file text so they are tested on literal samples; the readers
//! around them turn any unreadable file into an empty or zero value, never an error, because a
//! missing `/etc/os-release` must not stop a benchmark.

use std::ffi::CStr;

/// Value of `PRETTY_NAME` in os-release text (shell-style, optionally quoted), else `NAME`.
pub fn parse_os_release(text: &str) -> Option<String> {
    let get = |key: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.trim().split_once('=')?;
            (k.trim() == key).then(|| unquote(v.trim()))
        })
    };
    get("PRETTY_NAME").or_else(|| get("NAME")).filter(|s| !s.is_empty())
}

fn unquote(v: &str) -> String {
    let inner = ['"', '\''].iter().find_map(|q| v.strip_prefix(*q).and_then(|r| r.strip_suffix(*q))).unwrap_or(v);
    // os-release allows backslash escapes of ", $, `, \ inside double quotes.
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// CPU model from /proc/cpuinfo: `model name` on x86; ARM and others name it differently.
pub fn parse_cpu_model(text: &str) -> Option<String> {
    for key in ["model name", "Model", "Hardware", "cpu model", "cpu", "Processor"] {
        let found = text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key && !v.trim().is_empty()).then(|| v.trim().to_string())
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// `MemTotal` from /proc/meminfo, in bytes (the file says kB, meaning KiB).
pub fn parse_mem_total(text: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix("MemTotal:")?;
        let mut parts = rest.split_whitespace();
        let n: u64 = parts.next()?.parse().ok()?;
        let mult = match parts.next() {
            None => 1,
            Some(u) if u.eq_ignore_ascii_case("kb") => 1024,
            Some(_) => return None,
        };
        n.checked_mul(mult)
    })
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

pub fn os() -> String {
    read("/etc/os-release")
        .or_else(|| read("/usr/lib/os-release"))
        .and_then(|t| parse_os_release(&t))
        .unwrap_or_default()
}

pub fn cpu_model() -> String {
    read("/proc/cpuinfo").and_then(|t| parse_cpu_model(&t)).unwrap_or_default()
}

pub fn memory_bytes() -> u64 {
    read("/proc/meminfo").and_then(|t| parse_mem_total(&t)).unwrap_or(0)
}

/// CPUs online, not just those this process may run on: the record describes the machine.
/// Falls back to the affinity-limited count, then 1.
pub fn logical_cpus() -> u32 {
    // SAFETY: sysconf has no preconditions; it returns -1 on error.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n >= 1 {
        return u32::try_from(n).unwrap_or(u32::MAX);
    }
    std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1)
}

fn uname() -> Option<libc::utsname> {
    // SAFETY: utsname is plain old data; all-zero is a valid value, and uname fills it.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable utsname.
    (unsafe { libc::uname(&mut u) } == 0).then_some(u)
}

/// Turns a fixed-size, NUL-terminated C char array into a String (lossy, never reading past it).
fn field(chars: &[libc::c_char]) -> String {
    let bytes: Vec<u8> = chars.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Kernel release and build version, as `uname -rv` prints them.
pub fn kernel() -> String {
    match uname() {
        Some(u) => format!("{} {}", field(&u.release), field(&u.version)).trim().to_string(),
        None => String::new(),
    }
}

pub fn hostname() -> String {
    let mut buf = [0 as libc::c_char; 256];
    // SAFETY: buf is writable for its full length, which is passed; the last byte stays 0 so
    // the result is NUL-terminated even if the name was truncated.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr(), buf.len() - 1) };
    if rc == 0 {
        // SAFETY: buf is NUL-terminated (see above) and lives for this call.
        let s = unsafe { CStr::from_ptr(buf.as_ptr()) };
        return s.to_string_lossy().into_owned();
    }
    uname().map(|u| field(&u.nodename)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_release() {
        let t = "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n";
        assert_eq!(parse_os_release(t).as_deref(), Some("Debian GNU/Linux 12 (bookworm)"));
        assert_eq!(parse_os_release("NAME=Alpine\n").as_deref(), Some("Alpine"));
        assert_eq!(parse_os_release("PRETTY_NAME='Fedora \\\"x\\\"'\n").as_deref(), Some("Fedora \"x\""));
        assert_eq!(parse_os_release("# comment\n\n").as_deref(), None);
        assert_eq!(parse_os_release("PRETTY_NAME=\"\n").as_deref(), Some("\""));
    }

    #[test]
    fn cpuinfo() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel\t\t: 1\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(parse_cpu_model(x86).as_deref(), Some("AMD EPYC 7B13"));
        let arm = "processor\t: 0\nBogoMIPS\t: 108.00\n\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(parse_cpu_model(arm).as_deref(), Some("Raspberry Pi 4 Model B Rev 1.4"));
        assert_eq!(parse_cpu_model("model name\t:\n"), None);
        assert_eq!(parse_cpu_model(""), None);
    }

    #[test]
    fn meminfo() {
        assert_eq!(parse_mem_total("MemTotal:       24683656 kB\nMemFree: 1 kB\n"), Some(24683656 * 1024));
        assert_eq!(parse_mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(parse_mem_total("MemTotal: x kB\n"), None);
        assert_eq!(parse_mem_total("MemTotal: 99999999999999999999 kB\n"), None);
    }

    #[test]
    fn this_machine() {
        assert!(logical_cpus() >= 1);
        assert!(memory_bytes() > 0);
        assert!(!kernel().is_empty());
        assert!(!hostname().is_empty());
    }
}

/// How many more threads this process can start, and what limits it (`None` when nothing
/// could be read). Each thread takes about four memory mappings (its stack and guard page, its
/// signal stack and guard page), and a process that runs out of mappings while a thread starts
/// is aborted by the runtime, not given an error: so the limit is asked before, not found.
pub fn thread_room() -> Option<(u64, String)> {
    let number = |path: &str| read(path).and_then(|t| t.trim().parse::<u64>().ok());
    let maps_in_use = read("/proc/self/maps").map(|t| t.lines().count() as u64).unwrap_or(0);
    let threads_in_use = read("/proc/self/status")
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("Threads:").and_then(|v| v.trim().parse().ok())))
        .unwrap_or(1);
    let mut limits = Vec::new();
    if let Some(max) = number("/proc/sys/vm/max_map_count") {
        limits.push((max.saturating_sub(maps_in_use) / MAPPINGS_PER_THREAD, format!("vm.max_map_count {max}")));
    }
    if let Some(max) = number("/proc/sys/kernel/threads-max") {
        limits.push((max.saturating_sub(threads_in_use), format!("kernel.threads-max {max}")));
    }
    thread_limit(limits)
}

const MAPPINGS_PER_THREAD: u64 = 4;
/// Threads kept free for the run's own (its clock, counters, output) and the libraries'.
const THREAD_MARGIN: u64 = 64;

/// The tightest of the limits, less a margin.
fn thread_limit(limits: Vec<(u64, String)>) -> Option<(u64, String)> {
    limits.into_iter().min_by_key(|(n, _)| *n).map(|(n, why)| (n.saturating_sub(THREAD_MARGIN), why))
}

#[cfg(test)]
mod thread_tests {
    use super::*;

    #[test]
    fn the_tightest_limit_less_the_margin_is_the_room() {
        let limits = vec![(16_000, "vm.max_map_count 65530".into()), (190_000, "kernel.threads-max 192729".into())];
        assert_eq!(thread_limit(limits), Some((16_000 - THREAD_MARGIN, "vm.max_map_count 65530".into())));
        assert_eq!(thread_limit(vec![(10, "x".into())]), Some((0, "x".into())));
        assert_eq!(thread_limit(Vec::new()), None);
    }

    #[test]
    fn this_machine_has_room_for_some_threads() {
        let (room, why) = thread_room().expect("Linux has /proc");
        assert!(room > 100, "{room} ({why})");
    }
}
