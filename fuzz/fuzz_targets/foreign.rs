//! Any text as another tool's result file (SQLIO, DiskSpd text or XML, fio JSON, IOMeter
//! CSV): no panic, an error or runs, and every run read says which tool wrote it. Each run, as
//! the record `spindle import` stores, serializes to JSON and reads back, with every rate,
//! latency and duration in it a finite number, none negative: a figure no device gives is
//! refused by the import, never stored (one that was made every view of the store fail).
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle_formats::foreign::record::{Source, record_of};
use spindle_model::RunRecord;
use spindle_model::record::{IoStats, LatencySummary};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match spindle_formats::foreign::parse(&text) {
        Ok(runs) => {
            assert!(!runs.is_empty());
            assert!(runs.iter().all(|r| r.tool.is_some() && r.tool == spindle_formats::foreign::detect(&text)));
            let source = Source { file: "fuzz", sha256: "0", imported_at: std::time::UNIX_EPOCH, file_time: None };
            for (i, run) in runs.iter().enumerate() {
                let record = record_of(run, i as u32 + 1, &source);
                let json = serde_json::to_string(&record).expect("a record serializes");
                let back: RunRecord = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
                figures_are_plain(&back);
            }
        }
        Err(e) => assert!(!e.0.is_empty()),
    }
});

fn figures_are_plain(r: &RunRecord) {
    plain("measured_seconds", r.measured_seconds);
    let stats = std::iter::once(&r.summary)
        .chain(r.targets.iter().map(|t| &t.stats))
        .chain(r.threads.iter().map(|t| &t.stats));
    for s in stats {
        stats_are_plain(s);
    }
}

fn stats_are_plain(s: &IoStats) {
    for (what, v) in [
        ("iops", s.iops),
        ("bytes_per_sec", s.bytes_per_sec),
        ("mb_per_sec", s.mb_per_sec),
        ("mib_per_sec", s.mib_per_sec),
        ("read iops", s.read.iops),
        ("read bytes_per_sec", s.read.bytes_per_sec),
        ("write iops", s.write.iops),
        ("write bytes_per_sec", s.write.bytes_per_sec),
    ] {
        plain(what, v);
    }
    for l in [&s.latency_ns, &s.read.latency_ns, &s.write.latency_ns] {
        latency_is_plain(l);
    }
    for p in &s.sqlio_histogram_pct {
        plain("a histogram share", *p);
    }
}

fn latency_is_plain(l: &LatencySummary) {
    plain("latency mean", l.mean);
    plain("latency stddev", l.stddev);
}

fn plain(what: &str, v: f64) {
    assert!(v.is_finite() && v >= 0.0, "{what} is {v}");
}
