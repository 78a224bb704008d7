//! `spindle import`: other tools' result files into the store. Every file is read and parsed
//! before anything is saved, and all runs are saved in one transaction: a file that breaks
//! anywhere imports nothing, and says where it broke.

use crate::Outcome;
use crate::args::ImportArgs;
use crate::output;
use crate::store;
use crate::usage::UsageError;
use sha2::{Digest, Sha256};
use spindle_model::RunRecord;
use spindle_store::{Placement, Store};
use std::fmt::Write as _;
use std::path::Path;

/// One file, read and parsed.
struct Parsed {
    shown: String,
    tool: &'static str,
    version: Option<String>,
    records: Vec<RunRecord>,
}

pub fn run(args: &ImportArgs) -> anyhow::Result<Outcome> {
    let labels = output::labels(&args.labels)?;
    let now = std::time::SystemTime::now();
    let mut parsed = Vec::with_capacity(args.files.len());
    let mut hashes: Vec<(String, String)> = Vec::new();
    for path in &args.files {
        let (file, sha) = parse_file(path, now)?;
        if let Some((first, _)) = hashes.iter().find(|(_, h)| *h == sha) {
            return Err(UsageError::file(path, format_args!("the same bytes as {first}, given twice")).into());
        }
        hashes.push((file.shown.clone(), sha));
        parsed.push(file);
    }
    let location = store::location(&args.store)?;
    let mut store = Store::open(&location)?;
    for file in &mut parsed {
        let foreign = file.tool != "spindle";
        for r in &mut file.records {
            r.labels.extend(labels.clone());
            // A spindle run keeps the command that measured it; a foreign one says it was
            // imported.
            if foreign {
                r.command_line = output::command_line();
            }
        }
    }
    let all: Vec<(&RunRecord, Placement)> =
        parsed.iter().flat_map(|f| f.records.iter().map(|r| (r, Placement::default()))).collect();
    // Whether a file is stored already is asked in the save's own transaction: another
    // spindle importing the same file at the same moment must not save it a second time.
    let already = |store: &Store| -> Result<Option<(usize, Vec<i64>)>, spindle_store::StoreError> {
        if args.again {
            return Ok(None);
        }
        for (i, ((_, sha), file)) in hashes.iter().zip(&parsed).enumerate() {
            let mut ids = store.imported_from(sha)?;
            if file.tool == "spindle" {
                for r in &file.records {
                    ids.extend(store.same_runs(r)?);
                }
            }
            if !ids.is_empty() {
                return Ok(Some((i, ids)));
            }
        }
        Ok(None)
    };
    let ids = match store.save_new(&all, already)? {
        Ok(ids) => ids,
        Err((i, ids)) => {
            let list: Vec<String> = ids.iter().map(i64::to_string).collect();
            let shown = &hashes[i].0;
            return Err(UsageError::file(
                &args.files[i],
                format_args!("already imported (runs {}); pass --again to import {shown} once more", list.join(", ")),
            )
            .into());
        }
    };
    if args.print.json {
        let records: Vec<RunRecord> = parsed.into_iter().flat_map(|f| f.records).collect();
        output::print(&records, &crate::args::OutputArgs { json: true, ..Default::default() })?;
    } else {
        let mut out = String::new();
        let mut ids = ids.iter();
        for f in &parsed {
            let mine: Vec<String> = ids.by_ref().take(f.records.len()).map(i64::to_string).collect();
            let version = f.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
            let runs = if mine.len() == 1 { "1 run".to_string() } else { format!("{} runs", mine.len()) };
            let saved = if mine.len() == 1 { "run" } else { "runs" };
            let _ = writeln!(out, "{}: {runs} from {}{version}, saved as {saved} {}", f.shown, f.tool, id_list(&mine));
        }
        let _ = writeln!(out, "store: {location}");
        output::write_text(out.as_bytes())?;
    }
    Ok(Outcome::Success)
}

fn parse_file(path: &Path, now: std::time::SystemTime) -> Result<(Parsed, String), UsageError> {
    let shown = path.display().to_string();
    // The largest results seen are fio's JSON with every job's latency bins: tens of MB.
    let bytes = crate::input_file::read_limited(path, 256 << 20, "result file")?;
    let sha: String = Sha256::digest(&bytes).iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    });
    let text = String::from_utf8_lossy(&bytes);
    if let Some(records) = spindle_records(&text).map_err(|e| UsageError::file(path, e))? {
        return Ok((Parsed { shown, tool: "spindle", version: None, records }, sha));
    }
    let runs = spindle_formats::foreign::parse(&text)
        .map_err(|e| UsageError::file(path, format_args!("{e}; nothing was imported")))?;
    if runs.is_empty() {
        return Err(UsageError::file(path, "holds no run to import"));
    }
    let source = spindle_formats::foreign::record::Source {
        file: &shown,
        sha256: &sha,
        imported_at: now,
        file_time: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
    };
    let records = runs
        .iter()
        .enumerate()
        .map(|(i, run)| spindle_formats::foreign::record::record_of(run, i as u32 + 1, &source))
        .collect();
    let tool = runs[0].tool.map_or("an unknown tool", |t| t.name());
    let version = runs[0].tool_version.clone();
    Ok((Parsed { shown, tool, version, records }, sha))
}

/// spindle's own run records (`--json` output, a run kept when its store could not take it):
/// `None` when the text is not one; an error when it is one that does not read.
fn spindle_records(text: &str) -> Result<Option<Vec<RunRecord>>, String> {
    let start = text.trim_start();
    if !(start.starts_with('{') || start.starts_with('[')) || !start.contains(spindle_model::record::SCHEMA_FAMILY) {
        return Ok(None);
    }
    let records = match serde_json::from_str::<Vec<RunRecord>>(text) {
        Ok(many) => many,
        Err(_) => vec![
            serde_json::from_str::<RunRecord>(text)
                .map_err(|e| format!("line {}: not a spindle run record ({e}); nothing was imported", e.line()))?,
        ],
    };
    Ok(Some(records))
}

/// `5`, `5-7`: consecutive ids as a range.
fn id_list(ids: &[String]) -> String {
    match ids {
        [] => String::new(),
        [one] => one.clone(),
        [first, .., last] => format!("{first}-{last}"),
    }
}
