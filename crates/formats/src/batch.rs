//! A counter log's lines read apart from the lines before them, so runs of lines can be
//! parsed on other threads: a `Body` turns each line into its fields as numbers (the work:
//! a one-second log is millions of them), and the format's reader on the caller's thread
//! folds the `Batch` in the log's order (which report or timestamp a line belongs to, the
//! devices found so far: the part that needs the lines before). Reading a line at a time goes
//! the same way, a batch of one line, so both ways give the same rows by construction.

use crate::{iostat, perfmon, sadf};

/// How a format's lines after its header are read apart (`LogReader::body`): each line on its
/// own, whatever came before it.
#[derive(Clone)]
pub enum Body {
    /// A perfmon log after its header: a sample a line, `width` values each.
    Perfmon { sep: char, width: usize, values: Vec<Option<f64>> },
    /// `iostat -x` text after its first line: headers, device lines, times and CPU lines.
    Iostat,
    /// `sadf -d` records: headers and a record a line.
    Sadf,
}

impl Body {
    /// A run of whole lines (the last may lack its `\n`), into `batch` (cleared first), the
    /// first numbered 1.
    pub fn lines(&mut self, text: &str, batch: &mut Batch) {
        batch.clear();
        for line in text.split_inclusive('\n') {
            self.line(line, batch);
        }
    }

    /// One line (with or without its `\n`), added to `batch`.
    pub(crate) fn line(&mut self, line: &str, batch: &mut Batch) {
        batch.lines += 1;
        let line = line.strip_suffix('\n').unwrap_or(line);
        match self {
            Body::Perfmon { sep, width, values } => {
                if line.trim().is_empty() {
                    return;
                }
                match perfmon::row_into(line.trim_end_matches('\r'), *sep, *width, values) {
                    Some(time) => batch.push(Kind::Fields, &time, values.iter().copied()),
                    None => batch.push(Kind::Malformed, "", []),
                }
            }
            Body::Iostat => iostat::read_line(line, batch),
            Body::Sadf => sadf::read_line(line, batch),
        }
    }
}

/// What a line was read as.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// Fields, as the format reads them: a perfmon sample (its time, its values); an iostat
    /// or sadf line (the line, its fields as numbers where they are).
    Fields,
    /// A line naming the columns of the lines after it (iostat's `Device ...`, sadf's `# ...`).
    Header,
    /// A perfmon line that is not a sample.
    Malformed,
    /// A line with no text.
    Blank,
}

/// One line of a batch, as a format's reader folds it.
pub(crate) struct Line<'a> {
    /// Its number in the run, from 1.
    pub(crate) no: usize,
    pub(crate) kind: Kind,
    pub(crate) text: &'a str,
    pub(crate) numbers: &'a [Option<f64>],
}

/// Where a line's text and numbers are in its batch.
struct Item {
    no: usize,
    kind: Kind,
    text_end: usize,
    numbers_end: usize,
}

/// A run of lines read apart, kept to be folded after the runs before it: texts end to end in
/// one string and numbers in one vector, so a run of thousands of lines is a few allocations,
/// reused run after run.
#[derive(Default)]
pub struct Batch {
    /// The run's lines.
    lines: usize,
    items: Vec<Item>,
    text: String,
    numbers: Vec<Option<f64>>,
}

impl Batch {
    pub(crate) fn clear(&mut self) {
        self.lines = 0;
        self.items.clear();
        self.text.clear();
        self.numbers.clear();
    }

    /// The lines of the run.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// The line being read: what it was read as, its text and its numbers.
    pub(crate) fn push(&mut self, kind: Kind, text: &str, numbers: impl IntoIterator<Item = Option<f64>>) {
        self.text.push_str(text);
        self.numbers.extend(numbers);
        self.items.push(Item { no: self.lines, kind, text_end: self.text.len(), numbers_end: self.numbers.len() });
    }

    /// The lines read, in order.
    pub(crate) fn items(&self) -> impl Iterator<Item = Line<'_>> {
        let mut text_start = 0;
        let mut numbers_start = 0;
        self.items.iter().map(move |item| {
            let line = Line {
                no: item.no,
                kind: item.kind,
                text: self.text.get(text_start..item.text_end).unwrap_or_default(),
                numbers: self.numbers.get(numbers_start..item.numbers_end).unwrap_or_default(),
            };
            text_start = item.text_end;
            numbers_start = item.numbers_end;
            line
        })
    }
}
