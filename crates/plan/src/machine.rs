//! The plan's view of this machine, answered by the host crate and the engines' probes.

use crate::Machine;
use std::path::Path;

pub struct ThisMachine;

impl Machine for ThisMachine {
    fn logical_block(&self, path: &Path) -> Option<(String, u64)> {
        let (logical, _physical) = spindle_host::block_sizes(path)?;
        // The limit is that of the device the target sits on (a loop or dm device may have a
        // larger sector than the disk below), so that is the device to name.
        let device = spindle_host::block_device_of(path).map(|d| d.name).unwrap_or_else(|| "the device".into());
        Some((device, logical))
    }

    fn memory_bytes(&self) -> u64 {
        spindle_host::environment(&[]).memory_bytes
    }

    fn logical_cpus(&self) -> u32 {
        std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
    }

    fn uring_available(&self) -> Result<(), String> {
        spindle_io::engine::uring::probe()
    }
}

/// The hosts of agents started elsewhere (over ssh, by srun, as a Kubernetes Job): the job is
/// planned with this machine's CPUs, memory and engines, but its targets are on those hosts,
/// so their directories and devices are not looked for here; each agent finds a missing one
/// on its host, and the run says which agent failed and why.
pub struct AgentsElsewhere;

impl Machine for AgentsElsewhere {
    fn logical_block(&self, _path: &Path) -> Option<(String, u64)> {
        None
    }

    fn memory_bytes(&self) -> u64 {
        ThisMachine.memory_bytes()
    }

    fn logical_cpus(&self) -> u32 {
        ThisMachine.logical_cpus()
    }

    fn uring_available(&self) -> Result<(), String> {
        ThisMachine.uring_available()
    }

    fn sees_targets(&self) -> bool {
        false
    }
}

/// A machine described rather than probed, so planning answers the same everywhere (unit tests,
/// fuzzing): 4 CPUs, 8 GiB, every path on a 4096-byte-sector disk called `nvme9n1`, and
/// io_uring present or not.
pub struct Described {
    pub uring: bool,
}

impl Machine for Described {
    fn logical_block(&self, _path: &Path) -> Option<(String, u64)> {
        Some(("nvme9n1".into(), 4096))
    }

    fn memory_bytes(&self) -> u64 {
        8 << 30
    }

    fn logical_cpus(&self) -> u32 {
        4
    }

    fn uring_available(&self) -> Result<(), String> {
        if self.uring { Ok(()) } else { Err("disabled by kernel.io_uring_disabled".into()) }
    }
}
