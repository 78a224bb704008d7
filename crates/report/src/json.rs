//! The run record as JSON: the stable, versioned form (docs/run-record.schema.json).

use spindle_model::RunRecord;

pub fn render_json(record: &RunRecord) -> Vec<u8> {
    finish(serde_json::to_vec_pretty(record))
}

/// Several records (a sweep, a suite, repeats) as one JSON array.
pub fn render_json_many(records: &[RunRecord]) -> Vec<u8> {
    finish(serde_json::to_vec_pretty(records))
}

fn finish(bytes: serde_json::Result<Vec<u8>>) -> Vec<u8> {
    // A record holds only strings, numbers, maps with string keys and finite floats, none of
    // which serde_json can fail on.
    let mut bytes = bytes.expect("a run record always serializes");
    bytes.push(b'\n');
    bytes
}
