//! One exporter abstraction: a format is a type that writes a report's runs as they are read
//! (a `RunSource`, run by run), chosen once from the command line (`--json`, `--csv`,
//! `-o report.html`) and never branched on again.

use crate::document::{Document, RunSource};
use std::fmt;
use std::path::Path;

/// Why an exporter could not produce its bytes (only the XLSX writer can fail).
#[derive(Debug)]
pub struct ExportError(pub String);

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExportError {}

impl From<std::io::Error> for ExportError {
    fn from(e: std::io::Error) -> ExportError {
        ExportError(format!("cannot write the report: {e}"))
    }
}

pub trait Exporter {
    /// Writes the report to `out` as its runs are read: what is held at once is a run (and,
    /// for the formats with sections over every run, a slim copy of each).
    fn write(&self, runs: &dyn RunSource, out: &mut dyn std::io::Write) -> Result<(), ExportError>;

    /// The report of runs already in memory, as bytes.
    fn export(&self, doc: &Document) -> Result<Vec<u8>, ExportError> {
        let mut bytes = Vec::new();
        self.write(doc, &mut bytes)?;
        Ok(bytes)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The report `spindle io` prints on a terminal.
    Text,
    /// Run records (one object, or an array of several): docs/run-record.schema.json.
    Json,
    /// One row per scope of each run, plain numbers in base units.
    Csv,
    /// Tables of every figure, for a wiki or a ticket.
    Markdown,
    /// One self-contained page with charts, for a browser or a printer.
    Html,
    /// A workbook with a sheet per kind of run and native charts.
    Xlsx,
}

impl Format {
    pub const ALL: [Format; 6] =
        [Format::Text, Format::Json, Format::Csv, Format::Markdown, Format::Html, Format::Xlsx];

    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Xlsx => "xlsx",
        }
    }

    /// By name (`html`, `xlsx`, `csv`, `md`/`markdown`, `json`, `text`/`txt`).
    pub fn parse(name: &str) -> Option<Format> {
        match name.to_ascii_lowercase().as_str() {
            "markdown" => Some(Format::Markdown),
            "txt" => Some(Format::Text),
            "htm" => Some(Format::Html),
            other => Format::ALL.into_iter().find(|f| f.name() == other),
        }
    }

    /// By a file's extension.
    pub fn of_path(path: &Path) -> Option<Format> {
        Format::parse(path.extension()?.to_str()?)
    }

    pub fn exporter(self) -> &'static dyn Exporter {
        match self {
            Format::Text => &crate::text::TextExporter,
            Format::Json => &crate::json::JsonExporter,
            Format::Csv => &crate::csv::CsvExporter,
            Format::Markdown => &crate::markdown::MarkdownExporter,
            Format::Html => &crate::html::HtmlExporter,
            #[cfg(feature = "xlsx")]
            Format::Xlsx => &crate::xlsx::XlsxExporter,
            #[cfg(not(feature = "xlsx"))]
            Format::Xlsx => &NotBuilt { what: "Excel workbooks", feature: "xlsx" },
        }
    }
}

/// A format this build lacks: asking for it says which cargo feature brings it.
#[cfg(not(feature = "xlsx"))]
struct NotBuilt {
    what: &'static str,
    feature: &'static str,
}

#[cfg(not(feature = "xlsx"))]
impl Exporter for NotBuilt {
    fn write(&self, _: &dyn RunSource, _: &mut dyn std::io::Write) -> Result<(), ExportError> {
        Err(ExportError(format!(
            "this spindle was built without {} (cargo feature `{}`); build it with `cargo build --release --features {}`, or with the default features",
            self.what, self.feature, self.feature
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_name_and_extension() {
        for f in Format::ALL {
            assert_eq!(Format::parse(f.name()), Some(f));
        }
        assert_eq!(Format::of_path(Path::new("out/Report.HTML")), Some(Format::Html));
        assert_eq!(Format::of_path(Path::new("r.markdown")), Some(Format::Markdown));
        assert_eq!(Format::of_path(Path::new("r.pdf")), None);
        assert_eq!(Format::of_path(Path::new("noext")), None);
    }
}
