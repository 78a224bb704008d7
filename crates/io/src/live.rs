//! Live counters a worker publishes once per batch for the progress display. Each worker has its
//! own cache line and only ever stores (never read-modify-writes), so publishing costs a few
//! relaxed stores and never contends.

use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Default, Debug)]
#[repr(align(64))]
pub struct LiveCounters {
    ios: AtomicU64,
    bytes: AtomicU64,
    latency_sum_ns: AtomicU64,
}

/// A reading of one or more workers' counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiveSnapshot {
    pub ios: u64,
    pub bytes: u64,
    pub latency_sum_ns: u64,
}

impl LiveCounters {
    #[inline(always)]
    pub fn publish(&self, ios: u64, bytes: u64, latency_sum_ns: u64) {
        self.ios.store(ios, Ordering::Relaxed);
        self.bytes.store(bytes, Ordering::Relaxed);
        self.latency_sum_ns.store(latency_sum_ns, Ordering::Relaxed);
    }

    pub fn read(&self) -> LiveSnapshot {
        LiveSnapshot {
            ios: self.ios.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            latency_sum_ns: self.latency_sum_ns.load(Ordering::Relaxed),
        }
    }
}

/// Sum of all workers' counters.
pub fn total(counters: &[LiveCounters]) -> LiveSnapshot {
    counters.iter().map(LiveCounters::read).fold(LiveSnapshot::default(), |a, b| LiveSnapshot {
        ios: a.ios + b.ios,
        bytes: a.bytes + b.bytes,
        latency_sum_ns: a.latency_sum_ns + b.latency_sum_ns,
    })
}
