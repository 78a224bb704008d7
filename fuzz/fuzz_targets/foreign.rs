//! Any text as another tool's result file (SQLIO, DiskSpd, fio JSON, IOMeter CSV): no panic,
//! an error or runs, and every run read says which tool wrote it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match spindle_formats::foreign::parse(&text) {
        Ok(runs) => {
            assert!(!runs.is_empty());
            assert!(runs.iter().all(|r| r.tool.is_some() && r.tool == spindle_formats::foreign::detect(&text)));
        }
        Err(e) => assert!(!e.0.is_empty()),
    }
});
