//! Exporters: pure functions from run records to bytes. They never measure and never touch
//! files, so every output format can be produced again from stored records.

mod compare;
mod counters;
mod csv;
mod group;
mod json;
mod page_cache;
mod sweep;
mod text;

pub use compare::render_compare;
pub use csv::render_csv;
pub use group::{Findings, GroupInput, GroupRun, GroupView, group_view, render_group};
pub use json::{render_json, render_json_many};
pub use page_cache::page_cache_finding;
pub use sweep::{SweepDocument, render_sweep, render_sweep_json};
pub use text::{render_overview, render_text};

#[cfg(test)]
mod schema_tests;
