//! B against A from the store, where each side is runs picked by id or label: what `spindle
//! compare` prints and `spindle serve`'s compare page draws, judged by one function.

use spindle_analysis::compare::{Comparison, GroupFigures, Sequence, Settings, SideRuns, compare_sides};
use spindle_model::usage::UsageError;
use spindle_store::selection;
use spindle_store::{Filter, GroupKind, Store, StoreError, StoredRun};
use std::collections::{BTreeSet, HashSet};

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
/// Each side is read a run at a time and kept as its figures and facts (`SideRuns`), never as
/// records, so sides of thousands of runs take memory in proportion to their figures.
pub fn compared(store: Option<&Store>, a: Side<'_>, b: Side<'_>, threshold_pct: f64) -> anyhow::Result<Compared> {
    let fa = selection::parse_selection(a.flag, a.items)?;
    let fb = selection::parse_selection(b.flag, b.items)?;
    let no_runs = |side: Side<'_>| UsageError::NoRuns { selection: format!("{} {}", side.flag, side.name()) };
    let Some(store) = store else { return Err(no_runs(a).into()) };
    for (filter, side) in [(&fa, a), (&fb, b)] {
        if store.count(filter)? == 0 {
            return Err(no_runs(side).into());
        }
    }
    // Labels that picked the sides are what is being compared, not a confounder.
    let selected_by: Vec<String> = fa.labels.iter().chain(fb.labels.iter()).map(|(k, _)| k.clone()).collect();
    let mut read = Read::default();
    for (filter, is_b) in [(&fa, false), (&fb, true)] {
        store.each_run_summarized(filter, |run| read.add(run, is_b, &selected_by))?;
    }
    if let Some(shared) = read.a_ids.iter().find(|id| read.b_ids.contains(id)) {
        if read.a_ids.len() > 1 || read.b_ids.len() > 1 {
            return Err(
                UsageError::request(format!("run {shared} is in both A and B; make the selections disjoint")).into()
            );
        }
    }
    // The host's drift matters only to sides that ran one after the other.
    let one_after_the_other = read.parts.iter().any(|(_, ra, rb)| Sequence::of(ra, rb) == Sequence::OneAfterTheOther);
    let history = if one_after_the_other { history(store, &read)? } else { Vec::new() };
    let settings = Settings { selected_by: &selected_by, threshold_pct, history: &history };
    // Large operations: each operation compared with the same operation only.
    let parts = read
        .parts
        .iter()
        .map(|(part, ra, rb)| {
            let result = if ra.is_empty() || rb.is_empty() {
                PartResult::OnlyIn { a: rb.is_empty() }
            } else {
                PartResult::Compared(Box::new(compare_sides(ra, rb, &settings)))
            };
            (part.clone(), result)
        })
        .collect();
    Ok(Compared { a_name: a.name(), b_name: b.name(), parts })
}

/// What was read of the two sides: A and B by part (one part for most runs; a large
/// operation's runs by operation, so a scan is compared with a scan, never with a load, in the
/// order the operations run), and what finds the runs that tell the host's drift.
#[derive(Default)]
struct Read {
    parts: Vec<(Option<String>, SideRuns, SideRuns)>,
    a_ids: Vec<i64>,
    b_ids: HashSet<i64>,
    hosts: BTreeSet<String>,
    workloads: BTreeSet<String>,
}

impl Read {
    fn add(&mut self, run: StoredRun, is_b: bool, selected_by: &[String]) -> anyhow::Result<()> {
        let (summary, record) = (&run.summary, &run.record);
        // A run that measured nothing (stopped in its warm-up) has no figures to compare: its
        // zeros are not a result.
        if record.summary.ios == 0 {
            return Err(UsageError::request(format!(
                "run {} measured nothing ({}, {:.1} s measured): leave it out of the selection",
                summary.id,
                record.status.name(),
                record.measured_seconds
            ))
            .into());
        }
        let key = record.details.large_op().map(|op| op.operation.clone());
        let i = match self.parts.iter().position(|p| p.0 == key) {
            Some(i) => i,
            None => {
                self.parts.push((key, SideRuns::new(selected_by), SideRuns::new(selected_by)));
                self.parts.len() - 1
            }
        };
        let part = &mut self.parts[i];
        if is_b {
            part.2.add(summary.id, record);
            self.b_ids.insert(summary.id);
        } else {
            part.1.add(summary.id, record);
            self.a_ids.push(summary.id);
        }
        self.hosts.insert(summary.hostname.clone());
        self.workloads.insert(summary.workload.clone());
        Ok(())
    }
}

/// Stored repeat groups of the compared workloads on the compared hosts, other than the
/// compared runs, each as its figures: what says how much this host drifts between groups.
fn history(store: &Store, read: &Read) -> anyhow::Result<Vec<GroupFigures>> {
    let workloads: Vec<String> = read.workloads.iter().cloned().collect();
    let compared: HashSet<i64> = read.a_ids.iter().chain(&read.b_ids).copied().collect();
    let mut groups = Vec::new();
    for host in &read.hosts {
        for group in store.group_ids_like(GroupKind::Repeat, host, &workloads)? {
            let mut others = SideRuns::new(&[]);
            store.each_run_summarized(&Filter { group: Some(group), ..Filter::default() }, |run| {
                let id = run.summary.id;
                if !compared.contains(&id) {
                    others.add(id, &run.record);
                }
                Ok::<_, StoreError>(())
            })?;
            groups.extend(GroupFigures::of(&others));
        }
    }
    Ok(groups)
}
