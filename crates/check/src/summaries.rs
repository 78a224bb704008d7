//! Each directory's check group keeps its evidence and findings (what `runs show --group` and
//! `report` draw, and what the next check of the place is held against); what moved since the
//! last check of each is read before the new summary is kept.

use crate::battery::Budget;
use crate::run::group_of;
use crate::since::{Since, since};
use crate::view::SCHEMA;
use spindle_analysis::check_summary::{CheckSummary, StoppedEarly};
use spindle_analysis::findings::{DirEvidence, Evidence, Finding, Guidance};
use spindle_runner::experiment::Runner;
use std::path::Path;

/// What a directory's check group keeps as its summary (docs/check.md).
pub fn group_summary(
    budget: Budget,
    guidance: Guidance,
    dir: &DirEvidence,
    findings: &[&Finding],
    since: &Option<Since>,
    stopped: Option<StoppedEarly>,
) -> serde_json::Result<serde_json::Value> {
    serde_json::to_value(CheckSummary {
        schema: SCHEMA,
        budget: budget.name(),
        guidance,
        evidence: dir,
        findings,
        since,
        stopped,
    })
}

/// Keeps every directory's summary in its group, with whether its battery stopped early
/// (`stopped`, beside `evidence.dirs`); per directory (as given), its last check.
pub fn keep(
    runner: &Runner<'_>,
    evidence: &Evidence,
    stopped: &[Option<StoppedEarly>],
    found: &[Finding],
    budget: Budget,
) -> anyhow::Result<Vec<(String, Option<Since>)>> {
    let mut moved = Vec::new();
    for (dir, stopped) in evidence.dirs.iter().zip(stopped) {
        let name = group_of(Path::new(&dir.dir)).1;
        let Some(group) = runner.groups.iter().find(|g| g.name == name) else { continue };
        let (Some(id), Some(store)) = (group.id, runner.saver.store()) else { continue };
        let before = since(store, &name, id, dir, evidence.guidance)?;
        let of_dir: Vec<_> = found.iter().filter(|f| f.dir == dir.dir).collect();
        runner
            .saver
            .set_group_summary(group, &group_summary(budget, evidence.guidance, dir, &of_dir, &before, *stopped)?)?;
        moved.push((dir.dir.clone(), before));
    }
    Ok(moved)
}
