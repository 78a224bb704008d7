//! The check's answer as the user gets it: pure views of the one `Answer`, which computes no
//! figure of its own (the HTML report is `spindle_report`'s, drawn from the store).

mod json;
mod summary;

pub use json::{SCHEMA, json};
pub use summary::{render, verdict_line};
