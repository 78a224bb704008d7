//! The report as view models: sections of tables and charts whose numbers are already
//! formatted (criterion's way), built once from a `Document`. HTML, Markdown and XLSX draw the
//! same view, and a local web UI can serve it as JSON; none of them computes a figure.
//! A new kind of run adds a section builder here, not a change to every format.

mod groups;
mod kinds;
pub mod logtest;
pub mod matrix;
mod runs;

pub use crate::figures::{Cell, counter_text, latency_scale, rate_text};
pub use groups::comparison_section;

use crate::document::{Document, ReportRun};
use serde::Serialize;
use spindle_model::RunRecord;
use spindle_model::group::GroupKind;

/// A table: a title, column names, and rows of cells.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Table {
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new(title: impl Into<String>, columns: &[&str]) -> Table {
        Table { title: title.into(), columns: columns.iter().map(|c| c.to_string()).collect(), rows: Vec::new() }
    }

    /// A two-column table of names and values.
    pub fn pairs(title: impl Into<String>, rows: Vec<(String, Cell)>) -> Table {
        Table {
            title: title.into(),
            columns: vec!["".into(), "".into()],
            rows: rows.into_iter().map(|(k, v)| vec![Cell::text(k), v]).collect(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChartKind {
    /// One bar per category (per series, side by side).
    Bar,
    /// A line per series over the categories, in order (time, a swept value).
    Line,
    /// Per category, a point with its interval around a zero line (a comparison).
    Interval,
}

#[derive(Clone, Debug, Serialize)]
pub struct Series {
    pub name: String,
    pub values: Vec<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Chart {
    pub title: String,
    pub kind: ChartKind,
    pub x_label: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    /// `Interval` charts: each category's (low, high).
    pub intervals: Vec<(f64, f64)>,
    /// `Interval` charts: changes within ± this percent are too small to act on (drawn as a
    /// band around zero).
    pub band: Option<f64>,
    /// A category to mark (a sweep's knee, the log test's optimum), and what the mark says.
    pub mark: Option<(usize, String)>,
}

impl Chart {
    pub fn new(title: impl Into<String>, kind: ChartKind, x_label: &str, y_label: &str) -> Chart {
        Chart {
            title: title.into(),
            kind,
            x_label: x_label.into(),
            y_label: y_label.into(),
            categories: Vec::new(),
            series: Vec::new(),
            intervals: Vec::new(),
            band: None,
            mark: None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.categories.is_empty() || self.series.iter().all(|s| s.values.is_empty())
    }
}

/// A part of the report with a heading: a kind of run, a group, one run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Section {
    /// Anchor for links, unique in the report (`kind-io`, `group-3`, `run-12`).
    pub anchor: String,
    /// 2 for kinds and groups, 3 for runs.
    pub level: u8,
    pub title: String,
    /// Sentences said before the figures (a headline, a knee, a warning).
    pub notes: Vec<String>,
    pub charts: Vec<Chart>,
    pub tables: Vec<Table>,
    /// Text shown as it is (a run's spec), with its caption.
    pub blocks: Vec<(String, String)>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ReportView {
    pub title: String,
    pub generated_at: String,
    /// What the report covers, in a few lines.
    pub overview: Vec<String>,
    /// Anchors and titles of the level-2 sections, for a table of contents.
    pub contents: Vec<(String, String)>,
    pub sections: Vec<Section>,
}

/// Every section of the report: those over every run (`summary_view`), then each run's own.
pub fn report_view(doc: &Document) -> ReportView {
    let mut view = summary_view(doc);
    view.sections.extend(doc.runs.iter().enumerate().map(|(i, r)| run_section(r, i)));
    view
}

/// The report's overview and its sections over every run (a kind's, a group's), without the
/// runs' own: what a streamed export writes first, built from slim runs (`ReportRun::slim`
/// keeps all they read), before it writes each run's section as the run is read.
pub fn summary_view(doc: &Document) -> ReportView {
    // A check's findings are the report's answer, so its group leads; otherwise the runs by
    // kind come first and their groups after.
    let sections = if doc.groups.iter().any(|g| g.kind == GroupKind::Check) {
        let mut s = groups::sections(doc);
        s.extend(kinds::sections(doc));
        s
    } else {
        let mut s = kinds::sections(doc);
        s.extend(groups::sections(doc));
        s
    };
    let contents = sections.iter().filter(|s| s.level == 2).map(|s| (s.anchor.clone(), s.title.clone())).collect();
    ReportView {
        title: if doc.title.is_empty() { "spindle report".into() } else { doc.title.clone() },
        generated_at: doc.generated_at.clone(),
        overview: overview(doc),
        contents,
        sections,
    }
}

/// One run's own section (level 3), from its whole record; `position` is its place among the
/// report's runs.
pub fn run_section(run: &ReportRun, position: usize) -> Section {
    runs::section(run, position)
}

fn overview(doc: &Document) -> Vec<String> {
    // Imported runs were made by other tools, on machines their files do not name: they are
    // counted apart, never as runs on this report's hosts.
    let (imported, native): (Vec<&RunRecord>, Vec<&RunRecord>) =
        doc.records().partition(|r| r.details.origin().is_some());
    let mut hosts: Vec<&str> =
        native.iter().map(|r| r.environment.hostname.as_str()).filter(|h| !h.is_empty()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let mut times: Vec<&str> = doc.records().map(|r| r.started_at.as_str()).collect();
    times.sort_unstable();
    let runs = |n: usize| if n == 1 { "1 run".to_string() } else { format!("{n} runs") };
    let on_hosts = match hosts.len() {
        0 => String::new(),
        1 => format!(" on 1 host ({})", hosts[0]),
        n => format!(" on {n} hosts ({})", hosts.join(", ")),
    };
    let span = match (times.first(), times.last()) {
        (Some(a), Some(b)) if a != b => format!(", from {a} to {b}"),
        (Some(a), _) => format!(", at {a}"),
        _ => String::new(),
    };
    let mut tools: Vec<&str> = imported.iter().filter_map(|r| r.details.origin()).map(|o| o.tool.as_str()).collect();
    tools.sort_unstable();
    tools.dedup();
    let from_files = format!("imported from {} result files, made on other machines", tools.join(", "));
    let mut lines = vec![match (native.len(), imported.len()) {
        (n, 0) => format!("{}{on_hosts}{span}", runs(n)),
        (0, i) => format!("{} {from_files}{span}", runs(i)),
        (n, i) => format!("{}{span}: {n}{on_hosts}, {i} {from_files}", runs(n + i)),
    }];
    let unfinished = doc.records().filter(|r| r.status != spindle_model::record::RunStatus::Complete).count();
    if unfinished > 0 {
        lines.push(format!("{unfinished} did not run to the end: their figures cover what ran."));
    }
    lines
}

#[cfg(test)]
mod tests;
