//! Any text as a size or a duration (every `--size`, `--duration`, `--warmup`, spec value):
//! no panic, and what parses formats back to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle_model::units::{format_duration_ns, format_size, parse_duration_ns, parse_size};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(bytes) = parse_size(&text) {
        assert_eq!(parse_size(&format_size(bytes)), Ok(bytes));
    }
    if let Ok(ns) = parse_duration_ns(&text) {
        // Durations format to whole milliseconds or coarser.
        if ns % 1_000_000 == 0 {
            assert_eq!(parse_duration_ns(&format_duration_ns(ns)), Ok(ns));
        }
    }
});
