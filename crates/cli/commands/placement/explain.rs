//! The counters that explain a placement result: for each layout, what each of its volumes
//! did on average over its runs (queue length, reads and writes a second, their sizes and
//! service times), and the engine's own waits and log rate, side by side.

use super::layouts::Layout;
use spindle_model::RunRecord;
use std::fmt::Write;

/// The volume counters shown, as perfmon names them.
const VOLUME_COUNTERS: [&str; 7] = [
    "Avg. Disk Queue Length",
    "Disk Reads/sec",
    "Disk Writes/sec",
    "Avg. Disk Bytes/Read",
    "Avg. Disk Bytes/Write",
    "Avg. Disk sec/Read",
    "Avg. Disk sec/Write",
];

/// Engine counters shown, by the end of their path.
const ENGINE_COUNTERS: [&str; 5] =
    ["Buffer cache hit ratio", "Lock waits (current)", "Commits/sec", "WAL bytes/sec", "Redo bytes/sec"];

/// What one layout's volumes are: where its data and its log sit.
pub struct Volumes {
    pub layout: Layout,
    pub data: Option<String>,
    pub log: Option<String>,
}

/// The mean over `runs` of each counter whose path ends as given.
fn mean(runs: &[&RunRecord], path: &str) -> Option<f64> {
    let values: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.counters.as_ref()?.counters.iter().find(|c| c.path == path).map(|c| c.avg))
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
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

pub fn render(layouts: &[(Volumes, Vec<&RunRecord>)]) -> String {
    let mut out = String::from("\nwhat the volumes and the engine did (mean over each layout's runs):\n");
    for (v, runs) in layouts {
        let name = |d: &Option<String>| d.clone().unwrap_or_else(|| "?".into());
        let _ = writeln!(out, "  layout={}: data on {}, log on {}", v.layout.label(), name(&v.data), name(&v.log));
        let mut volumes: Vec<&String> = v.data.iter().chain(&v.log).collect();
        volumes.dedup();
        for dev in volumes {
            let figures: Vec<String> = VOLUME_COUNTERS
                .iter()
                .filter_map(|c| {
                    let m = mean(runs, &format!("\\PhysicalDisk({dev})\\{c}"))?;
                    Some(if c.contains("sec/") { format!("{c} {:.3} ms", m * 1e3) } else { format!("{c} {m:.1}") })
                })
                .collect();
            let role = match (v.data.as_ref() == Some(dev), v.log.as_ref() == Some(dev)) {
                (true, true) => "data and log",
                (true, false) => "data",
                _ => "log",
            };
            let shown = if figures.is_empty() { "no counters".to_string() } else { figures.join(", ") };
            let _ = writeln!(out, "    {dev} ({role}): {shown}");
        }
        let engine: Vec<String> = ENGINE_COUNTERS
            .iter()
            .filter_map(|n| engine_mean(runs, n))
            .map(|(path, m)| format!("{} {m:.1}", path.rsplit('\\').next().unwrap_or(&path)))
            .collect();
        if !engine.is_empty() {
            let _ = writeln!(out, "    engine: {}", engine.join(", "));
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
                series("\\spindle:PostgreSQL\\WAL bytes/sec", 1e6),
            ],
        });
        let v = Volumes { layout: Layout::Split, data: Some("loop0".into()), log: Some("loop1".into()) };
        let text = render(&[(v, vec![&r])]);
        assert!(text.contains("layout=split: data on loop0, log on loop1"), "{text}");
        assert!(text.contains("loop0 (data): Avg. Disk Queue Length 2.5"), "{text}");
        assert!(text.contains("loop1 (log): Disk Writes/sec 300.0, Avg. Disk sec/Write 0.400 ms"), "{text}");
        assert!(text.contains("engine: WAL bytes/sec 1000000.0"), "{text}");
    }
}
