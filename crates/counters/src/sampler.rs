//! The sampler thread: a snapshot every interval while a job runs, turned into a counter log
//! when it stops. It reads a few small /proc files a second, so it costs the run nothing
//! measurable.

use crate::flushes::FlushCounting;
use crate::rates;
use crate::snapshot::{ProcRoot, Snapshot};
use spindle_model::counters::{CounterLog, CounterSeries};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A final partial interval shorter than this share of the interval is dropped: its rates
/// would rest on too few events.
const MIN_PARTIAL: f64 = 0.2;

/// Counters besides /proc's: a database's own statistics, read on the sampler's thread at
/// every tick. Each reading covers the time since the previous one.
pub trait CounterSource: Send {
    /// The paths of the values `read` returns, in the same order.
    fn paths(&self) -> Vec<String>;
    /// The values over the `secs` since the last reading (`None` on the first, or where a
    /// figure is unavailable).
    fn read(&mut self, secs: f64) -> Vec<Option<f64>>;
}

/// One tick: the /proc snapshot and what the other sources said at that moment.
struct Reading {
    snap: Snapshot,
    extra: Vec<Option<f64>>,
}

pub struct Sampler {
    stop: mpsc::Sender<()>,
    thread: Option<JoinHandle<Vec<Reading>>>,
    devices: Vec<String>,
    /// Per device, how the kernel counts its flushes.
    counting: Vec<FlushCounting>,
    extra_paths: Vec<String>,
    interval: Duration,
}

impl Sampler {
    /// Starts sampling `devices` (kernel names, e.g. `vda`) and the machine every `interval`,
    /// with `sources` read at the same ticks. `counting` says per device how the kernel counts
    /// its flushes (`flush_counting`), so those it counts as writes are set apart.
    pub fn start(
        root: ProcRoot,
        devices: Vec<String>,
        counting: Vec<FlushCounting>,
        interval: Duration,
        mut sources: Vec<Box<dyn CounterSource>>,
    ) -> Sampler {
        let (stop, stopped) = mpsc::channel::<()>();
        let watched = devices.clone();
        let extra_paths = sources.iter().flat_map(|s| s.paths()).collect();
        let thread = std::thread::Builder::new()
            .name("spindle-sampler".into())
            .spawn(move || {
                let start = Instant::now();
                let mut last = Instant::now();
                let mut take = |sources: &mut Vec<Box<dyn CounterSource>>| {
                    let snap = Snapshot::take(&root, &watched);
                    let secs = snap.at.duration_since(last).as_secs_f64();
                    last = snap.at;
                    let extra = sources.iter_mut().flat_map(|s| s.read(secs)).collect();
                    Reading { snap, extra }
                };
                let mut readings = vec![take(&mut sources)];
                for tick in 1u32.. {
                    let due = start + interval * tick;
                    let wait = due.saturating_duration_since(Instant::now());
                    match stopped.recv_timeout(wait) {
                        Err(RecvTimeoutError::Timeout) => readings.push(take(&mut sources)),
                        _ => break,
                    }
                }
                readings.push(take(&mut sources));
                readings
            })
            .ok();
        Sampler { stop, thread, devices, counting, extra_paths, interval }
    }

    /// Stops and returns the log; samples whose interval began in the first `skip` (the
    /// warm-up) are left out, and times count from the end of it.
    pub fn stop(self, skip: Duration) -> CounterLog {
        let _ = self.stop.send(());
        let readings = self.thread.and_then(|t| t.join().ok()).unwrap_or_default();
        let columns = Columns { devices: &self.devices, counting: &self.counting, extra: &self.extra_paths };
        log_of(&readings, &columns, self.interval, skip)
    }
}

/// What the log's columns are: each device's counters, then the machine's and the sources'.
struct Columns<'a> {
    devices: &'a [String],
    counting: &'a [FlushCounting],
    extra: &'a [String],
}

fn log_of(readings: &[Reading], columns: &Columns<'_>, interval: Duration, skip: Duration) -> CounterLog {
    let mut paths = rates::counter_paths(columns.devices);
    paths.extend(columns.extra.iter().cloned());
    let counting = columns.counting;
    let mut t = Vec::new();
    let mut columns: Vec<Vec<Option<f64>>> = vec![Vec::new(); paths.len()];
    if let Some(first) = readings.first() {
        let begin = first.snap.at + skip;
        for w in readings.windows(2) {
            let (a, b) = (&w[0].snap, &w[1].snap);
            let long_enough = b.at.duration_since(a.at).as_secs_f64() >= interval.as_secs_f64() * MIN_PARTIAL;
            if a.at < begin || !long_enough {
                continue;
            }
            t.push(b.at.duration_since(begin).as_secs_f64());
            // A source's reading at the later tick covers this window.
            let values = rates::values(a, b, counting).into_iter().chain(w[1].extra.iter().copied());
            for (col, v) in columns.iter_mut().zip(values) {
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
    use spindle_model::counters::{OTHER_PROCESSES_READ, OTHER_PROCESSES_WRITE};

    #[test]
    fn samples_this_machine_every_interval() {
        let devices = vec!["no-such-disk".into()];
        let counting = vec![FlushCounting::default()];
        let sampler = Sampler::start(ProcRoot::default(), devices, counting, Duration::from_millis(50), Vec::new());
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
    fn a_fake_proc_tree_gives_exact_rates_with_the_flushes_apart() {
        let dir = std::env::temp_dir().join(format!("spindle-fake-proc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = ProcRoot(dir.clone());
        // Reads, writes, sectors written and flushes, as a kernel of the 5.5 series on writes them.
        let write = |reads: u64, writes: u64, sectors: u64, flushes: u64| {
            let line = format!("8 0 sdz {reads} 0 0 0 {writes} 0 {sectors} 0 0 0 0 0 0 0 0 {flushes} 0\n");
            std::fs::write(dir.join("diskstats"), line).unwrap()
        };
        write(0, 0, 0, 0);
        let a = Snapshot::take(&root, &["sdz".into()]);
        // 200 writes of 8 KiB and 100 flushes, each of which this kernel counts as a write too.
        write(100, 300, 200 * 16, 100);
        let mut b = Snapshot::take(&root, &["sdz".into()]);
        b.at = a.at + Duration::from_secs(2);
        let readings = [Reading { snap: a, extra: vec![None] }, Reading { snap: b, extra: vec![Some(7.0)] }];
        let extra = ["\\spindle:Test\\Things/sec".to_string()];
        let log = |counted_as_write: Option<bool>| {
            let counting = [FlushCounting { counted_as_write, per_commit: 2 }];
            let columns = Columns { devices: &["sdz".into()], counting: &counting, extra: &extra };
            log_of(&readings, &columns, Duration::from_secs(1), Duration::ZERO)
        };
        let (apart, as_counted) = (log(Some(true)), log(None));
        std::fs::remove_dir_all(&dir).unwrap();
        let value = |log: &CounterLog, counter: &str| log.get(&format!("\\PhysicalDisk(sdz)\\{counter}")).unwrap().avg;
        assert_eq!(value(&apart, "Disk Reads/sec"), 50.0);
        assert_eq!(value(&apart, "Disk Writes/sec"), 100.0, "the data's writes");
        assert_eq!(value(&apart, "Avg. Disk Bytes/Write"), 8192.0);
        assert_eq!(value(&apart, "Disk Flushes/sec"), 50.0);
        assert_eq!(value(&as_counted, "Disk Writes/sec"), 150.0, "not known: every write counted");
        assert!(apart.get("\\Processor(_Total)\\% Processor Time").is_none(), "no stat file, no cpu counter");
        assert_eq!(apart.get("\\spindle:Test\\Things/sec").unwrap().values, [Some(7.0)], "other sources ride along");
        assert!(apart.get(OTHER_PROCESSES_READ).is_none(), "no process to read, no claim of none");
    }

    #[test]
    fn other_processes_io_is_each_ones_growth_and_all_of_a_new_ones() {
        let dir = std::env::temp_dir().join(format!("spindle-fake-proc-io-{}", std::process::id()));
        let root = ProcRoot(dir.clone());
        let process = |pid: u32, read: u64, write: u64| {
            std::fs::create_dir_all(dir.join(pid.to_string())).unwrap();
            let stat = format!("{pid} (p{pid}) S 1 {pid} {pid} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 9");
            std::fs::write(dir.join(format!("{pid}/stat")), stat).unwrap();
            let text = format!("rchar: 1\nread_bytes: {read}\nwrite_bytes: {write}\ncancelled_write_bytes: 0\n");
            std::fs::write(dir.join(format!("{pid}/io")), text).unwrap();
        };
        // Two processes; spindle's own (this test's) is never counted, whatever it did.
        process(100, 4_000_000, 1_000_000);
        process(200, 0, 0);
        process(std::process::id(), 0, 0);
        let a = Snapshot::take(&root, &[]);
        process(100, 6_000_000, 1_000_000);
        std::fs::remove_dir_all(dir.join("200")).unwrap();
        process(300, 500_000, 2_000_000);
        process(std::process::id(), 9_000_000_000, 9_000_000_000);
        // A loop device's worker, doing spindle's I/O to the backing file: not another's.
        process(95, 7_000_000_000, 7_000_000_000);
        std::fs::write(
            dir.join("95/stat"),
            "95 (kworker/u4:2-loop0) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 40",
        )
        .unwrap();
        let mut b = Snapshot::take(&root, &[]);
        b.at = a.at + Duration::from_secs(2);
        let readings = [Reading { snap: a, extra: vec![] }, Reading { snap: b, extra: vec![] }];
        let columns = Columns { devices: &[], counting: &[], extra: &[] };
        let log = log_of(&readings, &columns, Duration::from_secs(1), Duration::ZERO);
        std::fs::remove_dir_all(&dir).unwrap();
        // 2 MB read by 100 and 0.5 MB by 300, born meanwhile; 2 MB written by 300; over 2 s.
        assert_eq!(log.get(OTHER_PROCESSES_READ).unwrap().avg, 1_250_000.0);
        assert_eq!(log.get(OTHER_PROCESSES_WRITE).unwrap().avg, 1_000_000.0);
    }
}
