//! Any text as a counter log (perfmon CSV/TSV, iostat text or JSON), and whatever parses,
//! characterized: no panic, and every kept row has as many values as there are columns.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle_counters::characterize::{Options, characterize};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(table) = spindle_formats::read_counter_log(&text) {
        assert!(table.rows.iter().all(|r| r.len() == table.columns.len()));
        for c in &table.columns {
            let _ = spindle_formats::perfmon::split_path(c);
        }
        let _ = characterize(&table, &Options { device: None, min_queue: 2.0, coverage_pct: 80.0 });
    }
});
