//! The run record as JSON: the stable, versioned form (docs/run-record.schema.json).

use crate::document::Document;
use crate::format::{ExportError, Exporter};
use serde_json::Value;
use spindle_model::{Recorded, RunRecord};

/// One run as its record; several (a sweep, a suite, repeats) as one JSON array.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, doc: &Document) -> Result<Vec<u8>, ExportError> {
        let mut bytes = Vec::new();
        write_json(doc, &mut bytes).map_err(|e| ExportError(e.to_string()))?;
        Ok(bytes)
    }
}

/// The export's bytes, written to `out` as they are made: a thousand Hammer sessions' record
/// is 8 MB of text, which a whole `Vec` (grown by doubling) held at the run's end as its
/// client's peak memory.
pub fn write_json(doc: &Document, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    match doc.runs.as_slice() {
        [one] => serde_json::to_writer_pretty(&mut *out, &Shown(&one.record))?,
        many => serde_json::to_writer_pretty(&mut *out, &many.iter().map(|r| Shown(&r.record)).collect::<Vec<_>>())?,
    }
    out.write_all(b"\n")
}

pub fn render_json(record: &RunRecord) -> Vec<u8> {
    pretty(&Shown(record))
}

/// A record as the export writes it: each latency figure the run did not record (another
/// tool's, or of a run that completed no operation: `RunRecord::recorded`) null, not the 0 the
/// record holds for it (null reads back as 0, so `spindle import` takes the export).
struct Shown<'a>(&'a RunRecord);

impl serde::Serialize for Shown<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let unrecorded = unrecorded(self.0.recorded());
        if unrecorded.is_empty() {
            // Written as it is, without a copy as a JSON tree.
            return self.0.serialize(serializer);
        }
        let mut json = serde_json::to_value(self.0).map_err(serde::ser::Error::custom)?;
        null_unrecorded(&mut json, &unrecorded);
        json.serialize(serializer)
    }
}

/// The names, in a `latency_ns` object, of the figures `recorded` says were not recorded.
fn unrecorded(recorded: Recorded) -> Vec<&'static str> {
    let percentiles = ["p50", "p90", "p95", "p99", "p99_9", "p99_99"].map(|p| (p, recorded.percentiles));
    [("min", recorded.min), ("mean", recorded.latency), ("max", recorded.max), ("stddev", recorded.stddev)]
        .into_iter()
        .chain(percentiles)
        .filter_map(|(name, ok)| (!ok).then_some(name))
        .collect()
}

/// Nulls `names` in the latencies of a record's summary, targets and threads (each with its
/// reads and writes).
fn null_unrecorded(record: &mut Value, names: &[&str]) {
    let Some(record) = record.as_object_mut() else { return };
    for (key, value) in record.iter_mut() {
        let stats: Vec<&mut Value> = match key.as_str() {
            "summary" => vec![value],
            "targets" | "threads" => {
                value.as_array_mut().into_iter().flatten().filter_map(|t| t.get_mut("stats")).collect()
            }
            _ => continue,
        };
        for s in stats.into_iter().filter_map(Value::as_object_mut) {
            for (key, value) in s.iter_mut() {
                let mut latency = match key.as_str() {
                    "latency_ns" => Some(value),
                    "read" | "write" => value.get_mut("latency_ns"),
                    _ => None,
                };
                for name in names {
                    if let Some(figure) = latency.as_deref_mut().and_then(|l| l.get_mut(*name)) {
                        *figure = Value::Null;
                    }
                }
            }
        }
    }
}

/// `value` as pretty JSON and a newline. Written through `dyn Write`, as [`write_json`]
/// writes, so the report compiles one pretty serializer of the record, not one per writer.
pub(crate) fn pretty(value: &impl serde::Serialize) -> Vec<u8> {
    let mut bytes = Vec::new();
    // A record holds only strings, numbers, maps with string keys and finite floats, none of
    // which serde_json can fail on.
    serde_json::to_writer_pretty(&mut bytes as &mut dyn std::io::Write, value).expect("a run record always serializes");
    bytes.push(b'\n');
    bytes
}
