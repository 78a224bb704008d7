//! A counter log read a line at a time, so a log of any length (a month of one-second samples
//! is gigabytes) is read in bounded memory: each sample is handed on as it is read and
//! forgotten. Still pure: lines in, rows out, no I/O. The formats are told apart as
//! `read_counter_log` tells them (by their first text), and the rows are the ones its table
//! has, in order:
//!
//! - perfmon CSV/TSV (and `spindle record`'s CSV): the header, then a row a line;
//! - `iostat -x` text: a row a report, handed on when the next report begins (the first,
//!   since boot, is held until a second shows it is not the only one, then dropped);
//! - `sadf -d`: a row a timestamp, handed on when the next timestamp begins;
//! - `iostat -o JSON` is one document: it is kept whole (at most `JSON_LIMIT` bytes) and read
//!   at the end.
//!
//! Once a text log's header is read (`body`), its lines can be read apart from the lines
//! before them, in runs on other threads (`Body::lines`), and folded here in order
//! (`replay`); a line given on its own goes the same way, as a run of one line.
//!
//! iostat and sadf find their devices as they go, so their columns grow: a row has the values
//! of the columns known when it was handed on, and later columns are missing from it.

use crate::batch::{Batch, Body, Kind};
use crate::perfmon::{self, CounterTable, ParseError};
use crate::{iostat, sadf};

/// The most of an iostat JSON document kept to be read whole.
pub const JSON_LIMIT: usize = 64 << 20;

/// Where a counter log's reader hands its columns and samples.
pub trait RowSink {
    /// The columns so far, each time they grow (the new ones are at the end).
    fn columns(&mut self, columns: &[String]);
    /// One sample: its time and the values of the columns so far.
    fn row(&mut self, time: &str, values: &[Option<f64>]);
    /// A line that is not a sample (1-based line number).
    fn skipped(&mut self, line: usize);
    /// Whether the sink wants no more of the log (a reader then stops as soon as it can).
    fn stopped(&self) -> bool {
        false
    }
}

/// Reads a counter log line by line: `line` for each line as `str::split_inclusive('\n')`
/// gives them (with or without the `\n`), or runs of lines read apart (`body`, `replay`);
/// then `finish`.
#[derive(Default)]
pub struct LogReader {
    /// Lines given so far.
    lines: usize,
    state: State,
    /// How the lines after those given so far are read, once they can be read apart.
    body: Option<Body>,
    /// A line given on its own, read as a run of one line.
    one: Batch,
}

#[derive(Default)]
enum State {
    /// No text yet: the first line, if it was blank (it may hold a byte-order mark, which
    /// the formats treat each their own way), and how many blank lines followed it.
    #[default]
    Start,
    Leading {
        first: String,
        blank: usize,
    },
    Perfmon(Perfmon),
    Iostat(iostat::TextReader),
    Sadf(sadf::Reader),
    Json(String),
}

impl LogReader {
    pub fn new() -> LogReader {
        LogReader::default()
    }

    /// The next line of the log (its `\n`, if any, is ignored).
    pub fn line(&mut self, line: &str, sink: &mut impl RowSink) -> Result<(), ParseError> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        self.lines += 1;
        let no = self.lines;
        if !matches!(self.state, State::Start | State::Leading { .. }) {
            return self.read(no, line, sink);
        }
        // The text before the first line with any is what read_counter_log looks past.
        let text = if no == 1 { line.trim_start_matches('\u{feff}') } else { line };
        if text.trim_start().is_empty() {
            match &mut self.state {
                State::Leading { blank, .. } => *blank += 1,
                _ => self.state = State::Leading { first: line.to_string(), blank: 0 },
            }
            return Ok(());
        }
        let start = text.trim_start();
        let state = if start.starts_with('{') {
            State::Json(String::new())
        } else if start.starts_with("Linux ") {
            State::Iostat(iostat::TextReader::default())
        } else if start.starts_with("\"(PDH-") {
            State::Perfmon(Perfmon::default())
        } else if start.starts_with("# hostname;") {
            self.body = Some(Body::Sadf);
            State::Sadf(sadf::Reader::default())
        } else {
            return Err(not_a_counter_log());
        };
        // The lines before, as they were, then this one.
        let mut n = 0;
        if let State::Leading { first, blank } = std::mem::replace(&mut self.state, state) {
            n += 1;
            self.read(n, &first, sink)?;
            for _ in 0..blank {
                n += 1;
                self.read(n, "", sink)?;
            }
        }
        self.read(n + 1, line, sink)
    }

    /// Line `no` of a log whose format is known: through its body once it has one, else as
    /// the format reads what comes before its body.
    fn read(&mut self, no: usize, line: &str, sink: &mut impl RowSink) -> Result<(), ParseError> {
        if let Some(body) = &mut self.body {
            self.one.clear();
            body.line(line, &mut self.one);
            return fold(&mut self.state, &self.one, no - 1, sink);
        }
        self.body = match &mut self.state {
            State::Perfmon(p) => p.header_line(no, line, sink)?,
            State::Iostat(r) => r.first_line(line)?,
            State::Json(text) => {
                if text.len() + line.len() >= JSON_LIMIT {
                    return Err(ParseError(format!(
                        "iostat JSON is one document, read whole, and this one is over {} MiB: record iostat -x as text (without -o JSON), which is read as it goes, or cut the log",
                        JSON_LIMIT >> 20
                    )));
                }
                text.push_str(line);
                text.push('\n');
                None
            }
            State::Sadf(_) | State::Start | State::Leading { .. } => None,
        };
        Ok(())
    }

    /// How the lines after those given so far can be read apart, when they can: once a text
    /// log's header is read. `None` before, and for iostat JSON (one document).
    pub fn body(&self) -> Option<Body> {
        self.body.clone()
    }

    /// A run of the lines after those given so far, read apart (`body().lines`), folded into
    /// `sink` as if its lines were given one by one.
    pub fn replay(&mut self, batch: &Batch, sink: &mut impl RowSink) -> Result<(), ParseError> {
        fold(&mut self.state, batch, self.lines, sink)?;
        self.lines += batch.lines();
        Ok(())
    }

    /// The lines given so far.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// The end of the log: what is held is handed on; `Err` when the log had no samples its
    /// format needs (or no text at all). On success, the log's format (perfmon's first header
    /// cell, `iostat -x`, ...).
    pub fn finish(self, sink: &mut impl RowSink) -> Result<String, ParseError> {
        match self.state {
            State::Start | State::Leading { .. } => Err(ParseError("the file is empty".into())),
            State::Perfmon(p) => Ok(p.format),
            State::Iostat(r) => r.finish(sink),
            State::Sadf(r) => r.finish(sink),
            State::Json(text) => {
                let table = iostat::parse_json(&text)?;
                sink.columns(&table.columns);
                for (time, row) in table.times.iter().zip(&table.rows) {
                    sink.row(time, row);
                }
                Ok(table.format)
            }
        }
    }
}

fn not_a_counter_log() -> ParseError {
    ParseError(
        "not a counter log spindle reads (a perfmon CSV/TSV, spindle record's CSV, iostat -x text or JSON, sadf -d)"
            .into(),
    )
}

/// A run of lines read apart, into the format's reader in order; `before` is the number of the
/// log's lines before the run.
fn fold(state: &mut State, batch: &Batch, before: usize, sink: &mut impl RowSink) -> Result<(), ParseError> {
    for line in batch.items() {
        let no = before + line.no;
        match state {
            State::Perfmon(_) => match line.kind {
                Kind::Fields => sink.row(line.text, line.numbers),
                Kind::Malformed => sink.skipped(no),
                Kind::Header | Kind::Blank => {}
            },
            State::Iostat(r) => r.fold(no, &line, sink),
            State::Sadf(r) => r.fold(no, &line, sink)?,
            State::Json(_) | State::Start | State::Leading { .. } => {}
        }
    }
    Ok(())
}

/// A perfmon CSV/TSV: its header, then a row a line.
#[derive(Default)]
struct Perfmon {
    format: String,
}

impl Perfmon {
    /// A line before the samples: blank, or the header, after which the samples are read apart.
    fn header_line(&mut self, no: usize, line: &str, sink: &mut impl RowSink) -> Result<Option<Body>, ParseError> {
        // perfmon::parse drops one byte-order mark from the start of the text.
        let line = if no == 1 { line.strip_prefix('\u{feff}').unwrap_or(line) } else { line };
        if line.trim().is_empty() {
            return Ok(None);
        }
        let (format, columns, sep) = perfmon::header(line.trim_end_matches(['\n', '\r']))?;
        self.format = format;
        sink.columns(&columns);
        Ok(Some(Body::Perfmon { sep, width: columns.len(), values: Vec::new() }))
    }
}

/// A sink that keeps everything: the table `read_counter_log` gives (rows padded to the
/// final columns).
#[derive(Default)]
pub struct TableSink(pub CounterTable);

impl RowSink for TableSink {
    fn columns(&mut self, columns: &[String]) {
        self.0.columns = columns.to_vec();
    }
    fn row(&mut self, time: &str, values: &[Option<f64>]) {
        self.0.times.push(time.to_string());
        self.0.rows.push(values.to_vec());
    }
    fn skipped(&mut self, line: usize) {
        self.0.skipped.push(line);
    }
}

impl TableSink {
    /// The table, its rows padded to the final columns.
    pub fn into_table(self, format: String) -> CounterTable {
        let mut table = self.0;
        table.format = format;
        let width = table.columns.len();
        for row in &mut table.rows {
            row.resize(width, None);
        }
        table
    }
}

/// `text` through a `LogReader`, kept whole: what streaming reads, as a table.
pub fn read_lines(text: &str) -> Result<CounterTable, ParseError> {
    let mut reader = LogReader::new();
    let mut sink = TableSink::default();
    for line in text.split_inclusive('\n') {
        reader.line(line, &mut sink)?;
    }
    let format = reader.finish(&mut sink)?;
    Ok(sink.into_table(format))
}

/// `text` read as `spindle characterize` reads a large log, on this thread: a line at a time
/// until its lines can be read apart, then in runs of `run` lines, each read into a batch of
/// its own and folded in order. The same table as `read_lines`, whatever `run` is.
pub fn read_runs(text: &str, run: usize) -> Result<CounterTable, ParseError> {
    let mut reader = LogReader::new();
    let mut sink = TableSink::default();
    let mut lines = text.split_inclusive('\n');
    let mut body = None;
    while body.is_none() {
        let Some(line) = lines.next() else { break };
        reader.line(line, &mut sink)?;
        body = reader.body();
    }
    if let Some(mut body) = body {
        let mut batch = Batch::default();
        let rest: Vec<&str> = lines.collect();
        for part in rest.chunks(run.max(1)) {
            body.lines(&part.concat(), &mut batch);
            reader.replay(&batch, &mut sink)?;
        }
    }
    let format = reader.finish(&mut sink)?;
    Ok(sink.into_table(format))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real logs in testdata, and edge cases, read line by line give `read_counter_log`'s
    /// table.
    #[test]
    fn line_by_line_gives_the_whole_files_table() {
        let mut texts: Vec<String> = [
            include_str!("../testdata/Narmadha6790_DataCollector01.csv"),
            include_str!("../testdata/jg185342_DataCollector02.csv"),
            include_str!("../testdata/jc_centos-7.7_iostat-x.out"),
            include_str!("../testdata/jc_ubuntu-18.04_iostat-x.out"),
            include_str!("../testdata/jc_ubuntu-20.10_iostat-x.out"),
            include_str!("../testdata/sysstat_expected.iostat-x-p-ALL-JSON"),
        ]
        .map(String::from)
        .to_vec();
        // Two iostat reports (the first dropped) with a device only in the second, and a bad line.
        texts.push("Linux 6.1 (h) \t01/01/2026\n\nDevice r/s w/s\nsda 1 2\nold 3 4\n\nDevice r/s w/s\nsda 5 6\nsdb 7 x\nsdc 8 9\n".into());
        texts.push(
            "# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s;dkB/s;areq-sz;aqu-sz;await;%util\n\
db01;60;2026-11-23 06:01:00 UTC;sda;120.50;800.00;1600.00;0.00;19.92;1.50;12.45;35.00\n\
db01;60;2026-11-23 06:01:00 UTC;sdb;10.00;0.00;40.00;0.00;4.00;0.01;0.50;1.00\n\
db01;60;2026-11-23 06:02:00 UTC;sda;100.00;400.00;400.00;0.00;8.00;0.90;9.00;30.00\nbad\n"
                .into(),
        );
        for text in [
            "\u{feff}\n \r\n\"(PDH-CSV 4.0)\",\"\\\\H\\Memory\\Pages/sec\"\r\r\n\"t1\",\"1\"\n\n\"t2\",\"x\"\n\"t3\",\"2,5\"",
            "\"(PDH-TSV 4.0)\"\t\"\\\\H\\Memory\\Pages/sec\"\n\"t\"\t\"3\"\n",
            "\u{feff}\u{feff}\n\"(PDH-CSV 4.0)\"\n",
            "\u{feff}Linux 6.1 (h)\n",
            "  {\"sysstat\": {}}",
            "",
            "\n\n  \n",
            "my data\n",
        ] {
            texts.push(text.into());
        }
        for text in &texts {
            let whole = crate::read_counter_log(text);
            assert_eq!(read_lines(text), whole, "{text:?}");
            for run in [1, 2, 7] {
                assert_eq!(read_runs(text, run), whole, "{text:?} in runs of {run} lines");
            }
        }
    }

    #[test]
    fn json_is_read_whole_within_its_limit() {
        let mut reader = LogReader::new();
        let mut sink = TableSink::default();
        reader.line("{\"sysstat\":\n", &mut sink).unwrap();
        let long = " ".repeat(1 << 20);
        let e = (0..70).try_for_each(|_| reader.line(&long, &mut sink)).unwrap_err();
        assert!(e.0.contains("over 64 MiB") && e.0.contains("as text"), "{e}");
    }
}
