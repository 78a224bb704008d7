//! The run record as JSON: the stable, versioned form (docs/run-record.schema.json).

use crate::document::Document;
use crate::format::{ExportError, Exporter};
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
        let recorded = self.0.recorded();
        let latency = Recorded { cpu: recorded.cpu, environment: recorded.environment, ..Recorded::ALL };
        if recorded == latency {
            // Every latency recorded: written as it is, without a copy.
            return self.0.serialize(serializer);
        }
        let mut copy = self.0.clone();
        let stats = std::iter::once((&mut copy.summary, recorded))
            .chain(copy.targets.iter_mut().map(|t| (&mut t.stats, recorded)))
            .chain(copy.threads.iter_mut().map(|t| (&mut t.stats, recorded.of_thread())));
        for (s, shown) in stats {
            for l in [&mut s.latency_ns, &mut s.read.latency_ns, &mut s.write.latency_ns] {
                l.shown = Some(shown);
            }
        }
        copy.serialize(serializer)
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
