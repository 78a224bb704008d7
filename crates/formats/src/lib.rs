//! Pure readers and writers of other tools' files: `&str` in, data out, no I/O, so every one
//! can be fuzzed and tested on the real files in testdata.

mod delimited;
pub mod perfmon;

pub use perfmon::{CounterTable, ParseError};
