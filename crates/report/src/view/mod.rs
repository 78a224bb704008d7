//! The report as view models: sections of tables and charts whose numbers are already
//! formatted (criterion's way), built once from a `Document`. HTML, Markdown and XLSX draw the
//! same view, and a local web UI can serve it as JSON; none of them computes a figure.
//! A new kind of run adds a section builder here, not a change to every format.

mod agents;
mod groups;
mod kinds;
pub mod logtest;
pub mod matrix;
mod runs;
mod units;

pub use crate::figures::{Cell, LatencyUnit, counter_text, rate_text};
pub use groups::{comparison_section, kind_title};

use crate::document::{Document, RunSource};
use crate::format::ExportError;
use serde::Serialize;
use spindle_model::RunRecord;

/// A table: a title, column names, and rows of cells.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Table {
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    /// Columns of long text that are the table's point (a finding, what to do): given room,
    /// where the others wrap narrow.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wide: Vec<usize>,
}

impl Table {
    pub fn new(title: impl Into<String>, columns: &[&str]) -> Table {
        Table {
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
            wide: Vec::new(),
        }
    }

    /// A two-column table of names and values.
    pub fn pairs(title: impl Into<String>, rows: Vec<(String, Cell)>) -> Table {
        Table {
            title: title.into(),
            columns: vec!["".into(), "".into()],
            rows: rows.into_iter().map(|(k, v)| vec![Cell::text(k), v]).collect(),
            wide: Vec::new(),
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
    /// The values are latencies in nanoseconds, to be drawn in the page's one latency unit
    /// (`one_latency_unit` puts them in it and names it on the axis).
    #[serde(skip)]
    pub latency: bool,
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
            latency: false,
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
    /// How many of the first tables are the section's answer (a run's figures and agents, a
    /// check's findings): drawn before the charts.
    pub lead_tables: usize,
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
    /// The one unit every latency of the page is in (`LatencyUnit::for_most` of them).
    #[serde(skip)]
    pub latency_unit: LatencyUnit,
}

/// Every section of the report: those over every run, then each run's own, every latency in
/// the one unit that suits most of them.
pub fn report_view(doc: &Document) -> ReportView {
    let mut view = sections_over_every_run(doc);
    view.sections.extend(doc.runs.iter().enumerate().map(|(i, r)| runs::section(r, i)));
    view.latency_unit = LatencyUnit::for_most(view.sections.iter().flat_map(units::latencies));
    units::put_in(&mut view.sections, view.latency_unit);
    view
}

/// The report's overview and its sections over every run (a kind's, a group's), without the
/// runs' own: what a streamed export writes first, built from slim runs (`ReportRun::slim`
/// keeps all they read), before it writes each run's section (`each_run_section`) as the run is
/// read. Its latency unit is chosen as `report_view` chooses it, counting each run's own
/// section too (built here from the runs given and dropped), so every section of the page
/// shares it.
pub fn summary_view(doc: &Document) -> ReportView {
    let mut view = sections_over_every_run(doc);
    let own = doc.runs.iter().enumerate().map(|(i, r)| runs::section(r, i));
    let own: Vec<f64> = own.flat_map(|s| units::latencies(&s).collect::<Vec<_>>()).collect();
    view.latency_unit = LatencyUnit::for_most(view.sections.iter().flat_map(units::latencies).chain(own));
    units::put_in(&mut view.sections, view.latency_unit);
    view
}

/// Each run's own section (level 3), from its whole record as `runs` reads it, its latencies
/// in the page's `unit`, given to `each` in the report's order.
pub fn each_run_section(
    runs: &dyn RunSource,
    unit: LatencyUnit,
    each: &mut dyn FnMut(Section) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let mut position = 0;
    runs.each(&mut |run| {
        let mut section = runs::section(run, position);
        position += 1;
        units::put_in(std::slice::from_mut(&mut section), unit);
        each(section)
    })
}

/// The overview and the sections over every run, their latencies still in nanoseconds.
fn sections_over_every_run(doc: &Document) -> ReportView {
    // What the groups found is the report's answer (a check's findings, a sweep's curve, an
    // A/B verdict), so the groups lead and the runs by kind follow. A report of one run is that
    // run's section alone: a kind's table and rankings of one run would only repeat it.
    let mut sections = groups::sections(doc);
    if doc.runs.len() > 1 || !doc.groups.is_empty() {
        sections.extend(kinds::sections(doc));
    }
    let contents = sections.iter().filter(|s| s.level == 2).map(|s| (s.anchor.clone(), s.title.clone())).collect();
    ReportView {
        title: if doc.title.is_empty() { "spindle report".into() } else { doc.title.clone() },
        generated_at: doc.generated_at.clone(),
        overview: overview(doc),
        contents,
        sections,
        latency_unit: LatencyUnit::default(),
    }
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
