//! `spindle durability verify`: the target after the crash, against the writer's log. The log
//! must be of this target: its run's stamps must be there (a log of another run or target is
//! refused with exit 2, naming the mismatch, before anything is judged).

use super::LogPlace;
use crate::args::DurabilityVerifyArgs;
use crate::usage::UsageError;
use crate::{Outcome, output};
use spindle_io::durability::check::{self, CheckReport};
use spindle_io::durability::log::{self, Acknowledged};
use spindle_io::verify::scan;
use spindle_model::units::{format_size, grouped};
use std::io::{Read, Write};

/// The largest log read: about 30 bytes a write, so tens of millions of writes.
const MAX_LOG: u64 = 1 << 30;

pub fn run(args: &DurabilityVerifyArgs) -> anyhow::Result<Outcome> {
    let shown = args.target.path.display().to_string();
    let id = args.id.as_deref().map(crate::flags::parse_id).transpose()?;
    let have = spindle_io::target::size_of(&args.target.path).map_err(|e| UsageError::flag("--target", &shown, e))?;
    // The run the target says it holds (the mark a file keeps), when it says one.
    let marked = scan::run_of(&args.target.path, None).ok().map(|m| m.id);
    let text = match LogPlace::of(&args.log) {
        // Its size is known: a file larger than any log is refused before it is read.
        LogPlace::File(path) => {
            crate::input_file::read_limited(&path, MAX_LOG, "durability log").map_err(|e| match e {
                UsageError::File { why, .. } => UsageError::flag("--log", &args.log, why),
                other => other,
            })?
        }
        LogPlace::Listener(address) => {
            let Some(run) = id.or(marked) else {
                return Err(UsageError::flag(
                    "--id",
                    "",
                    format_args!("{shown} keeps no run id: give the run's id (the writer printed it) to fetch its log"),
                )
                .into());
            };
            fetch(&address, run, &args.log)?
        }
    };
    let log = log::parse(&text).map_err(|e| UsageError::flag("--log", &args.log, e))?;
    let run = log.header.run;
    if let Some(asked) = id.filter(|i| *i != run) {
        return Err(UsageError::flag(
            "--log",
            &args.log,
            format_args!("is the log of run {run:016x}, not of run {asked:016x}"),
        )
        .into());
    }
    if let Some(mark) = marked.filter(|m| *m != run) {
        return Err(UsageError::flag(
            "--log",
            &args.log,
            format_args!("is the log of run {run:016x}, but {shown} was last written by run {mark:016x}"),
        )
        .into());
    }
    if have < log.header.size {
        return Err(UsageError::flag(
            "--log",
            &args.log,
            format_args!(
                "is of a {} target ({}), but {shown} holds {}: it is the log of another target",
                format_size(log.header.size),
                log.header.target,
                format_size(have)
            ),
        )
        .into());
    }
    let report = check::check(&args.target.path, &log).map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
    if report.acked_slots > 0 && report.run_sectors == 0 {
        if let Some((other, _)) = report.other_runs.iter().max_by_key(|(_, n)| **n) {
            return Err(UsageError::flag(
                "--log",
                &args.log,
                format_args!("is the log of run {run:016x}, but {shown} holds writes of run {other:016x}, none of it"),
            )
            .into());
        }
    }
    if args.print.json {
        print_json(args, &log, &report)?;
    } else {
        print_text(&shown, &log, &report)?;
    }
    Ok(if report.summary.faulty_sectors() > 0 { Outcome::OperationsFailed } else { Outcome::Success })
}

/// A log from a listener, which has no length to check first: read one byte past the limit.
fn read_capped(stream: impl Read, shown: &str) -> Result<Vec<u8>, UsageError> {
    let mut text = Vec::new();
    stream
        .take(MAX_LOG + 1)
        .read_to_end(&mut text)
        .map_err(|e| UsageError::flag("--log", shown, format_args!("cannot read it: {e}")))?;
    if text.len() as u64 > MAX_LOG {
        return Err(UsageError::flag("--log", shown, "larger than 1 GiB: not a durability log"));
    }
    Ok(text)
}

/// Asks the listener for run `run`'s log.
fn fetch(address: &str, run: u64, shown: &str) -> Result<Vec<u8>, UsageError> {
    let mut stream = super::connect(address)
        .map_err(|e| UsageError::flag("--log", shown, format_args!("cannot reach a listener there: {e}")))?;
    stream
        .write_all(format!("fetch {run:016x}\n").as_bytes())
        .map_err(|e| UsageError::flag("--log", shown, format_args!("the listener went away: {e}")))?;
    let text = read_capped(stream, shown)?;
    if text.is_empty() {
        return Err(UsageError::flag(
            "--log",
            shown,
            format_args!("the listener there keeps no log of run {run:016x}"),
        ));
    }
    Ok(text)
}

fn writer_end(log: &Acknowledged) -> &'static str {
    if log.ended { "the writer ended on its own" } else { "the writer never ended: killed, crashed, or the power went" }
}

fn print_text(shown: &str, log: &Acknowledged, r: &CheckReport) -> anyhow::Result<()> {
    let mut out = format!(
        "{shown}: {} writes acknowledged over {} places, checked against the log of run {:016x} ({})\n",
        grouped(log.last_acked),
        grouped(r.acked_slots),
        log.header.run,
        writer_end(log)
    );
    spindle_report::render_verification(&mut out, &r.summary);
    if r.in_flight > 0 {
        out.push_str(&format!(
            "in flight when the writer stopped: {} write{} issued and never acknowledged, {} found whole (either is allowed: nothing was promised)\n",
            grouped(r.in_flight),
            if r.in_flight == 1 { "" } else { "s" },
            grouped(r.in_flight_landed)
        ));
    }
    if r.torn_in_flight > 0 {
        out.push_str(&format!(
            "{} sector{} half-written by a write in flight (allowed: an overwrite in progress promises nothing)\n",
            grouped(r.torn_in_flight),
            if r.torn_in_flight == 1 { "" } else { "s" }
        ));
    }
    let lost = r.acked_slots - r.kept_slots;
    if lost == 0 {
        out.push_str("every acknowledged write is there: the storage kept what its flushes promised\n");
    } else {
        out.push_str(&format!(
            "ACKNOWLEDGED WRITES LOST: {} of {} places do not hold the write a flush acknowledged. Something \
             answered the flush before the data was safe: a volatile write cache (not battery- or flash-backed), \
             or a layer that ignores flushes\n",
            grouped(lost),
            grouped(r.acked_slots)
        ));
    }
    if r.run_sectors == 0 && r.acked_slots > 0 {
        out.push_str(
            "the target holds none of the run's writes: everything was lost, or this is not the target the log is of\n",
        );
    }
    output::write_report(out.as_bytes())
}

fn print_json(args: &DurabilityVerifyArgs, log: &Acknowledged, r: &CheckReport) -> anyhow::Result<()> {
    let json = serde_json::json!({
        "target": args.target.path,
        "run": format!("{:016x}", log.header.run),
        "writer_ended": log.ended,
        "acknowledged_writes": log.last_acked,
        "acknowledged_places": r.acked_slots,
        "kept_places": r.kept_slots,
        "in_flight": r.in_flight,
        "in_flight_landed": r.in_flight_landed,
        "torn_in_flight_sectors": r.torn_in_flight,
        "verify": r.summary,
    });
    output::write_stdout(format!("{}\n", serde_json::to_string_pretty(&json)?).as_bytes())
}
