//! Exporters: pure functions from run records to bytes. They never measure and never touch
//! files, so every output format can be produced again from stored records.

mod csv;
mod json;
mod text;

pub use csv::render_csv;
pub use json::{render_json, render_json_many};
pub use text::render_text;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod schema_tests;
