//! What every exporter is given: the runs to show, with their place in the store, and the
//! groups they were made in. A `RunSource` gives the runs one at a time (a store read run by
//! run, so a report of ten thousand runs holds a few); a `Document` holds them all, for a
//! command that has just measured them.

use crate::format::ExportError;
use spindle_model::RunRecord;
use spindle_model::group::{GroupKind, Point};
use spindle_model::record::IoStats;

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

    /// The run without what only its own section shows (each thread's figures, the series,
    /// the counters, the latency histograms, the command line, the warnings, the environment
    /// but the host's name): what the report's sections over every run read of it, a few
    /// kilobytes where the record may be megabytes.
    pub fn slim(&self) -> ReportRun {
        fn without_histograms(s: &mut IoStats) {
            s.read.histogram = Default::default();
            s.write.histogram = Default::default();
            s.flush.histogram = Default::default();
            s.commit.histogram = Default::default();
        }
        let mut record = self.record.clone();
        record.threads = Vec::new();
        record.timeseries = Vec::new();
        record.counters = None;
        record.command_line = Vec::new();
        record.warnings = Vec::new();
        record.environment =
            spindle_model::record::Environment { hostname: record.environment.hostname, ..Default::default() };
        without_histograms(&mut record.summary);
        for t in &mut record.targets {
            t.timeseries = Vec::new();
            without_histograms(&mut t.stats);
        }
        ReportRun { record, point: self.point.clone(), ..*self }
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

/// The title, time and groups of a report: everything but its runs.
#[derive(Clone, Copy, Debug)]
pub struct Heading<'a> {
    pub title: &'a str,
    pub generated_at: &'a str,
    pub groups: &'a [ReportGroup],
}

/// A report's runs as an exporter reads them: how many, and each in turn, oldest first, as
/// often as the format needs (the formats whose first sections show every run read them
/// twice: slim for those sections, whole for each run's own).
pub trait RunSource {
    fn heading(&self) -> Heading<'_>;
    fn count(&self) -> usize;
    /// Gives `each` every run in turn; `each`'s error stops it.
    fn each(&self, each: &mut dyn FnMut(&ReportRun) -> Result<(), ExportError>) -> Result<(), ExportError>;
}

impl RunSource for Document {
    fn heading(&self) -> Heading<'_> {
        Heading { title: &self.title, generated_at: &self.generated_at, groups: &self.groups }
    }

    fn count(&self) -> usize {
        self.runs.len()
    }

    fn each(&self, each: &mut dyn FnMut(&ReportRun) -> Result<(), ExportError>) -> Result<(), ExportError> {
        self.runs.iter().try_for_each(each)
    }
}

/// The runs of `source` slim (`ReportRun::slim`) in a document with its heading: what the
/// sections over every run are built from.
pub fn slim_document(source: &dyn RunSource) -> Result<Document, ExportError> {
    let h = source.heading();
    let mut runs = Vec::with_capacity(source.count());
    source.each(&mut |r| {
        runs.push(r.slim());
        Ok(())
    })?;
    Ok(Document {
        title: h.title.to_string(),
        generated_at: h.generated_at.to_string(),
        runs,
        groups: h.groups.to_vec(),
    })
}
