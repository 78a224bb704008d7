//! DiskSpd's XML output (-Rxml), as its XmlResultParser writes it: `<Results>` with `<System>`
//! (tool version, run time), `<Profile>` (the settings: a `<TimeSpan>` of `<Targets>` with
//! block size, `<Random>` or `<StrideSize>`, write ratio, outstanding requests, threads per
//! file; this `<TimeSpan>` holds no results), then one results `<TimeSpan>` per time span
//! (test time, thread count, CPU average, `<Latency>` percentiles when -L, and per thread
//! and target the bytes and I/O counts). One run per results time span.

use super::{ForeignRun, ForeignStats, ForeignThread, Tool, ms_to_ns, number};
use crate::ParseError;
use roxmltree::{Document, Node};

pub fn parse(text: &str) -> Result<Vec<ForeignRun>, ParseError> {
    super::xml_depth::check_nesting(text)?;
    let doc = Document::parse(text).map_err(|e| ParseError(format!("line {}: {e}", e.pos().row)))?;
    let root = doc.root_element();
    if root.tag_name().name() != "Results" {
        return Err(ParseError("not DiskSpd's XML output: the document is not <Results>".into()));
    }
    let version = path_text(root, &["System", "Tool", "Version"]).map(str::to_string);
    let started_at = path_text(root, &["System", "RunTime"]).and_then(run_time);
    let settings: Vec<Node> =
        child(root, "Profile").and_then(|p| child(p, "TimeSpans")).map(|t| children(t, "TimeSpan")).unwrap_or_default();
    let spans = children(root, "TimeSpan");
    if spans.is_empty() {
        let line = doc.text_pos_at(root.range().end).row;
        return Err(ParseError(format!("line {line}: no results <TimeSpan>: the DiskSpd output is cut short")));
    }
    spans
        .iter()
        .enumerate()
        .map(|(i, span)| {
            let mut run = run_of(*span, settings.get(i).copied())?;
            run.tool_version = version.clone();
            run.started_at = started_at.clone();
            Ok(run)
        })
        .collect()
}

fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|c| c.is_element() && c.tag_name().name() == name)
}

fn children<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Vec<Node<'a, 'i>> {
    node.children().filter(|c| c.is_element() && c.tag_name().name() == name).collect()
}

fn path_text<'a>(node: Node<'a, '_>, path: &[&str]) -> Option<&'a str> {
    let mut at = node;
    for name in path {
        at = child(at, name)?;
    }
    at.text().map(str::trim).filter(|t| !t.is_empty())
}

fn num(node: Node<'_, '_>, name: &str) -> Option<f64> {
    path_text(node, &[name]).and_then(number)
}

fn count(node: Node<'_, '_>, name: &str) -> Option<u64> {
    path_text(node, &[name]).and_then(|t| t.parse().ok())
}

/// `2024/06/03 10:00:00 UTC` as RFC 3339; anything else is left out.
fn run_time(v: &str) -> Option<String> {
    let v = v.strip_suffix("UTC")?.trim();
    let (date, time) = v.split_once(' ')?;
    let parts: Vec<u32> = date.split('/').filter_map(|p| p.parse().ok()).collect();
    let [y, m, d] = parts[..] else { return None };
    (time.len() == 8).then(|| format!("{y:04}-{m:02}-{d:02}T{time}Z"))
}

fn run_of(span: Node<'_, '_>, settings: Option<Node<'_, '_>>) -> Result<ForeignRun, ParseError> {
    let mut run = ForeignRun {
        tool: Some(Tool::Diskspd),
        duration_s: num(span, "TestTimeSeconds"),
        threads: count(span, "ThreadCount").map(|t| t as u32),
        cpu_pct: child(span, "CpuUtilization").and_then(|c| child(c, "Average")).and_then(|a| num(a, "UsagePercent")),
        ..ForeignRun::default()
    };
    if run.duration_s.is_none() {
        return Err(ParseError("a results <TimeSpan> without <TestTimeSeconds>".into()));
    }
    // Counts per thread and target, summed for the run.
    let (mut read, mut write) = (ForeignStats::default(), ForeignStats::default());
    for thread in children(span, "Thread") {
        let id = count(thread, "Id").unwrap_or(0) as u32;
        for target in children(thread, "Target") {
            // Counts past 2^64 (a garbled file) stop at the top rather than wrap.
            let add =
                |into: &mut Option<u64>, v: Option<u64>| *into = Some(into.unwrap_or(0).saturating_add(v.unwrap_or(0)));
            add(&mut read.ios, count(target, "ReadCount"));
            add(&mut read.bytes, count(target, "ReadBytes"));
            add(&mut write.ios, count(target, "WriteCount"));
            add(&mut write.bytes, count(target, "WriteBytes"));
            run.target = run.target.take().or_else(|| path_text(target, &["Path"]).map(str::to_string));
            run.target_size = run.target_size.or_else(|| count(target, "FileSize"));
            run.threads_detail.push(ForeignThread {
                thread: id,
                target: path_text(target, &["Path"]).map(str::to_string),
                stats: ForeignStats {
                    ios: count(target, "IOCount"),
                    bytes: count(target, "BytesCount"),
                    latency_mean_ns: num(target, "AverageLatencyMilliseconds").map(ms_to_ns),
                    latency_stddev_ns: num(target, "LatencyStdev").map(ms_to_ns),
                    ..ForeignStats::default()
                },
            });
        }
    }
    if run.threads_detail.is_empty() {
        return Err(ParseError("a results <TimeSpan> without any <Thread><Target> counts".into()));
    }
    let secs = run.duration_s.unwrap_or(0.0);
    let rate = |n: Option<u64>| n.filter(|_| secs > 0.0).map(|n| n as f64 / secs);
    for s in [&mut read, &mut write] {
        s.iops = rate(s.ios);
        s.bytes_per_sec = rate(s.bytes);
    }
    let mut total = ForeignStats {
        ios: Some(read.ios.unwrap_or(0).saturating_add(write.ios.unwrap_or(0))),
        bytes: Some(read.bytes.unwrap_or(0).saturating_add(write.bytes.unwrap_or(0))),
        ..ForeignStats::default()
    };
    total.iops = rate(total.ios);
    total.bytes_per_sec = rate(total.bytes);
    if let Some(latency) = child(span, "Latency") {
        latencies(latency, &mut read, &mut write, &mut total);
    } else {
        run.notes.push("DiskSpd measured no latency (it was run without -L).".into());
    }
    run.total = total;
    run.read = read;
    run.write = write;
    if let Some(target) = settings.and_then(|s| child(s, "Targets")).and_then(|t| child(t, "Target")) {
        run.block_size = count(target, "BlockSize");
        run.random_pct = Some(if child(target, "Random").is_some() { 100.0 } else { 0.0 });
        run.read_pct = num(target, "WriteRatio").map(|w| 100.0 - w);
        run.queue_depth = count(target, "RequestCount").map(|r| r as u32);
    }
    run.warmup_s = settings.and_then(|s| num(s, "Warmup"));
    run.name = super::name_of(run.block_size, run.read_pct);
    Ok(run)
}

/// `<Latency>`: averages, standard deviations and `<Bucket>` percentiles (0 is the minimum,
/// 100 the maximum), in milliseconds.
fn latencies(latency: Node<'_, '_>, read: &mut ForeignStats, write: &mut ForeignStats, total: &mut ForeignStats) {
    read.latency_mean_ns = num(latency, "AverageReadMilliseconds").map(ms_to_ns);
    read.latency_stddev_ns = num(latency, "ReadLatencyStdev").map(ms_to_ns);
    write.latency_mean_ns = num(latency, "AverageWriteMilliseconds").map(ms_to_ns);
    write.latency_stddev_ns = num(latency, "WriteLatencyStdev").map(ms_to_ns);
    total.latency_mean_ns = num(latency, "AverageTotalMilliseconds").map(ms_to_ns);
    total.latency_stddev_ns = num(latency, "LatencyStdev").map(ms_to_ns);
    for bucket in children(latency, "Bucket") {
        let Some(p) = num(bucket, "Percentile") else { continue };
        for (stats, name) in
            [(&mut *read, "ReadMilliseconds"), (&mut *write, "WriteMilliseconds"), (&mut *total, "TotalMilliseconds")]
        {
            let Some(ns) = num(bucket, name).map(ms_to_ns) else { continue };
            if p <= 0.0 {
                stats.latency_min_ns = Some(ns);
            } else if p >= 100.0 {
                stats.latency_max_ns = Some(ns);
            } else {
                stats.percentiles_ns.push((p, ns));
            }
        }
    }
}
