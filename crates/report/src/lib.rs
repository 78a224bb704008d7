//! Exporters: pure functions from run records to bytes (text, JSON, CSV, Markdown, HTML,
//! XLSX), one `Exporter` per `Format`. They never measure and never touch
//! files, so every output format can be produced again from stored records.

mod compare;
mod counters;
mod csv;
mod document;
mod figures;
mod format;
mod group;
mod html;
mod json;
pub mod lead;
mod markdown;
pub mod served;
mod sweep;
mod text;
mod verify;
pub mod view;
#[cfg(feature = "xlsx")]
mod xlsx;

pub use compare::render_compare;
pub use csv::render_csv;
pub use document::{Document, Heading, ReportGroup, ReportRun, RunSource};
pub use format::{ExportError, Exporter, Format};
pub use group::{CheckFinding, CheckSource, Findings, GroupInput, GroupRun, GroupView, group_view, render_group};
pub use html::escape::esc;
pub use html::{Frame, render_framed};
pub use json::{render_json, write_json};
pub use sweep::{SweepDocument, render_sweep, render_sweep_json};
pub use text::{render_overview, render_text};
pub use verify::{render_verification, render_verification_judging};

#[cfg(test)]
mod schema_tests;
