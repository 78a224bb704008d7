//! `--mix` (IOMeter-style SIZE:WEIGHT[:READ%[:RANDOM%]] lists) and `--sweep` values: any text
//! is planned or refused with the flag named, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle::fuzzing::{plan_mix, plan_sweep};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(refusal) = plan_mix(&text) {
        assert!(refusal.contains("--mix"), "a refusal that does not name --mix: {refusal}");
    }
    if let Err(refusal) = plan_sweep(&text) {
        assert!(refusal.contains("--sweep"), "a refusal that does not name --sweep: {refusal}");
    }
});
