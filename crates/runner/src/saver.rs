//! Saving runs as soon as each is measured. The store (and each group) is opened or created
//! only when its first run is saved, so a command that fails before measuring leaves no store
//! or empty group behind; a run the store cannot take is kept in a file beside it (or, for a
//! store on a server, in the current directory).

use spindle_model::RunRecord;
use spindle_model::group::Point;
use spindle_store::{GroupKind, Location, Placement, Store};
use std::path::PathBuf;

/// A group of runs made together: its kind and name, and its id once its first run is saved.
#[derive(Clone, Debug)]
pub struct Group {
    pub kind: GroupKind,
    pub name: String,
    pub id: Option<i64>,
}

impl Group {
    pub fn new(kind: GroupKind, name: impl Into<String>) -> Group {
        Group { kind, name: name.into(), id: None }
    }
}

pub struct Saver {
    pub location: Location,
    store: Option<Store>,
    /// Each saved run's id, group, point and repeat, in the order saved.
    saved: Vec<Saved>,
}

/// Where a saved run went.
#[derive(Clone, Debug)]
pub struct Saved {
    pub id: i64,
    pub group: Option<i64>,
    pub point: Option<Point>,
    pub repeat: u32,
}

impl Saver {
    /// Checks an existing store before any I/O: one that cannot be used (or reached) stops
    /// the command before it measures.
    pub fn new(at: impl Into<Location>) -> anyhow::Result<Saver> {
        let location = at.into();
        let store = Store::open_existing(&location)?;
        if let Some(store) = &store {
            store.writable()?;
        }
        Ok(Saver { location, store, saved: Vec::new() })
    }

    /// Saves `record` in `group` (started with this run when it has no id yet); when the store
    /// cannot take it (full, read-only, not a store), the run is written to a recovery file
    /// beside the store (or in the current directory) and the error names that file and the
    /// command that imports it: a measured run is never lost to its store.
    pub fn save(
        &mut self,
        record: &RunRecord,
        group: Option<&mut Group>,
        point: Option<Point>,
        repeat: u32,
    ) -> anyhow::Result<i64> {
        let saved = self.try_save(record, group, point, repeat).map_err(|e| keep_unsaved(&self.location, record, e))?;
        let id = saved.id;
        self.saved.push(saved);
        Ok(id)
    }

    fn try_save(
        &mut self,
        record: &RunRecord,
        group: Option<&mut Group>,
        point: Option<Point>,
        repeat: u32,
    ) -> anyhow::Result<Saved> {
        let store = match &mut self.store {
            Some(s) => s,
            None => self.store.insert(Store::open(&self.location)?),
        };
        let group = match group {
            Some(g) => Some(match g.id {
                Some(id) => id,
                None => *g.id.insert(store.new_group(g.kind, &g.name, &record.started_at)?),
            }),
            None => None,
        };
        let id = store.save(record, &Placement { group, point: point.clone(), repeat })?;
        Ok(Saved { id, group, point, repeat })
    }

    /// Attaches what the whole group found to it, once some run of it was saved.
    pub fn set_group_summary(&self, group: &Group, summary: &serde_json::Value) -> anyhow::Result<()> {
        if let (Some(store), Some(id)) = (&self.store, group.id) {
            store.set_group_summary(id, summary)?;
        }
        Ok(())
    }

    /// The store, once a run was saved in it.
    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// The records this saver saved, in order, with their ids and places, as exporters take
    /// them (`--json`, `--csv` say which stored run each is).
    pub fn document(&self, records: &[RunRecord]) -> spindle_report::Document {
        spindle_report::Document {
            runs: records
                .iter()
                .zip(self.saved.iter().map(Some).chain(std::iter::repeat(None)))
                .map(|(record, saved)| spindle_report::ReportRun {
                    id: saved.map(|s| s.id),
                    group: saved.and_then(|s| s.group),
                    point: saved.and_then(|s| s.point.clone()),
                    repeat: saved.map_or(1, |s| s.repeat),
                    record: record.clone(),
                })
                .collect(),
            ..spindle_report::Document::default()
        }
    }
}

/// A stored group as the exporters take it.
pub fn report_group(g: spindle_store::StoredGroup) -> spindle_report::ReportGroup {
    spindle_report::ReportGroup { id: g.id, kind: g.kind, name: g.name, created_at: g.created_at, summary: g.summary }
}

/// A run that was measured but could not be saved. The command's exit code says so (1: the
/// run happened), never 2, which means nothing was run.
#[derive(Debug)]
pub struct Unsaved(String);

impl std::fmt::Display for Unsaved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsaved {}

/// Writes a run that could not be saved to a file of its own, and says how to bring it in.
fn keep_unsaved(store: &Location, record: &RunRecord, e: anyhow::Error) -> anyhow::Error {
    let name = format!(
        "spindle-unsaved-{}-{}.json",
        record.started_at.replace([':', '-'], "").trim_end_matches('Z'),
        std::process::id()
    );
    let beside = store.file().and_then(|f| f.parent()).filter(|d| !d.as_os_str().is_empty()).map(|d| d.join(&name));
    let places = beside.into_iter().chain(std::iter::once(PathBuf::from(&name)));
    let json = spindle_report::render_json(record);
    for file in places {
        // Private as the store is: the record holds the same command line, host and labels.
        let written = spindle_store::private::create_file(&file)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &json).and_then(|()| f.sync_all()));
        match written {
            Ok(()) => {
                let shown = file.display();
                return Unsaved(format!(
                    "{}; the run was measured but not saved: it is kept in {shown}; once the store works, bring it in with: spindle import {shown}",
                    error_text(&e)
                ))
                .into();
            }
            Err(_) => {
                let _ = std::fs::remove_file(&file);
            }
        }
    }
    Unsaved(format!(
        "{}; the run was measured but could not be saved, nor kept in a file beside the store or here",
        error_text(&e)
    ))
    .into()
}

/// The error and its causes, each said once: a cause whose words its error already quotes
/// (an OS or SQLite error inside a store error) is not said again.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let said = cause.to_string();
        if !text.contains(&said) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&said);
        }
    }
    text
}
