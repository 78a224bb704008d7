//! Workload files (`spindle io --spec`): any text is planned or refused with the file named,
//! never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle::fuzzing::{SPEC_NAME, plan_spec};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(refusal) = plan_spec(&text) {
        assert!(refusal.contains(SPEC_NAME), "a refusal that does not name the file: {refusal}");
    }
});
