//! Any text as a counter log (perfmon CSV/TSV, iostat text or JSON, sadf); whatever parses
//! is characterized: no panic, and every kept row has as many values as there are columns
//! (.icf files have a target of their own, `icf`). Read a line
//! at a time (`stream::LogReader`, as `spindle characterize` reads), the text gives the same
//! table, or the same error, as it does read in runs of lines parsed apart (as `spindle
//! characterize` reads on threads), and the method folding its rows as they come gives the
//! same profiles as over the whole table.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle_analysis::characterize::{Characterizer, Options, characterize};
use spindle_formats::stream::{LogReader, read_lines, read_runs};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let opts = Options { min_queue: 2.0, coverage_pct: 80.0, ..Options::default() };
    let whole = spindle_formats::read_counter_log(&text);
    assert_eq!(read_lines(&text), whole);
    for run in [1, 3] {
        assert_eq!(read_runs(&text, run), whole);
    }
    if let Ok(table) = &whole {
        let mut reader = LogReader::new();
        let mut method = Characterizer::new(opts.clone());
        for line in text.split_inclusive('\n') {
            reader.line(line, &mut method).unwrap();
        }
        reader.finish(&mut method).unwrap();
        assert_eq!(format!("{:?}", method.finish()), format!("{:?}", characterize(table, &opts)));
    }
    if let Ok(table) = whole {
        assert!(table.rows.iter().all(|r| r.len() == table.columns.len()));
        for c in &table.columns {
            let _ = spindle_formats::perfmon::split_path(c);
        }
        let _ = characterize(&table, &opts);
    }
});
