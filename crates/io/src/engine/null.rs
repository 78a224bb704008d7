//! The null engine: every I/O completes at once without touching a device. It measures the
//! tool's own ceiling (as fio's `ioengine=null` does) and makes scheduler tests deterministic.

use super::IoRequest;
use super::performed::{Perform, Performed};

/// Every I/O transfers all its bytes, at once.
pub struct AtOnce;

impl Perform for AtOnce {
    #[inline]
    fn perform(&self, r: &IoRequest) -> i32 {
        r.len as i32
    }
}

pub type NullEngine = Performed<AtOnce>;

impl NullEngine {
    pub fn new(depth: u32) -> NullEngine {
        Performed::with(AtOnce, depth)
    }
}
