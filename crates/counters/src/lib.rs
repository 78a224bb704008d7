//! Counters sampled beside every measuring command: for each disk under the targets, the
//! perfmon PhysicalDisk counters from /proc/diskstats (with the flushes a kernel counts as
//! writes set apart, and counted on their own); % Processor Time from /proc/stat;
//! paging from /proc/vmstat; Available MBytes from /proc/meminfo; I/O pressure from
//! /proc/pressure/io where the kernel has it. Database-side counters join through the same
//! log later.

mod flushes;
pub mod procfs;
mod rates;
mod sampler;
mod snapshot;

pub use flushes::{FlushCounting, flush_counting};
pub use rates::{FLUSHES_PER_SEC, counter_paths, values};
pub use sampler::{CounterSource, Sampler};
pub use snapshot::{ProcRoot, Snapshot, devices_under, volumes_under, whole_disks};
