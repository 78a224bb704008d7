//! Writes results to stdout in the format asked for; the exporters themselves are pure.

use crate::args::OutputArgs;
use anyhow::Context;
use spindle_model::RunRecord;
use std::io::Write;

pub fn print(records: &[RunRecord], output: &OutputArgs) -> anyhow::Result<()> {
    let bytes = if output.json {
        match records {
            [one] => spindle_report::render_json(one),
            many => spindle_report::render_json_many(many),
        }
    } else if output.csv {
        spindle_report::render_csv(records)
    } else if output.quiet {
        return Ok(());
    } else {
        spindle_report::render_text(records)
    };
    write_stdout(&bytes)
}

pub fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes).context("cannot write results to stdout")?;
    stdout.flush().context("cannot write results to stdout")
}

/// `--label key=value` pairs; a malformed one names itself.
pub fn labels(raw: &[String]) -> Result<std::collections::BTreeMap<String, String>, crate::plan::PlanError> {
    raw.iter().map(|item| crate::selection::parse_label("--label", item)).collect()
}

/// The command line as recorded: values of password-like flags replaced.
pub fn command_line() -> Vec<String> {
    let mut hide_next = false;
    std::env::args()
        .map(|arg| {
            if std::mem::take(&mut hide_next) {
                return "********".to_string();
            }
            let lower = arg.to_ascii_lowercase();
            if lower.starts_with("--password") {
                if arg.contains('=') {
                    return "--password=********".to_string();
                }
                hide_next = true;
            }
            arg
        })
        .collect()
}

/// Creates a file the user named with `-o`: never over an existing file unless `force`.
pub fn create_new_file(path: &std::path::Path, force: bool) -> Result<std::fs::File, crate::plan::PlanError> {
    let shown = path.display();
    let mut open = std::fs::OpenOptions::new();
    open.write(true);
    if force {
        open.create(true).truncate(true);
    } else {
        open.create_new(true);
    }
    open.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            crate::plan::PlanError(format!("-o {shown}: the file exists; pass --force to replace it"))
        }
        _ => crate::plan::PlanError(format!("-o {shown}: cannot create it: {e}")),
    })
}
