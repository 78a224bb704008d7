//! Any text as a counter log (perfmon CSV/TSV, iostat text or JSON) or an IOMeter .icf file;
//! whatever parses is characterized or written back: no panic, every kept row has as many
//! values as there are columns, and written .icf files read back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle_analysis::characterize::{Options, characterize};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(table) = spindle_formats::read_counter_log(&text) {
        assert!(table.rows.iter().all(|r| r.len() == table.columns.len()));
        for c in &table.columns {
            let _ = spindle_formats::perfmon::split_path(c);
        }
        let _ = characterize(&table, &Options { min_queue: 2.0, coverage_pct: 80.0, ..Options::default() });
    }
    if let Ok(specs) = spindle_formats::icf::parse_icf(&text) {
        let names_are_plain = specs.iter().all(|s| !s.name.contains(['\n', '\r', ',']) && s.name.trim() == s.name);
        if names_are_plain {
            let again = spindle_formats::icf::parse_icf(&spindle_formats::icf::write_icf(&specs));
            assert_eq!(again.ok(), Some(specs));
        }
    }
});
