//! What every exporter is given: the runs to show, with their place in the store, and the
//! groups they were made in. Built once by the command; each format draws from it.

use spindle_model::RunRecord;
use spindle_model::group::{GroupKind, Point};

/// One run, as stored (`id` is absent for a run printed before it was saved).
#[derive(Clone, Debug)]
pub struct ReportRun {
    pub id: Option<i64>,
    pub group: Option<i64>,
    /// The sweep point or suite member (`depth=8`, `page-read`).
    pub point: Option<Point>,
    pub repeat: u32,
    pub record: RunRecord,
}

impl ReportRun {
    /// A run that has no place in a store (yet).
    pub fn unsaved(record: RunRecord) -> ReportRun {
        ReportRun { id: None, group: None, point: None, repeat: 1, record }
    }

    /// How the run is named in headings and charts: `run 12`, else its position.
    pub fn name(&self, position: usize) -> String {
        match self.id {
            Some(id) => format!("run {id}"),
            None => format!("run #{}", position + 1),
        }
    }
}

/// A group the runs were made in, as stored.
#[derive(Clone, Debug)]
pub struct ReportGroup {
    pub id: i64,
    pub kind: GroupKind,
    pub name: String,
    pub created_at: String,
    pub summary: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Default)]
pub struct Document {
    pub title: String,
    /// RFC 3339 UTC time the report was made.
    pub generated_at: String,
    /// In the order they ran.
    pub runs: Vec<ReportRun>,
    pub groups: Vec<ReportGroup>,
}

impl Document {
    /// Runs with no place in a store, as a command that has just measured them prints them.
    pub fn of_records(records: &[RunRecord]) -> Document {
        Document { runs: records.iter().cloned().map(ReportRun::unsaved).collect(), ..Document::default() }
    }

    pub fn records(&self) -> impl Iterator<Item = &RunRecord> {
        self.runs.iter().map(|r| &r.record)
    }
}
