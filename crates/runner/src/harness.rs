//! The measuring harness every workload shares: the counter sampler over the disks
//! (and any database's own counters), the process's CPU time, the exact totals of chosen
//! volumes from /proc/diskstats, and the environment, started before the work and finished
//! after it, then written into the run's record. Both the sampler and the totals set apart the
//! flushes a kernel counts as writes too, asked of each device once (`flush_counting`).

use spindle_counters::{CounterSource, FlushCounting, ProcRoot, Sampler, Snapshot, devices_under, flush_counting};
use spindle_model::RunRecord;
use spindle_model::counters::CounterLog;
use spindle_model::db::DeviceIo;
use spindle_model::record::{CpuUsage, Environment};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub struct Measure {
    sampler: Sampler,
    cpu_before: (f64, f64),
    watched: Vec<PathBuf>,
    volumes: Vec<String>,
    /// Per volume, how the kernel counts its flushes.
    volume_counting: Vec<FlushCounting>,
    volumes_before: Snapshot,
}

/// What the harness saw.
pub struct Measured {
    pub counters: CounterLog,
    /// User and system seconds spindle used.
    pub cpu: (f64, f64),
    /// Each chosen volume's own counts over the whole span, exact (not rates).
    pub volumes: Vec<DeviceIo>,
    pub environment: Environment,
}

impl Measure {
    /// Starts sampling the disks under `watched` and the `volumes` (kernel names) every
    /// `interval`, with `sources` read at the same ticks, and counting the volumes' exact I/O.
    pub fn start(
        watched: &[&Path],
        volumes: Vec<String>,
        interval: Duration,
        sources: Vec<Box<dyn CounterSource>>,
    ) -> Measure {
        let root = ProcRoot::default();
        let mut devices = devices_under(watched);
        devices.extend(volumes.iter().filter(|v| !devices.contains(v)).cloned().collect::<Vec<_>>());
        // Asked before anything is counted: the question's own flushes are in no run.
        let device_counting = flush_counting(&devices, watched);
        let volume_counting = flush_counting(&volumes, watched);
        let volumes_before = Snapshot::take(&root, &volumes);
        Measure {
            sampler: Sampler::start(root, devices, device_counting, interval, sources),
            cpu_before: spindle_io::worker::process_cpu(),
            watched: watched.iter().map(|p| p.to_path_buf()).collect(),
            volumes,
            volume_counting,
            volumes_before,
        }
    }

    /// Stops, leaving the first `unmeasured` out of the counter log (a ramp-up, a warm-up).
    pub fn finish(self, unmeasured: Duration) -> Measured {
        let counters = self.sampler.stop(unmeasured);
        let after = Snapshot::take(&ProcRoot::default(), &self.volumes);
        let cpu_after = spindle_io::worker::process_cpu();
        let volumes = (0..self.volumes.len())
            .filter_map(|i| device_io(&self.volumes[i], self.volume_counting[i], (&self.volumes_before, &after), i))
            .collect();
        let watched: Vec<&Path> = self.watched.iter().map(PathBuf::as_path).collect();
        Measured {
            counters,
            cpu: (cpu_after.0 - self.cpu_before.0, cpu_after.1 - self.cpu_before.1),
            volumes,
            environment: spindle_host::environment(&watched),
        }
    }
}

/// What volume `name`, the `i`th of both snapshots, did between them: its exact counts, with
/// the writes of no bytes the kernel counted for flushes (`counting`) said.
fn device_io(
    name: &str,
    counting: FlushCounting,
    (before, after): (&Snapshot, &Snapshot),
    i: usize,
) -> Option<DeviceIo> {
    let (b, a) = (before.disks.get(i)?.as_ref()?, after.disks.get(i)?.as_ref()?);
    Some(DeviceIo {
        device: name.to_string(),
        reads: a.reads.saturating_sub(b.reads),
        bytes_read: a.sectors_read.saturating_sub(b.sectors_read) * 512,
        writes: a.writes.saturating_sub(b.writes),
        bytes_written: a.sectors_written.saturating_sub(b.sectors_written) * 512,
        flushes: a.flushes.zip(b.flushes).map(|(a, b)| a.saturating_sub(b)),
        queue_ms: Some(a.weighted_io_ms.saturating_sub(b.weighted_io_ms)),
        seconds: Some(after.at.duration_since(before.at).as_secs_f64()),
        empty_writes: counting.empty_writes_between(before, after, i),
    })
}

impl Measured {
    /// The CPU spindle used, per operation of the run.
    pub fn cpu_per(&self, operations: u64) -> CpuUsage {
        CpuUsage::new(self.cpu.0, self.cpu.1, operations)
    }

    /// Writes the counters and the environment into `record`, and the CPU per operation into
    /// its summary and targets.
    pub fn fill(self, record: &mut RunRecord, operations: u64) {
        let cpu = self.cpu_per(operations);
        record.summary.cpu = cpu.clone();
        for t in &mut record.targets {
            t.stats.cpu = cpu.clone();
        }
        record.counters = Some(self.counters);
        record.environment = self.environment;
    }
}
