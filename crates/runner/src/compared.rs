//! B against A from the store, where each side is runs picked by id or label: what `spindle
//! compare` prints and `spindle serve`'s compare page draws, judged by one function.

use spindle_analysis::compare::{Comparison, Settings};
use spindle_model::RunRecord;
use spindle_model::usage::UsageError;
use spindle_store::selection;
use spindle_store::{Filter, GroupKind, Store, StoredRun};

/// One side of a comparison as asked: the flag (or field) that named it and its items (run
/// ids, ranges, labels).
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub flag: &'static str,
    pub items: &'a [String],
}

impl Side<'_> {
    fn name(&self) -> String {
        self.items.join(" ")
    }
}

/// What a comparison found: one comparison, or for large operations one per operation, in
/// the order they run, with the operations only one side has.
pub struct Compared {
    pub a_name: String,
    pub b_name: String,
    pub parts: Vec<(Option<String>, PartResult)>,
}

pub enum PartResult {
    Compared(Box<Comparison>),
    /// Only side A (`true`) or only side B has this part.
    OnlyIn {
        a: bool,
    },
}

impl Compared {
    /// `compare --json`: the comparison, or an object of them by operation.
    pub fn json(&self) -> serde_json::Result<serde_json::Value> {
        if let [(None, PartResult::Compared(c))] = self.parts.as_slice() {
            return serde_json::to_value(c);
        }
        let mut json = serde_json::Map::new();
        for (part, result) in &self.parts {
            if let PartResult::Compared(c) = result {
                json.insert(part.as_deref().unwrap_or("other").to_string(), serde_json::to_value(c)?);
            }
        }
        Ok(serde_json::Value::Object(json))
    }

    pub fn text(&self) -> Vec<u8> {
        if let [(None, PartResult::Compared(c))] = self.parts.as_slice() {
            return spindle_report::render_compare(c, &self.a_name, &self.b_name);
        }
        let mut text = Vec::new();
        for (part, result) in &self.parts {
            let part = part.as_deref().unwrap_or("other");
            match result {
                PartResult::OnlyIn { a } => {
                    let (has, lacks) = if *a { (&self.a_name, &self.b_name) } else { (&self.b_name, &self.a_name) };
                    text.extend(format!("\n{part}: only in {has}, not in {lacks}; not compared\n").into_bytes());
                }
                PartResult::Compared(c) => {
                    text.extend(format!("\n{part}:\n").into_bytes());
                    text.extend(spindle_report::render_compare(c, &self.a_name, &self.b_name));
                }
            }
        }
        text
    }
}

/// B against A from `store`, as `spindle compare` and `spindle serve`'s compare page judge it.
pub fn compared(store: Option<&Store>, a: Side<'_>, b: Side<'_>, threshold_pct: f64) -> anyhow::Result<Compared> {
    let fa = selection::parse_selection(a.flag, a.items)?;
    let fb = selection::parse_selection(b.flag, b.items)?;
    let load = |f: &Filter, side: Side<'_>| -> anyhow::Result<Vec<StoredRun>> {
        let runs = match store {
            Some(s) => s.load_all(f)?,
            None => Vec::new(),
        };
        if runs.is_empty() {
            return Err(UsageError::NoRuns { selection: format!("{} {}", side.flag, side.name()) }.into());
        }
        Ok(runs)
    };
    let runs_a = load(&fa, a)?;
    let runs_b = load(&fb, b)?;
    // A run that measured nothing (stopped in its warm-up) has no figures to compare: its
    // zeros are not a result.
    if let Some(empty) = runs_a.iter().chain(&runs_b).find(|r| r.record.summary.ios == 0) {
        return Err(UsageError::request(format!(
            "run {} measured nothing ({}, {:.1} s measured): leave it out of the selection",
            empty.summary.id,
            empty.record.status.name(),
            empty.record.measured_seconds
        ))
        .into());
    }
    if let Some(shared) =
        runs_a.iter().find(|r| runs_b.iter().any(|x| x.summary.id == r.summary.id)).map(|r| r.summary.id)
    {
        if runs_a.len() > 1 || runs_b.len() > 1 {
            return Err(
                UsageError::request(format!("run {shared} is in both A and B; make the selections disjoint")).into()
            );
        }
    }
    // Labels that picked the sides are what is being compared, not a confounder.
    let selected_by: Vec<String> = fa.labels.iter().chain(fb.labels.iter()).map(|(k, _)| k.clone()).collect();
    let history = match store {
        Some(s) => history(s, &runs_a, &runs_b)?,
        None => Vec::new(),
    };
    let history: Vec<Vec<&RunRecord>> = history.iter().map(|g| g.iter().map(|r| &r.record).collect()).collect();
    let settings = Settings { selected_by: &selected_by, threshold_pct, history: &history };
    // Large operations: each operation compared with the same operation only.
    let parts = parts_of(&runs_a, &runs_b)
        .into_iter()
        .map(|(part, ra, rb)| {
            let result = if ra.is_empty() || rb.is_empty() {
                PartResult::OnlyIn { a: rb.is_empty() }
            } else {
                PartResult::Compared(Box::new(spindle_analysis::compare::compare(&ra, &rb, &settings)))
            };
            (part, result)
        })
        .collect();
    Ok(Compared { a_name: a.name(), b_name: b.name(), parts })
}

/// A and B by part: one part for most runs; a large operation's runs by operation (a scan is
/// compared with a scan, never with a load), in the order the operations run.
type Part<'r> = (Option<String>, Vec<(i64, &'r RunRecord)>, Vec<(i64, &'r RunRecord)>);

fn parts_of<'r>(a: &'r [StoredRun], b: &'r [StoredRun]) -> Vec<Part<'r>> {
    let part = |r: &RunRecord| r.details.large_op().map(|op| op.operation.clone());
    let mut parts: Vec<Part<'r>> = Vec::new();
    for (side, runs) in [(0, a), (1, b)] {
        for r in runs {
            let key = part(&r.record);
            let i = match parts.iter().position(|p| p.0 == key) {
                Some(i) => i,
                None => {
                    parts.push((key, Vec::new(), Vec::new()));
                    parts.len() - 1
                }
            };
            let sided = if side == 0 { &mut parts[i].1 } else { &mut parts[i].2 };
            sided.push((r.summary.id, &r.record));
        }
    }
    parts
}

/// Stored repeat groups of the compared workloads on the compared hosts, other than the
/// compared runs: what says how much this host drifts between groups.
fn history(store: &Store, a: &[StoredRun], b: &[StoredRun]) -> anyhow::Result<Vec<Vec<StoredRun>>> {
    let compared: Vec<i64> = a.iter().chain(b).map(|r| r.summary.id).collect();
    let mut hosts: Vec<&str> = a.iter().chain(b).map(|r| r.summary.hostname.as_str()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let mut workloads: Vec<String> = a.iter().chain(b).map(|r| r.summary.workload.clone()).collect();
    workloads.sort_unstable();
    workloads.dedup();
    let mut groups = Vec::new();
    for host in hosts {
        for group in store.groups_like(GroupKind::Repeat, host, &workloads)? {
            let others: Vec<StoredRun> = group.into_iter().filter(|r| !compared.contains(&r.summary.id)).collect();
            if !others.is_empty() {
                groups.push(others);
            }
        }
    }
    Ok(groups)
}
