//! An A/B experiment's results as `ab` and `placement` print them: the runs in rows, and each
//! paired comparison under its point and part, as text or as `spindle compare --json` does.

use spindle_analysis::compare::SIDE_LABEL;
use spindle_model::RunRecord;
use spindle_runner::experiment::ab::Compared;
use spindle_runner::experiment::{Finished, Runner};

/// A comparison's key among several: its point and part (`sessions=8`, `scan`).
fn key(c: &Compared) -> String {
    [c.point.as_deref(), c.part.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" ")
}

/// One comparison as `spindle compare --json` prints it; several as an object by key.
pub fn comparisons_json(compared: &[Compared]) -> anyhow::Result<Vec<u8>> {
    let json = match compared {
        [only] => serde_json::to_value(&only.comparison)?,
        many => serde_json::Value::Object(
            many.iter().map(|c| Ok((key(c), serde_json::to_value(&c.comparison)?))).collect::<anyhow::Result<_>>()?,
        ),
    };
    Ok(format!("{}\n", serde_json::to_string_pretty(&json)?).into_bytes())
}

/// Each run in a row: its id, point and part, side and round.
pub fn overview_rows<'r>(runner: &'r Runner<'_>) -> Vec<(String, &'r RunRecord)> {
    runner
        .runs
        .iter()
        .map(|f: &Finished| {
            let side = f.record.labels.get(SIDE_LABEL).map_or("", String::as_str).to_uppercase();
            let at: Vec<&str> = [f.part.as_deref()].into_iter().flatten().collect();
            let at = if at.is_empty() { String::new() } else { format!("{} ", at.join(" ")) };
            (format!("{} {at}{side} round {}", f.id, f.repeat), &f.record)
        })
        .collect()
}

/// Each comparison under its key, with the group it was saved in.
pub fn comparisons_text(runner: &Runner<'_>, compared: &[Compared], a: &str, b: &str) -> Vec<u8> {
    let mut text = Vec::new();
    for c in compared {
        let key = key(c);
        let group = runner.groups[c.group].id.unwrap_or(0);
        let head = if key.is_empty() { format!("\ngroup {group}\n") } else { format!("\n{key} (group {group}):\n") };
        text.extend(head.into_bytes());
        text.extend(spindle_report::render_compare(&c.comparison, a, b));
    }
    text
}
