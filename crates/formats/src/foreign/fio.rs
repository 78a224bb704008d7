//! fio's JSON output (--output-format=json or json+): text before the JSON (`fio: terminating
//! on signal 2`), several documents in one file (--status-interval), `jobs` or, from a
//! client/server run, `client_stats` (its "All clients" sum is left out: its clients are each
//! a run), fio 2.x latencies in microseconds and io_bytes in KiB (up to 2.20), fio 3.x `_ns`
//! fields, json+ `bins`. One run per job (with group_reporting, one per group).

use super::fio_stream::{self, Header, Stop};
use super::{ForeignRun, ForeignStats, ForeignThread, Tool};
use crate::ParseError;
use serde_json::{Map, Value};
use std::io::Read;
use std::ops::ControlFlow;

/// Every run in `text` (UTF-8), each handed to `each` as soon as its job is read (a file of
/// thousands of jobs is never held whole), until `each` returns `Break`.
pub fn read(
    text: impl Read,
    each: &mut dyn FnMut(ForeignRun) -> Result<ControlFlow<()>, ParseError>,
) -> Result<(), ParseError> {
    fio_stream::jobs(text, &mut |header, job| {
        let name = job["jobname"].as_str().unwrap_or("");
        if name == "All clients" {
            return Ok(ControlFlow::Continue(()));
        }
        if !job["read"].is_object() && !job["write"].is_object() {
            return Err(Stop::NotFio(format!(
                "job {name:?} has no \"read\" or \"write\" figures: not fio's results of a job"
            )));
        }
        each(job_run(&job, header)).map_err(Stop::Refused)
    })
}

fn option<'a>(job: &'a Value, globals: &'a [Map<String, Value>], key: &str) -> Option<&'a str> {
    job["job options"][key].as_str().or_else(|| globals.iter().find_map(|g| g.get(key)?.as_str()))
}

fn job_run(job: &Value, header: &Header) -> ForeignRun {
    let version = header.version.as_deref().unwrap_or_default();
    let globals = header.globals.as_slice();
    let started_at = header.timestamp.map(rfc3339_of_unix);
    let old_kib = io_bytes_in_kib(version);
    let micro = job["read"].get("clat_ns").is_none() && job["write"].get("clat_ns").is_none();
    let read = direction(&job["read"], old_kib, micro);
    let write = direction(&job["write"], old_kib, micro);
    let runtime_ms = ["read", "write"].iter().filter_map(|d| job[*d]["runtime"].as_f64()).fold(0.0, f64::max);
    let mut notes = Vec::new();
    if micro {
        notes.push("fio 2.x reports latencies in microseconds; they are converted to nanoseconds.".into());
    }
    if read.percentiles_ns.iter().chain(&write.percentiles_ns).next().is_some() {
        notes.push("Percentiles are of completion latency (clat), as fio reports them by default.".into());
    }
    let rw = option(job, globals, "rw").or_else(|| option(job, globals, "readwrite")).unwrap_or("read");
    let (read_pct, random_pct) = mix(rw, option(job, globals, "rwmixread").and_then(|v| v.parse().ok()));
    let total = sum(&read, &write, runtime_ms / 1000.0);
    let client = job["hostname"].as_str().map(|h| format!(" on {h}")).unwrap_or_default();
    let jobs = option(job, globals, "numjobs").and_then(|v| v.parse::<u32>().ok()).unwrap_or(1);
    ForeignRun {
        tool: Some(Tool::Fio),
        tool_version: Some(version.trim_start_matches("fio-").to_string()),
        name: format!("{}{client}", job["jobname"].as_str().unwrap_or("job")),
        started_at,
        duration_s: (runtime_ms > 0.0).then_some(runtime_ms / 1000.0),
        warmup_s: option(job, globals, "ramp_time").and_then(seconds),
        target: option(job, globals, "filename").map(str::to_string),
        target_size: option(job, globals, "size").and_then(size),
        block_size: option(job, globals, "bs").or_else(|| option(job, globals, "blocksize")).and_then(size),
        threads: Some(jobs),
        queue_depth: option(job, globals, "iodepth").and_then(|v| v.trim().parse().ok()).or(Some(1)),
        read_pct,
        random_pct,
        engine: option(job, globals, "ioengine").map(str::to_string),
        cpu_pct: None,
        threads_detail: Vec::<ForeignThread>::new(),
        total,
        read,
        write,
        notes,
        ..ForeignRun::default()
    }
}

/// fio up to 2.20 wrote io_bytes in KiB (fixed in 2.21).
fn io_bytes_in_kib(version: &str) -> bool {
    let v = version.trim_start_matches("fio-");
    let mut parts = v.split(['.', '-']).map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(3), parts.next().unwrap_or(0));
    major < 2 || (major == 2 && minor <= 20)
}

fn direction(d: &Value, old_kib: bool, micro: bool) -> ForeignStats {
    let ios = d["total_ios"].as_u64().unwrap_or(0);
    if ios == 0 {
        return ForeignStats::default();
    }
    // Byte counts beyond 2^64 are no disk's: left out rather than wrapped.
    let bytes = match d["io_kbytes"].as_u64() {
        Some(k) => k.checked_mul(1024),
        None => d["io_bytes"].as_u64().and_then(|b| if old_kib { b.checked_mul(1024) } else { Some(b) }),
    };
    let scale = if micro { 1000.0 } else { 1.0 };
    let lat = if micro { &d["lat"] } else { &d["lat_ns"] };
    let clat = if micro { &d["clat"] } else { &d["clat_ns"] };
    let mut percentiles: Vec<(f64, f64)> = clat["percentile"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.parse().ok()?, v.as_f64()? * scale)))
                .filter(|(_, v)| *v > 0.0)
                .collect()
        })
        .unwrap_or_default();
    percentiles.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut bins: Vec<(u64, u64)> = clat["bins"]
        .as_object()
        .map(|m| m.iter().filter_map(|(k, v)| Some(((k.parse::<f64>().ok()? * scale) as u64, v.as_u64()?))).collect())
        .unwrap_or_default();
    bins.sort_unstable();
    let bps = d["bw_bytes"].as_f64().or_else(|| d["bw"].as_f64().map(|kib| kib * 1024.0));
    ForeignStats {
        ios: Some(ios),
        bytes,
        iops: d["iops"].as_f64(),
        bytes_per_sec: bps,
        latency_min_ns: lat["min"].as_f64().map(|v| v * scale),
        latency_mean_ns: lat["mean"].as_f64().map(|v| v * scale),
        latency_max_ns: lat["max"].as_f64().map(|v| v * scale),
        latency_stddev_ns: lat["stddev"].as_f64().map(|v| v * scale),
        percentiles_ns: percentiles,
        histogram_ns: bins,
    }
}

/// Reads and writes together: counts and rates add; the mean is weighted by I/Os; the
/// percentiles are those of the one direction that ran, or of the joined bins.
fn sum(r: &ForeignStats, w: &ForeignStats, secs: f64) -> ForeignStats {
    let (ri, wi) = (r.ios.unwrap_or(0), w.ios.unwrap_or(0));
    if wi == 0 {
        return r.clone();
    }
    if ri == 0 {
        return w.clone();
    }
    let add = |a: Option<f64>, b: Option<f64>| Some(a? + b?);
    let mut bins = r.histogram_ns.clone();
    bins.extend(&w.histogram_ns);
    bins.sort_unstable();
    ForeignStats {
        ios: Some(ri + wi),
        bytes: Some(r.bytes.unwrap_or(0) + w.bytes.unwrap_or(0)),
        iops: add(r.iops, w.iops).or_else(|| (secs > 0.0).then(|| (ri + wi) as f64 / secs)),
        bytes_per_sec: add(r.bytes_per_sec, w.bytes_per_sec),
        latency_min_ns: r.latency_min_ns.zip(w.latency_min_ns).map(|(a, b)| a.min(b)),
        latency_mean_ns: r
            .latency_mean_ns
            .zip(w.latency_mean_ns)
            .map(|(a, b)| (a * ri as f64 + b * wi as f64) / (ri + wi) as f64),
        latency_max_ns: r.latency_max_ns.zip(w.latency_max_ns).map(|(a, b)| a.max(b)),
        latency_stddev_ns: None,
        percentiles_ns: Vec::new(),
        histogram_ns: bins,
    }
}

/// Read % and random % from `rw` and `rwmixread`.
fn mix(rw: &str, rwmixread: Option<f64>) -> (Option<f64>, Option<f64>) {
    let rw = rw.split(':').next().unwrap_or(rw);
    let random = if rw.starts_with("rand") { 100.0 } else { 0.0 };
    let read = match rw {
        "read" | "randread" => 100.0,
        "write" | "randwrite" | "trim" | "randtrim" => 0.0,
        "rw" | "readwrite" | "randrw" => rwmixread.unwrap_or(50.0),
        _ => return (None, None),
    };
    (Some(read), Some(random))
}

/// fio's sizes: `4k`, `1861G`, `1gb`, `4KiB` (k = 1024, as fio's default kb_base).
fn size(v: &str) -> Option<u64> {
    let v = v.trim();
    let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
    let n: u64 = digits.parse().ok()?;
    let unit = v[digits.len()..].trim().to_ascii_lowercase();
    let shift = match unit.trim_end_matches('b').trim_end_matches('i') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

/// `30`, `30s`, `5m`.
fn seconds(v: &str) -> Option<f64> {
    let v = v.trim();
    let (num, factor) = match v.chars().last()? {
        's' => (&v[..v.len() - 1], 1.0),
        'm' => (&v[..v.len() - 1], 60.0),
        'h' => (&v[..v.len() - 1], 3600.0),
        _ => (v, 1.0),
    };
    num.parse::<f64>().ok().map(|n| n * factor)
}

fn rfc3339_of_unix(secs: u64) -> String {
    spindle_model::time::rfc3339_utc(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::super::parse;

    const REAL: [(&str, &str); 5] = [
        ("fio-3.1 randread", include_str!("../../testdata/fio-plot_HPDL380G8-MX200_randread-1-1.json")),
        ("fio-3.1 randwrite", include_str!("../../testdata/fio-plot_HPDL380G8-MX200_randwrite-8-64.json")),
        ("fio-2.18", include_str!("../../testdata/fio-plot_example_data01_randread-01.json")),
        ("fio-3.33 after a signal", include_str!("../../testdata/bensonjohnson_fio.json")),
        ("fio-3.33 json+", include_str!("../../testdata/fio-3.33-plus.json")),
    ];

    /// Every run of the real files, as the reader that took the whole text read them before
    /// it read a stream (`SPINDLE_UPDATE_GOLDEN=1` rewrites it after a change meant to show).
    #[test]
    fn the_real_files_read_as_the_whole_text_reader_read_them() {
        let mut got = String::new();
        let both = format!("{}\nfio: some message\n{}", REAL[4].1, REAL[0].1);
        for (name, text) in REAL.into_iter().chain([("two documents with a message between", both.as_str())]) {
            got += &format!("== {name}\n");
            for run in parse(text).unwrap() {
                got += &format!("{run:?}\n");
            }
        }
        let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/fio-runs.golden");
        if std::env::var_os("SPINDLE_UPDATE_GOLDEN").is_some() {
            std::fs::write(golden, &got).unwrap();
        }
        let want = std::fs::read_to_string(golden).unwrap();
        let at = want.lines().zip(got.lines()).position(|(a, b)| a != b);
        assert!(want == got, "differs from {golden} at line {at:?}");
    }
}
