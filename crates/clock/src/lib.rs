//! Time in the measured path: when measurement starts (the start gate every measuring runner
//! begins at, so set-up and ramp-up never count) and waiting for an instant without
//! oversleeping (under a rate, latency counts from each operation's intended start, so every
//! microsecond a wait ends late would be reported as the device's or the database's). Shared
//! by the I/O worker and the Hammer sessions.

pub mod pace;
pub mod schedule;
pub mod start_gate;

pub use pace::{Pacer, low_timer_slack};
pub use schedule::starts_between;
pub use start_gate::{StartAt, StartGate};
