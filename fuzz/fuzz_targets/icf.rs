//! Any text as an IOMeter .icf file, and any numbers as the weights of the access lines
//! spindle writes into one: no panic; what reads is written back and reads the same; shares
//! made from weights, however absurd, add up to exactly 100 (or are all 0 when no weight is a
//! positive number), as IOMeter requires of `% of size`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle_formats::icf::{parse_icf, percent_shares, write_icf};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(specs) = parse_icf(&text) {
        assert!(specs.iter().all(|s| s.lines.iter().map(|l| l.pct).sum::<u32>() == 100));
        let names_are_plain = specs.iter().all(|s| !s.name.contains(['\n', '\r', ',']) && s.name.trim() == s.name);
        if names_are_plain {
            assert_eq!(parse_icf(&write_icf(&specs)).ok(), Some(specs));
        }
    }
    let weights: Vec<f64> =
        data.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes"))).collect();
    let shares = percent_shares(&weights);
    assert_eq!(shares.len(), weights.len());
    let sum: u64 = shares.iter().map(|&s| u64::from(s)).sum();
    if weights.iter().any(|w| w.is_finite() && *w > 0.0) {
        assert_eq!(sum, 100, "{weights:?} -> {shares:?}");
    } else {
        assert_eq!(sum, 0, "{weights:?} -> {shares:?}");
    }
});
