//! `spindle record -o FILE.csv`: the counter sampler on its own, writing a perfmon-compatible
//! CSV one row per interval. Every row is flushed as it is written, so Ctrl-C (or a crash)
//! leaves a complete file.

use crate::args::RecordArgs;
use crate::plan;
use crate::usage::UsageError;
use crate::{Outcome, interrupt, output};
use anyhow::Context;
use spindle_counters::{ProcRoot, Snapshot, counter_paths, flush_counting, values, whole_disks};
use spindle_formats::perfmon::{csv_header, csv_row};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

pub fn run(args: &RecordArgs) -> anyhow::Result<Outcome> {
    let interval = plan::interval_of("--interval", &args.interval)?;
    let duration = plan::optional_duration_of("--duration", &args.duration, Duration::from_millis(1))?;
    let root = ProcRoot::default();
    let known = whole_disks(Path::new("/sys/block"));
    let devices = if args.devices.is_empty() { known.clone() } else { args.devices.clone() };
    if let Some(missing) = devices.iter().find(|d| !Path::new("/sys/class/block").join(d).exists()) {
        let why = format!("no such block device; disks here: {}", known.join(", "));
        return Err(UsageError::flag("--device", missing, why).into());
    }
    let shown = args.output.display();
    output::check_output(&args.output, &[])?;
    output::refuse_store(&args.output, &crate::store::files(None), "-o")?;
    let file = output::create_new_file(&args.output, args.force)?;
    let mut out = std::io::BufWriter::new(file);
    let host = spindle_host::environment(&[]).hostname;
    let paths = counter_paths(&devices);
    let header = writeln!(out, "{}", csv_header(&host, &paths)).and_then(|()| out.flush());
    if let Err(e) = header {
        // Not even the header fits (a full file system): leave no empty file behind.
        let _ = std::fs::remove_file(&args.output);
        return Err(UsageError::flag(
            "-o",
            shown.to_string(),
            format_args!("cannot write it ({e}); nothing was recorded"),
        )
        .into());
    }
    if !args.quiet {
        let until = duration.map_or("Ctrl-C".to_string(), |d| format!("{:?}", d));
        eprintln!("spindle: recording {} counters every {interval:?} to {shown} until {until}", paths.len());
    }

    interrupt::stop_flag(); // installs the Ctrl-C handler that ends the recording
    // How each disk counts its flushes, asked by flushing it through its node (32 flushes,
    // before the first row; where the node cannot be opened, not known).
    let nodes: Vec<PathBuf> = devices.iter().map(|d| Path::new("/dev").join(d)).collect();
    let counting = flush_counting(&devices, &nodes.iter().map(PathBuf::as_path).collect::<Vec<_>>());
    let start = Instant::now();
    let mut prev = Snapshot::take(&root, &devices);
    let mut rows = 0u64;
    for tick in 1u32.. {
        let due = start + interval * tick;
        // Sleep in short steps so Ctrl-C ends the recording at once.
        while Instant::now() < due && !interrupt::requested() {
            std::thread::sleep((due - Instant::now()).min(std::time::Duration::from_millis(50)));
        }
        if interrupt::requested() {
            break;
        }
        let cur = Snapshot::take(&root, &devices);
        let row = csv_row(&spindle_model::time::perfmon_utc(SystemTime::now()), &values(&prev, &cur, &counting));
        writeln!(out, "{row}").and_then(|_| out.flush()).with_context(|| format!("cannot write {shown}"))?;
        rows += 1;
        prev = cur;
        if duration.is_some_and(|d| start.elapsed() + interval / 2 >= d) {
            break;
        }
    }
    if !args.quiet {
        eprintln!("spindle: recorded {rows} samples to {shown}");
    }
    // Ctrl-C is how an open-ended recording ends: the file is complete, so it is a success.
    Ok(Outcome::Success)
}
