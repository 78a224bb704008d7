//! `spindle verify`: a whole file or device written under `--verify`, checked sector by sector
//! from its stamps and against the write state the run saved (the run's id from the mark it
//! left on a file, from its state, or `--id`). Without the state, it says which kinds of
//! fault it could not look for rather than "no faults".

use crate::args::VerifyArgs;
use crate::flags::parse_id;
use crate::usage::UsageError;
use crate::{Outcome, output};
use spindle_io::verify::scan::{self, ScanError, ScanReport};
use spindle_io::verify::state::{self, State};
use spindle_model::units::format_size;
use spindle_model::verify::FindingKind;
use std::path::Path;

/// What a check without the run's state cannot look for.
const UNJUDGED_WITHOUT_STATE: [FindingKind; 2] = [FindingKind::Lost, FindingKind::Stale];

pub fn run(args: &VerifyArgs) -> anyhow::Result<Outcome> {
    let shown = args.target.path.display().to_string();
    let id = args.id.as_deref().map(parse_id).transpose()?;
    let target_error = |e: ScanError| -> anyhow::Error {
        match e {
            ScanError::Io(..) => e.into(),
            other => {
                UsageError::flag("--target", &shown, other.to_string().split_once(": ").map_or("", |(_, why)| why))
                    .into()
            }
        }
    };
    // Before anything is read: a character device or a pipe might never end.
    scan::size_of(&args.target.path).map_err(target_error)?;
    let state_path = state::path_for(&args.target.path);
    let (mark, saved, ignored) = match scan::run_and_state(&args.target.path, id, State::load(&state_path)?) {
        Ok(found) => found,
        Err(ScanError::NotVerified(_)) => {
            return Err(UsageError::flag(
                "--target",
                &shown,
                format_args!(
                    "not written under --verify: it has no verification mark, and there is no run state at {}; give the run's id with --id, or write it with `spindle io --verify --keep-file`",
                    state_path.display()
                ),
            )
            .into());
        }
        Err(e) => return Err(target_error(e)),
    };
    let report = scan::scan(&args.target.path, mark, saved.as_ref()).map_err(target_error)?;
    let unjudged: &[FindingKind] = if saved.is_some() { &[] } else { &UNJUDGED_WITHOUT_STATE };
    // Without the state, finding none of the run's writes says nothing good: all of them may
    // be lost.
    let nothing_found = saved.is_none() && report.run_sectors == 0 && report.summary.faulty_sectors() == 0;
    if args.print.json {
        let json = serde_json::json!({
            "target": args.target.path,
            "bytes": report.bytes,
            "run_sectors": report.run_sectors,
            "other_run_sectors": report.other_run_sectors,
            "unstamped_sectors": report.unstamped_sectors,
            "written": report.written,
            "state": saved.as_ref().map(|s| serde_json::json!({
                "path": state_path,
                "complete": s.complete,
                "next_generation": s.next,
                "saved_at": spindle_model::time::rfc3339_utc(s.saved_at),
                "newer_than_state_sectors": report.newer_than_state,
            })),
            "not_judged": unjudged.iter().map(|k| k.name()).collect::<Vec<_>>(),
            "verify": report.summary,
        });
        output::write_stdout(format!("{}\n", serde_json::to_string_pretty(&json)?).as_bytes())?;
    } else {
        let out = text(&shown, &report, saved.as_ref(), &state_path, ignored, unjudged);
        output::write_report(out.as_bytes())?;
    }
    Ok(if report.summary.faulty_sectors() > 0 || nothing_found { Outcome::OperationsFailed } else { Outcome::Success })
}

/// The report in words: what was read, what it was judged against, the verdict.
fn text(
    shown: &str,
    report: &ScanReport,
    saved: Option<&State>,
    state_path: &Path,
    ignored: Option<u64>,
    unjudged: &[FindingKind],
) -> String {
    let summary = &report.summary;
    let mut out = format!(
        "{shown}: {} read; {} sectors of the run, {} of other verified runs, {} never written under --verify\n",
        format_size(report.bytes),
        report.run_sectors,
        report.other_run_sectors,
        report.unstamped_sectors
    );
    let path = state_path.display();
    match saved {
        Some(s) if s.complete => out.push_str(&format!("judged against the run's write state {path}, saved at its end\n")),
        Some(s) => out.push_str(&format!(
            "judged against the run's write state {path}, last saved at {} before the run was cut off (killed, or the machine went down): {} sectors hold writes made after that save and are not judged, and a write completed after it and lost since cannot be found\n",
            spindle_model::time::rfc3339_utc(s.saved_at),
            report.newer_than_state
        )),
        None => {
            if let Some(other) = ignored {
                out.push_str(&format!("{path} is the write state of run {other:016x}, not of this one: not used\n"));
            }
            out.push_str(&format!(
                "without the run's write state ({path}), lost and stale writes cannot be judged: only corrupt, misdirected and torn sectors among those the run's stamps name\n"
            ));
        }
    }
    spindle_report::render_verification_judging(&mut out, summary, unjudged);
    if saved.is_none() && report.run_sectors == 0 && summary.faulty_sectors() == 0 {
        out.push_str(&format!(
            "none of run {}'s writes are on {shown}: it wrote nothing here, or all it wrote was lost; without its state that cannot be told\n",
            summary.id
        ));
    }
    if saved.is_none() && report.written.is_none() && summary.faulty_sectors() > 0 {
        out.push_str(
            "the run did not end normally (killed, or the machine went down): its last writes were never acknowledged, and may be torn\n",
        );
    }
    out
}
