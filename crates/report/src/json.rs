//! The run record as JSON: the stable, versioned form (docs/run-record.schema.json).

use crate::document::RunSource;
use crate::format::{ExportError, Exporter};
use spindle_model::{Recorded, RunRecord};
use std::io::Write;

/// One run as its record; several (a sweep, a suite, repeats) as one JSON array.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn write(&self, runs: &dyn RunSource, out: &mut dyn Write) -> Result<(), ExportError> {
        write_json(runs, out)
    }
}

/// The export's bytes, written to `out` as the runs are read, a record at a time: a thousand
/// Hammer sessions' record is 8 MB of text, and a download may hold ten thousand runs. The
/// array is written as `serde_json`'s pretty printer writes a whole one (each record
/// indented a level), so the file is the same either way.
pub fn write_json(runs: &dyn RunSource, out: &mut dyn Write) -> Result<(), ExportError> {
    if runs.count() == 1 {
        let mut first = true;
        runs.each(&mut |r| {
            if std::mem::take(&mut first) {
                serde_json::to_writer_pretty(&mut *out as &mut dyn Write, &Shown(&r.record)).map_err(io_error)?;
            }
            Ok(())
        })?;
        out.write_all(b"\n")?;
        return Ok(());
    }
    let mut first = true;
    runs.each(&mut |r| {
        out.write_all(if std::mem::take(&mut first) { b"[\n  " } else { b",\n  " })?;
        serde_json::to_writer_pretty(&mut Indented(&mut *out) as &mut dyn Write, &Shown(&r.record))
            .map_err(io_error)?;
        Ok(())
    })?;
    out.write_all(if first { b"[]\n" } else { b"\n]\n" })?;
    Ok(())
}

fn io_error(e: serde_json::Error) -> ExportError {
    ExportError::from(std::io::Error::from(e))
}

/// A writer that indents every line after the first by a level (two spaces): a record
/// pretty-printed as an element of the array. Pretty JSON breaks lines only between its
/// tokens (a line break in a string is written `\n`).
struct Indented<'a>(&'a mut dyn Write);

impl Write for Indented<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(at) = rest.iter().position(|b| *b == b'\n') {
            self.0.write_all(&rest[..=at])?;
            self.0.write_all(b"  ")?;
            rest = &rest[at + 1..];
        }
        self.0.write_all(rest)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
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
    serde_json::to_writer_pretty(&mut bytes as &mut dyn Write, value).expect("a run record always serializes");
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use spindle_model::fixtures::record;

    #[test]
    fn runs_written_one_at_a_time_are_the_array_serde_writes_whole() {
        for n in 0..4 {
            let mut records: Vec<RunRecord> = (0..n).map(|_| record()).collect();
            if let Some(r) = records.first_mut() {
                r.labels.insert("note".into(), "a line\nbreak".into());
            }
            let doc = Document::of_records(&records);
            let mut streamed = Vec::new();
            write_json(&doc, &mut streamed).unwrap();
            let whole = match records.as_slice() {
                [one] => pretty(&Shown(one)),
                many => pretty(&many.iter().map(Shown).collect::<Vec<_>>()),
            };
            assert_eq!(String::from_utf8(streamed).unwrap(), String::from_utf8(whole).unwrap(), "{n} runs");
        }
    }
}
