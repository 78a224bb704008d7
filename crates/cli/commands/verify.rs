//! `spindle verify`: a whole file written under `--verify`, checked sector by sector from its
//! stamps (the run's id from the mark it left, or `--id`).

use crate::args::VerifyArgs;
use crate::usage::UsageError;
use crate::{Outcome, output};
use spindle_io::verify::scan::{self, ScanError};
use spindle_model::units::format_size;

/// A run's verification id as `--id` gives it: hex, as reports print it.
pub fn parse_id(text: &str) -> Result<u64, UsageError> {
    u64::from_str_radix(text.trim().trim_start_matches("0x"), 16)
        .map_err(|_| UsageError::flag("--id", text, "not a run id (16 hex digits, as the run printed it)"))
}

pub fn run(args: &VerifyArgs) -> anyhow::Result<Outcome> {
    let shown = args.target.display().to_string();
    let id = args.id.as_deref().map(parse_id).transpose()?;
    let meta = std::fs::metadata(&args.target).map_err(|e| UsageError::flag("--target", &shown, e))?;
    if meta.is_dir() {
        return Err(UsageError::flag("--target", &shown, "a directory; give the file the run wrote").into());
    }
    let usage = |e: ScanError| -> anyhow::Error {
        match e {
            ScanError::NotVerified(_) | ScanError::EarlierFormat(_) => {
                UsageError::flag("--target", &shown, e.to_string().split_once(": ").map_or("", |(_, why)| why)).into()
            }
            other => other.into(),
        }
    };
    let mark = scan::run_of(&args.target, id).map_err(usage)?;
    let report = scan::scan(&args.target, mark).map_err(usage)?;
    let summary = &report.summary;
    if args.json {
        let json = serde_json::json!({
            "target": args.target,
            "bytes": report.bytes,
            "run_sectors": report.run_sectors,
            "other_run_sectors": report.other_run_sectors,
            "unstamped_sectors": report.unstamped_sectors,
            "written": report.written,
            "verify": summary,
        });
        output::write_stdout(format!("{}\n", serde_json::to_string_pretty(&json)?).as_bytes())?;
    } else {
        let mut out = format!(
            "{shown}: {} read; {} sectors of the run, {} of other verified runs, {} never written under --verify\n",
            format_size(report.bytes),
            report.run_sectors,
            report.other_run_sectors,
            report.unstamped_sectors
        );
        spindle_report::render_verification(&mut out, summary);
        if report.written.is_none() && summary.faulty_sectors() > 0 {
            out.push_str(
                "the run did not end normally (killed, or the machine went down): its last writes were never acknowledged, and may be torn\n",
            );
        }
        output::write_report(out.as_bytes())?;
    }
    Ok(if summary.faulty_sectors() > 0 { Outcome::OperationsFailed } else { Outcome::Success })
}
