//! The counters that explain a placement result: for each layout and each point of the
//! experiment (a session count, the load), what each of its volumes did on average over its
//! runs (queue length, reads and writes a second, their sizes and service times, and flushes a
//! second apart from the writes), what the machine did (CPU, paging), and what the engine
//! waited on, side by side.

use spindle_counters::FLUSHES_PER_SEC;
use spindle_model::RunRecord;
use spindle_runner::experiment::placement::Layout;
use std::fmt::Write;

/// The volume counters shown, as perfmon names them (its writes are those that carried data),
/// then the flushes.
const VOLUME_COUNTERS: [&str; 8] = [
    "Avg. Disk Queue Length",
    "Disk Reads/sec",
    "Disk Writes/sec",
    "Avg. Disk Bytes/Read",
    "Avg. Disk Bytes/Write",
    "Avg. Disk sec/Read",
    "Avg. Disk sec/Write",
    FLUSHES_PER_SEC,
];

/// The machine's counters shown, with the name they are shown by.
const MACHINE_COUNTERS: [(&str, &str); 2] =
    [("\\Processor(_Total)\\% Processor Time", "CPU %"), ("\\Memory\\Pages/sec", "Pages/sec")];

/// Engine counters shown, by the end of their path: the buffer cache, what sessions waited
/// on (locks, latches: the article's deciding counters beside the disk queue), and the log.
const ENGINE_COUNTERS: [&str; 10] = [
    "Buffer cache hit ratio",
    "Sessions waiting on locks",
    "Sessions waiting on latches (LWLock)",
    "Sessions waiting on I/O",
    "Lock waits (current)",
    "Row lock wait ms/sec",
    "Latch wait ms/sec",
    "Commits/sec",
    "WAL bytes/sec",
    "Redo bytes/sec",
];

/// What one layout's volumes are: where its data and its log sit.
pub struct Volumes {
    pub layout: Layout,
    pub data: Option<String>,
    pub log: Option<String>,
}

/// One layout's runs at one point of the experiment (`sessions=8`, `load`).
pub struct AtPoint<'r> {
    pub point: String,
    pub runs: Vec<&'r RunRecord>,
}

/// The mean over `runs` of each counter whose path ends as given.
fn mean(runs: &[&RunRecord], path: &str) -> Option<f64> {
    let values: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.counters.as_ref()?.counters.iter().find(|c| c.path == path).map(|c| c.avg))
        .filter(|v| v.is_finite())
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// What a per-I/O average is an average of: `Avg. Disk Bytes/Write` of the writes.
fn counted_by(counter: &str) -> Option<&'static str> {
    match counter.rsplit('/').next()? {
        "Read" => Some("Disk Reads/sec"),
        "Write" => Some("Disk Writes/sec"),
        _ => None,
    }
}

/// The mean over `runs` of a per-I/O average (`Avg. Disk Bytes/Write`), each interval weighed
/// by its I/Os a second (`by`): the runs' bytes over their writes, where a plain mean would
/// take an interval without a write for one of 0 bytes.
fn weighted_mean(runs: &[&RunRecord], path: &str, by: &str) -> Option<f64> {
    let (mut sum, mut weight) = (0.0, 0.0);
    for log in runs.iter().filter_map(|r| r.counters.as_ref()) {
        let (Some(values), Some(weights)) = (log.get(path), log.get(by)) else { continue };
        for (v, w) in values.values.iter().zip(&weights.values) {
            if let (Some(v), Some(w)) = (v, w)
                && v.is_finite()
                && w.is_finite()
            {
                sum += v * w;
                weight += w;
            }
        }
    }
    (weight > 0.0).then(|| sum / weight)
}

fn engine_mean(runs: &[&RunRecord], name: &str) -> Option<(String, f64)> {
    let path = runs.iter().find_map(|r| {
        r.counters
            .as_ref()?
            .counters
            .iter()
            .find(|c| c.path.starts_with("\\spindle:") && c.path.ends_with(name))
            .map(|c| c.path.clone())
    })?;
    Some((path.clone(), mean(runs, &path)?))
}

pub fn render(layouts: &[(Volumes, Vec<AtPoint<'_>>)]) -> String {
    let mut out = String::from("\nwhat the volumes, the machine and the engine did (mean over each layout's runs):\n");
    for (v, points) in layouts {
        let name = |d: &Option<String>| d.clone().unwrap_or_else(|| "?".into());
        let _ = writeln!(out, "  layout={}: data on {}, log on {}", v.layout.label(), name(&v.data), name(&v.log));
        let mut volumes: Vec<&String> = v.data.iter().chain(&v.log).collect();
        volumes.dedup();
        for at in points.iter().filter(|p| !p.runs.is_empty()) {
            let runs = &at.runs;
            let _ = writeln!(out, "    {}:", at.point);
            for dev in &volumes {
                let figures: Vec<String> = VOLUME_COUNTERS
                    .iter()
                    .filter_map(|c| {
                        let path = |c: &str| format!("\\PhysicalDisk({dev})\\{c}");
                        let m = match counted_by(c) {
                            Some(by) => weighted_mean(runs, &path(c), &path(by))?,
                            None => mean(runs, &path(c))?,
                        };
                        Some(if c.contains("sec/") { format!("{c} {:.3} ms", m * 1e3) } else { format!("{c} {m:.1}") })
                    })
                    .collect();
                let role = match (v.data.as_ref() == Some(*dev), v.log.as_ref() == Some(*dev)) {
                    (true, true) => "data and log",
                    (true, false) => "data",
                    _ => "log",
                };
                let shown = if figures.is_empty() { "no counters".to_string() } else { figures.join(", ") };
                let _ = writeln!(out, "      {dev} ({role}): {shown}");
            }
            let machine: Vec<String> = MACHINE_COUNTERS
                .iter()
                .filter_map(|(path, shown)| Some(format!("{shown} {:.1}", mean(runs, path)?)))
                .collect();
            if !machine.is_empty() {
                let _ = writeln!(out, "      machine: {}", machine.join(", "));
            }
            let engine: Vec<String> = ENGINE_COUNTERS
                .iter()
                .filter_map(|n| engine_mean(runs, n))
                .map(|(path, m)| format!("{} {m:.1}", path.rsplit('\\').next().unwrap_or(&path)))
                .collect();
            if !engine.is_empty() {
                let _ = writeln!(out, "      engine: {}", engine.join(", "));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::counters::{CounterLog, CounterSeries};

    #[test]
    fn each_layout_shows_its_volumes_and_the_engine() {
        let mut r = RunRecord::new(
            spindle_model::KindData::Hammer { spec: Default::default() },
            spindle_model::record::RunStatus::Complete,
            std::time::SystemTime::now(),
            1.0,
        );
        let series = |path: &str, v: f64| CounterSeries::new(path.into(), vec![Some(v), Some(v)]);
        r.counters = Some(CounterLog {
            interval_seconds: 1.0,
            t: vec![1.0, 2.0],
            counters: vec![
                series("\\PhysicalDisk(loop0)\\Avg. Disk Queue Length", 2.5),
                series("\\PhysicalDisk(loop1)\\Disk Writes/sec", 300.0),
                series("\\PhysicalDisk(loop1)\\Avg. Disk sec/Write", 0.0004),
                series("\\PhysicalDisk(loop1)\\Disk Flushes/sec", 280.0),
                series("\\spindle:PostgreSQL\\WAL bytes/sec", 1e6),
                series("\\spindle:PostgreSQL\\Sessions waiting on locks", 0.5),
                series("\\Processor(_Total)\\% Processor Time", 42.0),
                series("\\Memory\\Pages/sec", 7.0),
            ],
        });
        let v = Volumes { layout: Layout::Split, data: Some("loop0".into()), log: Some("loop1".into()) };
        let text = render(&[(v, vec![AtPoint { point: "sessions=8".into(), runs: vec![&r] }])]);
        assert!(text.contains("layout=split: data on loop0, log on loop1\n    sessions=8:\n"), "{text}");
        assert!(text.contains("loop0 (data): Avg. Disk Queue Length 2.5"), "{text}");
        let log = "loop1 (log): Disk Writes/sec 300.0, Avg. Disk sec/Write 0.400 ms, Disk Flushes/sec 280.0\n";
        assert!(text.contains(log), "{text}");
        assert!(text.contains("machine: CPU % 42.0, Pages/sec 7.0"), "{text}");
        assert!(text.contains("engine: Sessions waiting on locks 0.5, WAL bytes/sec 1000000.0"), "{text}");
    }

    #[test]
    fn a_size_a_write_is_the_runs_bytes_over_their_writes() {
        let run = |writes: [f64; 2], bytes: [f64; 2]| {
            let mut r = RunRecord::new(
                spindle_model::KindData::Hammer { spec: Default::default() },
                spindle_model::record::RunStatus::Complete,
                std::time::SystemTime::now(),
                1.0,
            );
            let series = |path: &str, v: [f64; 2]| CounterSeries::new(path.into(), v.map(Some).to_vec());
            r.counters = Some(CounterLog {
                interval_seconds: 1.0,
                t: vec![1.0, 2.0],
                counters: vec![
                    series("\\PhysicalDisk(loop0)\\Disk Reads/sec", [0.0, 0.0]),
                    series("\\PhysicalDisk(loop0)\\Avg. Disk Bytes/Read", [0.0, 0.0]),
                    series("\\PhysicalDisk(loop0)\\Disk Writes/sec", writes),
                    series("\\PhysicalDisk(loop0)\\Avg. Disk Bytes/Write", bytes),
                ],
            });
            r
        };
        // 100 writes of 8 KiB, a second without any, then 600 of 4 KiB: 3,276,800 bytes in 700
        // writes, 4,681.1 a write (a mean of the seconds' sizes would say 4,096).
        let (a, b) = (run([100.0, 0.0], [8192.0, 0.0]), run([300.0, 300.0], [4096.0, 4096.0]));
        let v = Volumes { layout: Layout::Same, data: Some("loop0".into()), log: Some("loop0".into()) };
        let text = render(&[(v, vec![AtPoint { point: "sessions=8".into(), runs: vec![&a, &b] }])]);
        let line = "loop0 (data and log): Disk Reads/sec 0.0, Disk Writes/sec 175.0, Avg. Disk Bytes/Write 4681.1\n";
        assert!(text.contains(line), "no reads, no size a read: {text}");
    }
}
