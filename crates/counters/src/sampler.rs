//! The sampler thread: a snapshot every interval while a job runs, turned into a counter log
//! when it stops. It reads a few small /proc files a second, so it costs the run nothing
//! measurable.

use crate::rates;
use crate::snapshot::{ProcRoot, Snapshot};
use spindle_model::counters::{CounterLog, CounterSeries};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A final partial interval shorter than this share of the interval is dropped: its rates
/// would rest on too few events.
const MIN_PARTIAL: f64 = 0.2;

pub struct Sampler {
    stop: mpsc::Sender<()>,
    thread: Option<JoinHandle<Vec<Snapshot>>>,
    devices: Vec<String>,
    interval: Duration,
}

impl Sampler {
    /// Starts sampling `devices` (kernel names, e.g. `vda`) and the machine every `interval`.
    pub fn start(root: ProcRoot, devices: Vec<String>, interval: Duration) -> Sampler {
        let (stop, stopped) = mpsc::channel::<()>();
        let watched = devices.clone();
        let thread = std::thread::Builder::new()
            .name("spindle-sampler".into())
            .spawn(move || {
                let start = Instant::now();
                let mut snaps = vec![Snapshot::take(&root, &watched)];
                for tick in 1u32.. {
                    let due = start + interval * tick;
                    let wait = due.saturating_duration_since(Instant::now());
                    match stopped.recv_timeout(wait) {
                        Err(RecvTimeoutError::Timeout) => snaps.push(Snapshot::take(&root, &watched)),
                        _ => break,
                    }
                }
                snaps.push(Snapshot::take(&root, &watched));
                snaps
            })
            .ok();
        Sampler { stop, thread, devices, interval }
    }

    /// Stops and returns the log; samples whose interval began in the first `skip` (the
    /// warm-up) are left out, and times count from the end of it.
    pub fn stop(self, skip: Duration) -> CounterLog {
        let _ = self.stop.send(());
        let snaps = self.thread.and_then(|t| t.join().ok()).unwrap_or_default();
        log_of(&snaps, &self.devices, self.interval, skip)
    }
}

fn log_of(snaps: &[Snapshot], devices: &[String], interval: Duration, skip: Duration) -> CounterLog {
    let paths = rates::counter_paths(devices);
    let mut t = Vec::new();
    let mut columns: Vec<Vec<Option<f64>>> = vec![Vec::new(); paths.len()];
    if let Some(first) = snaps.first() {
        let begin = first.at + skip;
        for w in snaps.windows(2) {
            let long_enough = w[1].at.duration_since(w[0].at).as_secs_f64() >= interval.as_secs_f64() * MIN_PARTIAL;
            if w[0].at < begin || !long_enough {
                continue;
            }
            t.push(w[1].at.duration_since(begin).as_secs_f64());
            for (col, v) in columns.iter_mut().zip(rates::values(&w[0], &w[1])) {
                col.push(v);
            }
        }
    }
    // Sources this machine does not have (no PSI, say) are left out rather than kept empty.
    let counters = paths
        .into_iter()
        .zip(columns)
        .filter(|(_, values)| values.iter().any(Option::is_some))
        .map(|(path, values)| CounterSeries::new(path, values))
        .collect();
    CounterLog { interval_seconds: interval.as_secs_f64(), t, counters }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_this_machine_every_interval() {
        let sampler = Sampler::start(ProcRoot::default(), vec!["no-such-disk".into()], Duration::from_millis(50));
        std::thread::sleep(Duration::from_millis(280));
        let log = sampler.stop(Duration::from_millis(100));
        assert!(log.t.len() >= 2 && log.t.len() <= 4, "{:?}", log.t);
        assert!(log.t[0] > 0.0, "times count from the end of the skipped warm-up");
        let cpu = log.get("\\Processor(_Total)\\% Processor Time").expect("cpu counter");
        assert_eq!(cpu.values.len(), log.t.len());
        assert!(log.get("\\PhysicalDisk(no-such-disk)\\Disk Reads/sec").is_none(), "an absent disk is left out");
        assert!(log.get("\\Memory\\Available MBytes").is_some_and(|m| m.avg > 0.0));
    }

    #[test]
    fn a_fake_proc_tree_gives_exact_rates() {
        let dir = std::env::temp_dir().join(format!("spindle-fake-proc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = ProcRoot(dir.clone());
        let write = |reads: u64| {
            std::fs::write(dir.join("diskstats"), format!("8 0 sdz {reads} 0 0 0 0 0 0 0 0 0 0\n")).unwrap()
        };
        write(0);
        let a = Snapshot::take(&root, &["sdz".into()]);
        write(100);
        let mut b = Snapshot::take(&root, &["sdz".into()]);
        b.at = a.at + Duration::from_secs(2);
        let log = log_of(&[a, b], &["sdz".into()], Duration::from_secs(1), Duration::ZERO);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(log.get("\\PhysicalDisk(sdz)\\Disk Reads/sec").unwrap().values, [Some(50.0)]);
        assert!(log.get("\\Processor(_Total)\\% Processor Time").is_none(), "no stat file, no cpu counter");
    }
}
