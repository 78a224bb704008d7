//! What else the host did while a step measured: other processes' reads and writes on the
//! step's own devices, and the CPU they kept busy. Neither source alone says the first: other
//! processes' own accounting (/proc/PID/io, sampled beside every run as `\Process(_Others)\IO
//! ... Bytes/sec`) counts their I/O on every device, and the devices' bytes beyond the step's
//! own count the filesystem's journal too. Each is at least the I/O others did on the step's
//! devices, so the smaller of the two is the bound taken. A figure measured while other processes moved a tenth as much
//! as the step itself, or kept most of the CPU busy, may understate the storage; one measured
//! while they moved as much or more says more about them than about it, and no verdict is
//! drawn from it. The marks are spindle's own (docs/guidance.md, `host-load`).

use super::Area;
use serde::{Deserialize, Serialize};
use spindle_model::RunRecord;
use spindle_model::counters::{OTHER_PROCESSES_READ as OTHERS_READ, OTHER_PROCESSES_WRITE as OTHERS_WRITE};

/// Other processes' I/O beyond this share of the step's own is named beside its figures.
pub const BUSY_IO_SHARE: f64 = 0.10;
/// Other processes' I/O of this share of the step's own or more: no verdict from the step.
pub const DROWNED_IO_SHARE: f64 = 1.0;
/// Other processes keeping more than this share of all the machine's CPUs busy is named.
pub const BUSY_CPU_SHARE: f64 = 0.5;

const PROCESSOR: &str = "\\Processor(_Total)\\% Processor Time";

/// What else the host did during one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepLoad {
    /// The area whose figures the step measured.
    pub area: Area,
    /// The step, as a sentence names it (`page reads at 16 outstanding`).
    pub step: String,
    /// The step's own reads and writes, MB/s.
    pub own_mb_per_sec: f64,
    /// Other processes' reads and writes on the step's devices, MB/s, at most; none where they
    /// were not counted.
    pub other_mb_per_sec: Option<f64>,
    /// The share of all the machine's CPUs other processes kept busy (0 to 1); none where the
    /// machine's CPU was not counted.
    pub other_cpu: Option<f64>,
}

impl StepLoad {
    /// The load during an I/O step's run, from its counters and its own CPU time.
    pub fn of(area: Area, step: String, r: &RunRecord) -> StepLoad {
        let avg = |path: &str| r.counters.as_ref()?.counters.iter().find(|c| c.path == path).map(|c| c.avg);
        let others = match (avg(OTHERS_READ), avg(OTHERS_WRITE)) {
            (Some(read), Some(write)) => Some(read + write),
            _ => None,
        };
        let mut devices: Vec<&str> = r.targets.iter().filter_map(|t| t.device.as_deref()).collect();
        devices.sort_unstable();
        devices.dedup();
        let device_bytes = devices.iter().try_fold(0.0, |sum, d| {
            let read = avg(&format!("\\PhysicalDisk({d})\\Disk Read Bytes/sec"))?;
            let write = avg(&format!("\\PhysicalDisk({d})\\Disk Write Bytes/sec"))?;
            Some(sum + read + write)
        });
        let beyond_own = device_bytes.filter(|_| !devices.is_empty()).map(|b| (b - r.summary.bytes_per_sec).max(0.0));
        let other_mb_per_sec = match (others, beyond_own) {
            (Some(o), Some(d)) => Some(o.min(d) / 1e6),
            (Some(o), None) => Some(o / 1e6),
            (None, _) => None,
        };
        let cpus = r.environment.logical_cpus.max(1) as f64;
        let own_cpu = if r.measured_seconds > 0.0 {
            (r.summary.cpu.user_seconds + r.summary.cpu.system_seconds) / r.measured_seconds / cpus
        } else {
            0.0
        };
        let other_cpu = avg(PROCESSOR).map(|busy| (busy / 100.0 - own_cpu).clamp(0.0, 1.0));
        StepLoad { area, step, own_mb_per_sec: r.summary.mb_per_sec, other_mb_per_sec, other_cpu }
    }

    /// Other processes' I/O as a share of the step's own.
    pub fn io_share(&self) -> Option<f64> {
        let other = self.other_mb_per_sec?;
        (self.own_mb_per_sec > 0.0).then(|| other / self.own_mb_per_sec)
    }

    /// Whether other processes did enough to be named beside the step's figures.
    pub fn busy(&self) -> bool {
        self.io_share().is_some_and(|s| s > BUSY_IO_SHARE) || self.other_cpu.is_some_and(|c| c > BUSY_CPU_SHARE)
    }

    /// Whether other processes' I/O was as much as the step's own: no verdict from it.
    pub fn drowned(&self) -> bool {
        self.io_share().is_some_and(|s| s >= DROWNED_IO_SHARE)
    }

    /// `other processes moved 42 MB/s (13% of the step's own) and kept 90% of the CPU busy`.
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if let (Some(mb), Some(share)) = (self.other_mb_per_sec, self.io_share())
            && share > BUSY_IO_SHARE
        {
            let of = if share < 2.0 {
                format!("{:.0}% of the step's own", share * 100.0)
            } else {
                format!("{share:.0} times the step's own")
            };
            parts.push(format!("moved {} ({of})", super::figures::mb_per_sec(mb)));
        }
        if let Some(cpu) = self.other_cpu.filter(|c| *c > BUSY_CPU_SHARE) {
            parts.push(format!("kept {:.0}% of the CPU busy", cpu * 100.0));
        }
        format!("other processes {}", parts.join(" and "))
    }
}

/// The busiest load among `loads` during the steps of `area`: the one whose other I/O was the
/// largest share of its own, else the one whose other CPU was highest; none when no step of
/// the area was busy.
pub fn busiest(loads: &[StepLoad], area: Area) -> Option<&StepLoad> {
    loads.iter().filter(|l| l.area == area && l.busy()).max_by(|a, b| {
        let key = |l: &StepLoad| (l.io_share().unwrap_or(0.0), l.other_cpu.unwrap_or(0.0));
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::counters::{CounterLog, CounterSeries};

    /// A run of `own_mb` MB/s beside other processes' `others` (read, write) bytes a second, its
    /// device (vda) moving its own and `on_device` more.
    fn record(own_mb: f64, others: Option<(f64, f64)>, busy_pct: f64, own_cpu_seconds: f64) -> RunRecord {
        on_device(own_mb, others, f64::INFINITY, busy_pct, own_cpu_seconds)
    }

    fn on_device(own_mb: f64, others: Option<(f64, f64)>, more: f64, busy_pct: f64, own_cpu_seconds: f64) -> RunRecord {
        let mut r = spindle_model::fixtures::io_run(&[100.0], 1_000, &[]);
        r.targets[0].device = Some("vda".into());
        r.summary.mb_per_sec = own_mb;
        r.summary.bytes_per_sec = own_mb * 1e6;
        r.measured_seconds = 2.0;
        r.environment.logical_cpus = 2;
        r.summary.cpu.user_seconds = own_cpu_seconds;
        r.summary.cpu.system_seconds = 0.0;
        let series = |path: &str, v: f64| CounterSeries::new(path.into(), vec![Some(v), Some(v)]);
        let device = if more.is_finite() { own_mb * 1e6 + more } else { 1e15 };
        let mut counters = vec![
            series(PROCESSOR, busy_pct),
            series("\\PhysicalDisk(vda)\\Disk Read Bytes/sec", device),
            series("\\PhysicalDisk(vda)\\Disk Write Bytes/sec", 0.0),
        ];
        if let Some((read, write)) = others {
            counters.extend([series(OTHERS_READ, read), series(OTHERS_WRITE, write)]);
        }
        r.counters = Some(CounterLog { interval_seconds: 1.0, t: vec![1.0, 2.0], counters });
        r
    }

    #[test]
    fn other_processes_io_and_cpu_are_their_share_of_the_steps_own_and_of_the_machine() {
        // The quick check's page reads at 16 outstanding here: 289.5 MB/s its own, 42 MB/s of a
        // build's beside it, the CPU full and spindle's own 0.39 s of it over 2 s on 2 CPUs.
        let l = StepLoad::of(
            Area::PageReads,
            "page reads at 16 outstanding".into(),
            &record(289.5, Some((30e6, 12e6)), 100.0, 0.39),
        );
        assert!((l.other_mb_per_sec.unwrap() - 42.0).abs() < 1e-9);
        assert!((l.io_share().unwrap() - 42.0 / 289.5).abs() < 1e-9);
        assert!((l.other_cpu.unwrap() - (1.0 - 0.39 / 2.0 / 2.0)).abs() < 1e-9);
        assert!(l.busy() && !l.drowned());
        assert_eq!(l.words(), "other processes moved 42 MB/s (15% of the step's own) and kept 90% of the CPU busy");
    }

    #[test]
    fn a_tenth_is_named_as_much_as_the_step_drowns_it_and_no_counter_is_no_claim() {
        let at = |other: f64| {
            StepLoad::of(Area::LargeWrites, "large writes".into(), &record(100.0, Some((other * 1e6, 0.0)), 10.0, 0.0))
        };
        assert!(!at(10.0).busy(), "a tenth exactly is within");
        assert!(at(10.5).busy() && !at(10.5).drowned());
        assert!(at(100.0).drowned() && !at(99.0).drowned());
        assert_eq!(at(150.0).words(), "other processes moved 150 MB/s (150% of the step's own)");
        assert_eq!(at(1_700.0).words(), "other processes moved 1,700 MB/s (17 times the step's own)");
        // Records from before the counters: no I/O claim, and the CPU alone is judged.
        // Others busy on another disk: the step's device moved little beyond its own, and that
        // is the bound (the commits' journal, say).
        let elsewhere =
            StepLoad::of(Area::Commits, "commits".into(), &on_device(2.6, Some((500e6, 0.0)), 0.2e6, 10.0, 0.0));
        assert_eq!((elsewhere.other_mb_per_sec, elsewhere.busy()), (Some(0.2), false));
        // The journal's bytes beyond the step's own, and nobody else busy: nothing to say.
        let journal = StepLoad::of(Area::Commits, "commits".into(), &on_device(2.6, Some((0.0, 0.0)), 6e6, 10.0, 0.0));
        assert_eq!((journal.other_mb_per_sec, journal.busy()), (Some(0.0), false));
        let old = StepLoad::of(Area::Commits, "commits".into(), &record(2.6, None, 40.0, 0.0));
        assert_eq!((old.other_mb_per_sec, old.io_share(), old.busy()), (None, None, false));
        let loads = [at(12.0), at(150.0), old];
        assert_eq!(busiest(&loads, Area::LargeWrites).unwrap().other_mb_per_sec, Some(150.0));
        assert!(busiest(&loads, Area::Commits).is_none());
    }
}
