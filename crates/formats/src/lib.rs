//! Pure readers and writers of other tools' files: `&str` in, data out, no I/O, so every one
//! can be fuzzed and tested on the real files in testdata.

pub mod batch;
mod delimited;
pub mod foreign;
pub mod icf;
pub mod iostat;
pub mod parallel;
pub mod perfmon;
pub mod sadf;
pub mod stream;

pub use perfmon::{CounterTable, ParseError};

/// Any counter log spindle reads, told apart by its first bytes: a perfmon CSV/TSV (also what
/// `spindle record` writes), `iostat -x` text or `iostat -x -o JSON`, or `sadf -d` disk
/// records.
pub fn read_counter_log(text: &str) -> Result<CounterTable, ParseError> {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    if start.starts_with('{') {
        iostat::parse_json(text)
    } else if start.starts_with("\"(PDH-") {
        perfmon::parse(text)
    } else if start.starts_with("Linux ") || start.starts_with("# hostname;") {
        // Text whose rows span lines is read as a stream reads it, a line at a time.
        stream::read_lines(text)
    } else if start.is_empty() {
        Err(ParseError("the file is empty".into()))
    } else {
        Err(ParseError(
            "not a counter log spindle reads (a perfmon CSV/TSV, spindle record's CSV, iostat -x text or JSON, sadf -d)"
                .into(),
        ))
    }
}
