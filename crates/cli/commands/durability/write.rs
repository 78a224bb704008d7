//! `spindle durability write`: the writer. The log is opened before the target is touched,
//! and a new log file is removed again if the target cannot be made ready, so a mistake
//! leaves nothing behind.

use super::LogPlace;
use crate::args::DurabilityWriteArgs;
use crate::usage::UsageError;
use crate::{Outcome, interrupt, output, progress};
use spindle_analysis::findings::flush_hints::cache_hints;
use spindle_io::durability::log::Header;
use spindle_io::durability::write::{self, WriteOptions, WriteSummary};
use spindle_io::target::{PrepareOptions, PreparedTarget, TargetError};
use spindle_model::record::DeviceInfo;
use spindle_model::units::{format_latency_ns, format_size, grouped, parse_duration_ns, parse_size};
use std::io::{IsTerminal, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A new test file's size when `--size` is not given.
const DEFAULT_SIZE: u64 = 1 << 30;
/// The largest write: a log-sized write is at most a few MiB.
const MAX_BLOCK: u64 = 64 << 20;

pub fn run(args: &DurabilityWriteArgs) -> anyhow::Result<Outcome> {
    let plan = Plan::of(args)?;
    crate::output::refuse_store(&args.target.path, &crate::store::files(None), "--target")?;
    let place = LogPlace::of(&args.log);
    let shown_target = args.target.path.display().to_string();
    let mut log = open_log(&place, &args.log, &args.target.path)?;
    let stop = interrupt::stop_flag();
    let prepared = match prepare(args, plan.size, &shown_target, stop) {
        Ok(p) => p,
        Err(e) => {
            log.discard();
            return Err(e.into());
        }
    };
    for warning in &prepared.warnings {
        progress::warn(false, warning);
    }
    let header = Header {
        run: spindle_io::run::new_verify_id(),
        block: plan.block,
        size: prepared.size - prepared.size % plan.block,
        target: shown_target.clone(),
    };
    log.say(header.line().as_bytes()).map_err(|e| log_failed(&args.log, e))?;
    let verify_cmd = format!("spindle durability verify -t {shown_target} --log {}", args.log);
    announce(args, &header, plan.duration, &verify_cmd);
    let write_options =
        WriteOptions { writes_per_flush: args.writes_per_flush, duration: plan.duration, direct: !args.buffered };
    let live = std::io::stderr().is_terminal();
    let summary = write::run(&args.target.path, &header, &write_options, &mut log, stop, &mut |s| {
        if live {
            eprint!("\r\x1b[2K{}", progress_line(s));
            let _ = std::io::stderr().flush();
        }
    });
    if live {
        eprint!("\r\x1b[2K");
    }
    // The file stays for verify, whatever happened.
    let keep = prepared.finish(true);
    let summary = summary?;
    keep.map_err(|e| anyhow::anyhow!("{shown_target}: {e}"))?;
    let device = spindle_host::device_info(&args.target.path);
    output::write_report(summary_text(&header, &summary, &device, &verify_cmd).as_bytes())?;
    // Ctrl-C is how a run without a duration ends; with one, it cuts the run short.
    Ok(if interrupt::requested() && plan.duration.is_some() { Outcome::Interrupted } else { Outcome::Success })
}

/// The writer's flags, checked before anything is opened.
struct Plan {
    block: u64,
    /// The test file's size; 0 for a device, used whole.
    size: u64,
    duration: Option<Duration>,
}

impl Plan {
    fn of(args: &DurabilityWriteArgs) -> Result<Plan, UsageError> {
        let block = parse_size(&args.block).map_err(|e| UsageError::flag("--block", &args.block, e))?;
        if block == 0 || block % 512 != 0 || block > MAX_BLOCK {
            return Err(UsageError::flag("--block", &args.block, "must be a multiple of 512 bytes, at most 64M"));
        }
        let size = match &args.size {
            Some(text) => parse_size(text).map_err(|e| UsageError::flag("--size", text, e))?,
            None => 0,
        };
        if args.size.is_some() && size < block {
            return Err(UsageError::flag("--size", args.size.as_deref().unwrap_or(""), "smaller than one --block"));
        }
        let duration = match &args.duration {
            Some(text) => {
                let ns = parse_duration_ns(text).map_err(|e| UsageError::flag("--duration", text, e))?;
                Some(Duration::from_nanos(ns))
            }
            None => None,
        };
        if args.writes_per_flush == 0 {
            return Err(UsageError::flag("--writes-per-flush", "0", "must be at least 1"));
        }
        let is_device = std::fs::metadata(&args.target.path).is_ok_and(|m| m.file_type().is_block_device());
        let size = if !is_device && size == 0 { DEFAULT_SIZE } else { size };
        Ok(Plan { block, size, duration })
    }
}

/// The target made ready to write (a new test file filled, with the fill's progress shown).
fn prepare(
    args: &DurabilityWriteArgs,
    size: u64,
    shown_target: &str,
    stop: &AtomicBool,
) -> Result<PreparedTarget, TargetError> {
    let options =
        PrepareOptions { force: args.force, allow_destroy: args.allow_destroy, writes: true, direct: !args.buffered };
    let display = progress::Display::new(false);
    let prepared = spindle_io::target::prepare(
        &args.target.path,
        size,
        &options,
        &mut |d, t| display.fill(shown_target, d, t),
        stop,
    );
    display.finish_line();
    prepared
}

/// What is about to happen, and the command that checks it after the crash.
fn announce(args: &DurabilityWriteArgs, header: &Header, duration: Option<Duration>, verify_cmd: &str) {
    let flushes = match args.writes_per_flush {
        1 => "a flush after every write".to_string(),
        n => format!("a flush after every {n} writes"),
    };
    eprintln!(
        "spindle: run {:016x}: writing {} blocks to {} ({}), {flushes}, telling {}.\n\
         spindle: cut the power or kill spindle at any time{}; then, once the machine is back:\n  {verify_cmd}",
        header.run,
        format_size(header.block),
        header.target,
        format_size(header.size),
        args.log,
        if duration.is_some() { "" } else { " (Ctrl-C ends it cleanly)" },
    );
}

/// The run's figures, the hints its flush latency gives about the device's cache, and how to
/// check it.
fn summary_text(header: &Header, summary: &WriteSummary, device: &DeviceInfo, verify_cmd: &str) -> String {
    let mut out = format!(
        "run {:016x}: {}\nflush: median {}, p99 {}, max {}; write: median {}{}\n",
        header.run,
        progress_line(summary),
        latency(summary.flush_ns.percentile(50.0)),
        latency(summary.flush_ns.percentile(99.0)),
        latency(summary.flush_ns.max()),
        latency(summary.write_ns.percentile(50.0)),
        if summary.direct { "" } else { " (through the page cache)" },
    );
    for hint in cache_hints(device, summary.flush_ns.percentile(50.0)) {
        out.push_str(&format!("hint: {hint}\n"));
    }
    out.push_str(&format!("to check after a crash: {verify_cmd}\n"));
    out
}

fn latency(ns: u64) -> String {
    format_latency_ns(ns as f64)
}

fn progress_line(s: &WriteSummary) -> String {
    let secs = s.elapsed.as_secs_f64().max(1e-9);
    format!(
        "{:.0}s: {} writes acknowledged, {} flushes/s, flush median {}",
        s.elapsed.as_secs_f64(),
        grouped(s.acknowledged),
        grouped((s.flush_ns.count() as f64 / secs).round() as u64),
        latency(s.flush_ns.percentile(50.0))
    )
}

fn log_failed(log: &str, e: std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("--log {log}: cannot write to it: {e}")
}

/// The open log: a connection to a listener, or a new file (removed again by `discard`).
enum Log {
    Listener(std::net::TcpStream),
    File(std::fs::File, std::path::PathBuf),
}

impl Log {
    fn say(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.write_all(bytes)
    }

    /// Removes a log file that never got a write (the target could not be made ready).
    fn discard(self) {
        if let Log::File(_, path) = self {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Log::Listener(s) => s.write(buf),
            Log::File(f, _) => f.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Log::Listener(s) => s.flush(),
            Log::File(f, _) => f.sync_data(),
        }
    }
}

/// Opens the log: connects to the listener, or creates a new file (never over an existing
/// one) and warns when it shares the target's file system, which a power cut takes down too.
fn open_log(place: &LogPlace, text: &str, target: &Path) -> Result<Log, UsageError> {
    match place {
        LogPlace::Listener(address) => super::connect(address).map(Log::Listener).map_err(|e| {
            UsageError::flag(
                "--log",
                text,
                format_args!("cannot reach a listener there ({e}); start one with `spindle durability listen`"),
            )
        }),
        LogPlace::File(path) => {
            let file = std::fs::File::options().write(true).create_new(true).open(path).map_err(|e| {
                let why = match e.kind() {
                    std::io::ErrorKind::AlreadyExists => {
                        "exists: a log is never overwritten; name a new file".to_string()
                    }
                    _ => format!("cannot create it: {e}"),
                };
                UsageError::flag("--log", text, why)
            })?;
            if same_volume(path, target) {
                progress::warn(
                    false,
                    &format!(
                        "--log {text} is on the target's volume: a power cut takes both, so it serves only for a killed \
                         process; for a power cut keep it on another volume or machine (`spindle durability listen`)"
                    ),
                );
            }
            Ok(Log::File(file, path.to_path_buf()))
        }
    }
}

/// Whether the log file and the target live on one device (for a device target, whether the
/// log's file system is on it).
fn same_volume(log: &Path, target: &Path) -> bool {
    let Ok(log_dev) = std::fs::metadata(log).map(|m| m.dev()) else { return false };
    let target_dev = match std::fs::metadata(target) {
        Ok(m) if m.file_type().is_block_device() => m.rdev(),
        Ok(m) => m.dev(),
        // Not created yet: its directory's device.
        Err(_) => match target.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p }) {
            Some(dir) => match std::fs::metadata(dir) {
                Ok(m) => m.dev(),
                Err(_) => return false,
            },
            None => return false,
        },
    };
    log_dev == target_dev
}
