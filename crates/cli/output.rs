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
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&bytes).context("cannot write results to stdout")?;
    stdout.flush().context("cannot write results to stdout")
}

/// `--label key=value` pairs; a malformed one names itself.
pub fn labels(raw: &[String]) -> Result<std::collections::BTreeMap<String, String>, crate::plan::PlanError> {
    let mut labels = std::collections::BTreeMap::new();
    for item in raw {
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| crate::plan::PlanError(format!("--label {item}: write KEY=VALUE, e.g. --label raid=10")))?;
        let key = key.trim();
        let valid = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
        if !valid {
            return Err(crate::plan::PlanError(format!(
                "--label {item}: the key must be letters, digits, '_', '-' or '.'"
            )));
        }
        labels.insert(key.to_string(), value.trim().to_string());
    }
    Ok(labels)
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
