//! The run record as JSON: the stable, versioned form (docs/run-record.schema.json).

use crate::document::Document;
use crate::format::{ExportError, Exporter};
use spindle_model::RunRecord;

/// One run as its record; several (a sweep, a suite, repeats) as one JSON array.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, doc: &Document) -> Result<Vec<u8>, ExportError> {
        Ok(match doc.runs.as_slice() {
            [one] => render_json(&one.record),
            many => finish(serde_json::to_vec_pretty(&many.iter().map(|r| &r.record).collect::<Vec<_>>())),
        })
    }
}

pub fn render_json(record: &RunRecord) -> Vec<u8> {
    finish(serde_json::to_vec_pretty(record))
}

fn finish(bytes: serde_json::Result<Vec<u8>>) -> Vec<u8> {
    // A record holds only strings, numbers, maps with string keys and finite floats, none of
    // which serde_json can fail on.
    let mut bytes = bytes.expect("a run record always serializes");
    bytes.push(b'\n');
    bytes
}
