//! Any bytes as a durability log (`durability verify --log`, or what a listener is sent): no
//! panic, and what parses is consistent: nothing acknowledged past what was issued.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(log) = spindle_io::durability::log::parse(data) {
        assert!(log.last_acked <= log.last_issued);
        for slot in log.slots.values() {
            assert!(slot.acked <= slot.issued && slot.acked <= log.last_acked);
        }
    }
});
