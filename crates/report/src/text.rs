//! The human summary, laid out the way SQLIO printed its results (throughput metrics, latency
//! metrics, the millisecond histogram) so a DBA who knows those files reads it at a glance,
//! with the percentiles, per-thread figures and environment SQLIO never had.

use crate::document::RunSource;
use crate::format::{ExportError, Exporter};
use spindle_model::db::Counts;
use spindle_model::record::{DeviceInfo, IoStats, LatencyOf, LatencySummary, RunStatus};
use spindle_model::units::{NOT_RECORDED, format_latency_opt};
use spindle_model::units::{format_latency_ns, format_size};
use spindle_model::{Recorded, RunRecord};
use std::fmt::Write;

pub struct TextExporter;

/// The terminal's report, of runs a command has just measured: drawn whole.
impl Exporter for TextExporter {
    fn write(&self, runs: &dyn RunSource, out: &mut dyn std::io::Write) -> Result<(), ExportError> {
        let mut records = Vec::with_capacity(runs.count());
        runs.each(&mut |r| {
            records.push(r.record.clone());
            Ok(())
        })?;
        Ok(out.write_all(&render_text(&records))?)
    }
}

pub fn render_text(records: &[RunRecord]) -> Vec<u8> {
    let mut out = String::new();
    for (i, r) in records.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        record(&mut out, r);
    }
    if records.len() > 1 {
        let rows: Vec<(String, &RunRecord)> =
            records.iter().enumerate().map(|(i, r)| ((i + 1).to_string(), r)).collect();
        out.push_str(&String::from_utf8_lossy(&render_overview(&rows)));
    }
    out.into_bytes()
}

fn record(out: &mut String, r: &RunRecord) {
    let status = match r.status {
        RunStatus::Complete => "complete".to_string(),
        RunStatus::Interrupted => "INTERRUPTED: the figures cover only the time measured".to_string(),
        RunStatus::Failed => "FAILED".to_string(),
    };
    let engine = r.details.engine().unwrap_or("-");
    let _ = writeln!(out, "spindle {} run, {status}", r.kind());
    let _ = writeln!(out, "started {}, measured {:.2} s, engine {engine}", r.started_at, r.measured_seconds);
    if !r.labels.is_empty() {
        let labels: Vec<String> = r.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(out, "labels: {}", labels.join(" "));
    }
    for (i, t) in r.targets.iter().enumerate() {
        let on = t.device.as_deref().map(|d| format!(" on {d}")).unwrap_or_default();
        // A database workload's target is its database: it has no test file's size.
        let size = if r.kind().moves_bytes() { format_size(t.size) } else { String::new() };
        let detail = [size, on.trim_start().to_string()].into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>();
        let detail = if detail.is_empty() { String::new() } else { format!(" ({})", detail.join(" ")) };
        let _ = writeln!(out, "\ntarget {}: {}{detail}", i + 1, t.path);
        let _ = writeln!(out, "  {}", t.workload);
        stats(out, &t.stats, "  ", r);
    }
    if r.targets.len() != 1 {
        let _ = writeln!(out, "\nall targets:");
        stats(out, &r.summary, "  ", r);
    }
    if r.behind_schedule_ios > 0 {
        let _ = writeln!(
            out,
            "\nbehind schedule by {} I/Os: meant to start inside the measured window, never issued \
             (the device, or spindle, could not keep the rate asked for)",
            r.behind_schedule_ios
        );
    }
    if let Some(said) = spindle_analysis::over_time::said(r) {
        let _ = writeln!(out, "\nover time: {said}");
    }
    threads(out, r);
    if let Some(f) = r.details.large_op() {
        large_op(out, f);
    }
    let cpu = &r.summary.cpu;
    if r.recorded().cpu {
        let _ = writeln!(
            out,
            "\nCPU (spindle itself): user {:.2} s, system {:.2} s, {:.2} us per {}",
            cpu.user_seconds,
            cpu.system_seconds,
            cpu.us_per_io,
            r.counts.one()
        );
    } else {
        let _ = writeln!(
            out,
            "\nCPU (spindle itself): user {NOT_RECORDED}, system {NOT_RECORDED}, {NOT_RECORDED} per {}",
            r.counts.one()
        );
    }
    crate::counters::counters(out, r);
    environment(out, r);
    if !r.errors.is_empty() {
        let errors: Vec<String> = r.errors.iter().map(|(k, n)| format!("{k}: {n}")).collect();
        let _ = writeln!(out, "\nfailed {}: {}", r.counts.plural(), errors.join(", "));
    }
    if let Some(v) = r.details.verify() {
        out.push('\n');
        crate::render_verification(out, v);
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
}

/// A large operation's volumes by role: the data's and the log's apart where they are on
/// different volumes, one "data and log" row where they share one.
fn large_op(out: &mut String, f: &spindle_model::db::LargeOpFigures) {
    let cache = match f.cold {
        Some(true) => ", cold",
        Some(false) => ", warm",
        None => "",
    };
    let _ = writeln!(out, "\nlarge operation: {}, {} rows in {:.2} s{cache}", f.operation, f.rows, f.seconds);
    if let Some(why) = &f.cold_why {
        let _ = writeln!(out, "  cache: {why}");
    }
    let roles = f.roles();
    if roles.is_empty() {
        let _ = writeln!(out, "  no volume of this machine measured (the engine's files are elsewhere)");
        return;
    }
    let _ = writeln!(
        out,
        "  {:<24} {:>10} {:>10} {:>8} {:>8} {:>9} {:>10} {:>6}",
        "volumes (/proc/diskstats)", "reads", "writes", "KB/read", "KB/write", "read MB/s", "write MB/s", "queue"
    );
    let kb = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    for r in &roles {
        let _ = writeln!(
            out,
            "  {:<24} {:>10} {:>10} {:>8} {:>8} {:>9.2} {:>10.2} {:>6}",
            format!("{} ({})", r.role.name(), r.devices.join("+")),
            r.reads,
            r.writes,
            kb(r.kb_per_read),
            kb(r.kb_per_write),
            r.read_mb_per_sec,
            r.write_mb_per_sec,
            r.queue.map_or("-".to_string(), |q| format!("{q:.2}"))
        );
    }
    if roles.iter().any(|r| r.shared) {
        let _ = writeln!(out, "  a volume holds both data and log files: its I/O is in both rows");
    }
}

/// What a run's operations are called: I/Os, or a database workload's calls.
struct Words {
    per_sec: &'static str,
    read: &'static str,
    write: &'static str,
}

fn words(r: &RunRecord) -> Words {
    let [read, write] = r.kind().directions();
    Words { per_sec: r.counts.per_sec(), read, write }
}

fn stats(out: &mut String, s: &IoStats, indent: &str, r: &RunRecord) {
    let w = words(r);
    let _ = writeln!(out, "{indent}throughput metrics:");
    match r.rate() {
        Some(_) => {
            let _ = writeln!(out, "{indent}{}: {:>12.2}", w.per_sec, s.iops);
        }
        None => {
            let _ = writeln!(
                out,
                "{indent}{}: {:>12}   (a checkpoint processes no rows: its I/O is below)",
                w.per_sec, "-"
            );
        }
    }
    if s.bytes > 0 || r.counts == Counts::Ios {
        let _ = writeln!(out, "{indent}MBs/sec: {:>12.2}   (decimal MB; {:.2} MiB/s)", s.mb_per_sec, s.mib_per_sec);
    }
    let _ = writeln!(out, "{indent}latency metrics:");
    let commits = s.lead_latency().0 == LatencyOf::Commit;
    if commits {
        // A DBA reads the headline as the latency of a commit: the write and its flush.
        let what = if s.flush.count > 0 {
            "write + fdatasync, from the first write's start to the flush's end"
        } else {
            "each write-through write"
        };
        let _ = writeln!(out, "{indent}commits ({what}): {}", s.commit.count);
    }
    let recorded = r.recorded();
    if s.lead_count() == 0 && r.kind().times_operations() {
        // Stopped before any completed: its latencies are zeros that measured nothing.
        let _ = writeln!(out, "{indent}none: no {} completed", r.counts.plural());
    } else {
        latency(out, indent, "", s.lead_latency().1, recorded.of_count(s.lead_count()));
    }
    // Reads and writes each, beside a mix's total or a commit made of writes and flushes.
    if (s.read.ios > 0 && s.write.ios > 0) || (commits && s.flush.count > 0) {
        let share = |n: u64| 100.0 * n as f64 / s.ios.max(1) as f64;
        if s.read.ios > 0 {
            let _ = writeln!(out, "{indent}{:<7}{:5.1}%: {:.2} {}", w.read, share(s.read.ios), s.read.iops, w.per_sec);
            latency(out, indent, "  ", &s.read.latency_ns, recorded.of_count(s.read.ios));
        }
        let _ = writeln!(out, "{indent}{:<7}{:5.1}%: {:.2} {}", w.write, share(s.write.ios), s.write.iops, w.per_sec);
        latency(out, indent, "  ", &s.write.latency_ns, recorded.of_count(s.write.ios));
    }
    if s.flush.count > 0 {
        let _ = writeln!(out, "{indent}flushes (fdatasync): {}", s.flush.count);
        latency(out, indent, "  ", &s.flush.latency_ns, Recorded::ALL);
    }
    // A large operation is one statement: it has no histogram of latencies.
    if r.kind() != spindle_model::RunKind::LargeOps {
        histogram(out, indent, &s.sqlio_histogram_pct);
    }
}

/// A latency's figures; those the run did not record (a foreign tool's, or of no operation at
/// all) as absent.
fn latency(out: &mut String, indent: &str, sub: &str, l: &LatencySummary, recorded: Recorded) {
    let shown = |ok: bool, v: f64| format_latency_opt(ok.then_some(v));
    let ns = |v: u64| shown(recorded.percentiles, v as f64);
    let _ = writeln!(
        out,
        "{indent}{sub}Min_Latency: {}  Avg_Latency: {}  Max_Latency: {}  Stddev: {}",
        shown(recorded.min, l.min as f64),
        shown(recorded.latency, l.mean),
        shown(recorded.max, l.max as f64),
        shown(recorded.stddev, l.stddev)
    );
    let _ = writeln!(
        out,
        "{indent}{sub}p50 {}  p90 {}  p95 {}  p99 {}  p99.9 {}  p99.99 {}",
        ns(l.p50),
        ns(l.p90),
        ns(l.p95),
        ns(l.p99),
        ns(l.p99_9),
        ns(l.p99_99)
    );
}

/// SQLIO's two-row histogram: milliseconds 0..23 and 24+, then the percentage of I/Os.
fn histogram(out: &mut String, indent: &str, pct: &[f64]) {
    if pct.is_empty() {
        return;
    }
    let last = pct.len() - 1;
    let ms: Vec<String> = (0..pct.len()).map(|i| if i == last { format!("{i}+") } else { i.to_string() }).collect();
    let values: Vec<String> = pct.iter().map(|p| format!("{:.0}", p)).collect();
    let row = |cells: &[String]| cells.iter().map(|c| format!("{c:>3}")).collect::<Vec<_>>().join(" ");
    let _ = writeln!(out, "{indent}histogram:");
    let _ = writeln!(out, "{indent}ms: {}", row(&ms));
    let _ = writeln!(out, "{indent}%:  {}", row(&values));
}

fn threads(out: &mut String, r: &RunRecord) {
    if r.threads.len() < 2 {
        return;
    }
    let commits = if crate::lead::any_commits(r.threads.iter().map(|t| &t.stats)) {
        " (of commits where writes were flushed)"
    } else {
        ""
    };
    let _ = writeln!(out, "\nper thread{commits}:");
    let (who, rate) = if r.counts == Counts::Calls { ("session", "calls/sec") } else { ("thread", r.counts.per_sec()) };
    let mb = |text: String| if r.kind().moves_bytes() { format!(" {text:>10}") } else { String::new() };
    let _ = writeln!(out, "  {:>6} {:>7} {:>12}{} {:>10} {:>10}", "target", who, rate, mb("MB/s".into()), "avg", "p99");
    for t in &r.threads {
        let recorded = r.recorded().of_thread().of_count(t.stats.lead_count());
        let _ = writeln!(
            out,
            "  {:>6} {:>7} {:>12}{} {:>10} {:>10}",
            t.target + 1,
            t.thread,
            crate::view::rate_text(t.stats.iops),
            mb(crate::view::rate_text(t.stats.mb_per_sec)),
            format_latency_opt(recorded.latency.then_some(t.stats.lead_latency().1.mean)),
            format_latency_opt(recorded.percentiles.then_some(t.stats.lead_latency().1.p99 as f64))
        );
    }
}

fn environment(out: &mut String, r: &RunRecord) {
    if !r.recorded().environment {
        let _ = writeln!(out, "\nenvironment: {NOT_RECORDED}");
        return;
    }
    let e = &r.environment;
    let _ = writeln!(out, "\nenvironment:");
    let _ = writeln!(
        out,
        "  host {}, {}, kernel {}, {} ({} logical CPUs), {:.1} GiB memory",
        e.hostname,
        e.os,
        e.kernel,
        e.cpu_model,
        e.logical_cpus,
        e.memory_bytes as f64 / (1u64 << 30) as f64
    );
    for d in &e.devices {
        let _ = writeln!(out, "  {}: {}", d.target, describe_device(d));
    }
    for shared in spindle_model::record::shared_disks(&e.devices) {
        let targets: Vec<&str> =
            shared.targets.iter().filter_map(|&i| e.devices.get(i)).map(|d| d.target.as_str()).collect();
        let _ = writeln!(
            out,
            "  {} share one disk ({}): what one does, the others wait for",
            targets.join(" and "),
            shared.disk
        );
    }
}

/// The layers between a target and its disks, in words: `loop0 over /srv/data.img (direct I/O
/// off: its page cache stands between), members sda2 and sdb2, disks sda and sdb`.
pub(crate) fn layers_text(d: &DeviceInfo) -> String {
    let mut parts = Vec::new();
    if let Some(file) = &d.loop_backing_file {
        let name = [&d.partition, &d.device].into_iter().flatten().find(|n| n.starts_with("loop"));
        let dio = match d.loop_direct_io {
            Some(true) => " (direct I/O on)",
            Some(false) => " (direct I/O off: the file's page cache stands between)",
            None => "",
        };
        parts.push(format!("{} over {file}{dio}", name.map_or("a loop device", String::as_str)));
    }
    if !d.members.is_empty() {
        parts.push(format!("members {}", d.members.join(" and ")));
    }
    if d.disks.len() > 1 {
        parts.push(format!("disks {}", d.disks.join(" and ")));
    }
    parts.join(", ")
}

fn describe_device(d: &DeviceInfo) -> String {
    let mut parts = Vec::new();
    if let Some(dev) = &d.device {
        let model = d.model.as_deref().map(|m| format!(" ({m})")).unwrap_or_default();
        let part = d.partition.as_deref().map(|p| format!(" via {p}")).unwrap_or_default();
        parts.push(format!("device {dev}{model}{part}"));
    }
    if let Some(rot) = d.rotational {
        parts.push(if rot { "rotational".into() } else { "non-rotational".into() });
    }
    if let Some(fs) = &d.filesystem {
        let at = d.mount_point.as_deref().map(|m| format!(" at {m}")).unwrap_or_default();
        let opts = d.mount_options.as_deref().map(|o| format!(" ({o})")).unwrap_or_default();
        parts.push(format!("{fs}{at}{opts}"));
    }
    if let Some(s) = &d.scheduler {
        parts.push(format!("scheduler {s}"));
    }
    if let (Some(l), Some(p)) = (d.logical_block_size, d.physical_block_size) {
        parts.push(format!("blocks {l}/{p} (logical/physical)"));
    }
    if let Some(c) = &d.write_cache {
        parts.push(format!("cache {c}"));
    }
    if let Some(kb) = d.read_ahead_kb {
        parts.push(format!("read-ahead {kb} KiB"));
    }
    if let Some(kb) = d.max_sectors_kb {
        parts.push(format!("largest request {kb} KiB"));
    }
    let layers = layers_text(d);
    if !layers.is_empty() {
        parts.push(layers);
    }
    if parts.is_empty() { "unknown".into() } else { parts.join(", ") }
}

/// Several runs (repeats, sweeps, suites): one line each, so they can be read against each
/// other, each under a name (its number, its run id, its suite member).
pub fn render_overview(rows: &[(String, &RunRecord)]) -> Vec<u8> {
    let mut out = String::new();
    let width = rows.iter().map(|(name, _)| name.len()).max().unwrap_or(1).max(3);
    let _ = writeln!(out, "\nruns:");
    // Rates are named by what the runs count, when they all count the same.
    let counts = rows.first().map_or(Counts::Ios, |r| r.1.counts);
    let rate = if rows.iter().all(|r| r.1.counts == counts) { counts.per_sec() } else { "ops/sec" };
    let _ = writeln!(out, "  {:<width$} {:>12} {:>10} {:>10} {:>10}  status", "run", rate, "MB/s", "avg", "p99");
    for (name, r) in rows {
        let s = &r.summary;
        let recorded = r.recorded();
        let _ = writeln!(
            out,
            "  {:<width$} {:>12} {:>10} {:>10} {:>10}  {}{}",
            name,
            r.rate().map_or("-".to_string(), crate::view::rate_text),
            if r.kind().moves_bytes() { crate::view::rate_text(s.mb_per_sec) } else { "-".to_string() },
            format_latency_opt(recorded.latency.then_some(s.lead_latency().1.mean)),
            format_latency_opt(recorded.percentiles.then_some(s.lead_latency().1.p99 as f64)),
            r.status.name(),
            commit_parts(s)
        );
    }
    out.into_bytes()
}

/// After an overview row whose latency is a commit's: what it is made of, on average.
fn commit_parts(s: &IoStats) -> String {
    if s.lead_latency().0 == LatencyOf::Io {
        String::new()
    } else if s.flush.count == 0 {
        "  (commits: each write-through write)".to_string()
    } else {
        format!(
            "  (commits: write {} + fdatasync {}, averages)",
            format_latency_ns(s.write.latency_ns.mean),
            format_latency_ns(s.flush.latency_ns.mean)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::fixtures::record;

    #[test]
    fn reads_like_sqlio_with_every_section() {
        let text = String::from_utf8(render_text(&[record()])).unwrap();
        for needle in [
            "IOs/sec:",
            "MBs/sec:",
            "Min_Latency:",
            "Avg_Latency:",
            "histogram:",
            "24+",
            "p99.99",
            "flushes (fdatasync): 2500",
            "per thread",
            "environment:",
            "scheduler mq-deadline",
            "blocks 512/4096",
            "failed I/Os: EIO: 3",
            "labels: raid=10",
            "counters (every 1 s, 3 samples)",
            "device I/Os/sec (vda): 5,500 against spindle's",
            "all targets:",
            "behind schedule by 12 I/Os",
        ] {
            assert!(text.contains(needle), "missing {needle:?}:\n{text}");
        }
    }

    #[test]
    fn the_environment_names_a_loop_devices_backing_file_members_and_shared_disks() {
        let mut r = record();
        let d = &mut r.environment.devices[0];
        d.partition = Some("loop0".into());
        d.loop_backing_file = Some("/srv/data.img".into());
        d.loop_direct_io = Some(false);
        let mut log = spindle_model::record::DeviceInfo {
            target: "/log/l.dat".into(),
            device: Some("sda".into()),
            partition: Some("dm-0".into()),
            members: vec!["sda2".into(), "vda3".into()],
            disks: vec!["sda".into(), "vda".into()],
            ..Default::default()
        };
        log.mount_point = Some("/log".into());
        r.environment.devices.push(log);
        let text = String::from_utf8(render_text(&[r])).unwrap();
        for needle in [
            "loop0 over /srv/data.img (direct I/O off: the file's page cache stands between)",
            "members sda2 and vda3, disks sda and vda",
            "/data/my,file.dat and /log/l.dat share one disk (vda): what one does, the others wait for",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
    }

    #[test]
    fn a_flushed_log_leads_with_its_commit_latency_beside_writes_and_flushes() {
        let r = record();
        let text = String::from_utf8(render_text(std::slice::from_ref(&r))).unwrap();
        let log = &text[text.find("target 2:").unwrap()..text.find("all targets:").unwrap()];
        let stats = &r.targets[1].stats;
        let headline = format!(
            "commits (write + fdatasync, from the first write's start to the flush's end): {}\n  Min_Latency: {}  Avg_Latency: {}",
            stats.commit.count,
            format_latency_ns(stats.commit.latency_ns.min as f64),
            format_latency_ns(stats.commit.latency_ns.mean)
        );
        assert!(log.contains(&headline), "{log}");
        let writes = format!("Avg_Latency: {}", format_latency_ns(stats.write.latency_ns.mean));
        let flushes = format!("Avg_Latency: {}", format_latency_ns(stats.flush.latency_ns.mean));
        for beside in ["writes 100.0%", &writes, "flushes (fdatasync): 2500", &flushes] {
            assert!(log.contains(beside), "missing {beside:?}:\n{log}");
        }
        let data = &text[text.find("target 1:").unwrap()..text.find("target 2:").unwrap()];
        assert!(!data.contains("commits"), "nothing flushed, no commits: {data}");
    }

    #[test]
    fn the_overview_shows_commit_latency_and_its_parts() {
        let mut log = record();
        log.summary = log.targets[1].stats.clone();
        let mut through = log.clone();
        through.summary.flush = Default::default();
        let plain = spindle_model::fixtures::io_run(&[100.0], 200_000, &[]);
        let rows = [("wal".to_string(), &log), ("through".to_string(), &through), ("read".to_string(), &plain)];
        let text = String::from_utf8(render_overview(&rows)).unwrap();
        let s = &log.summary;
        let wal = text.lines().find(|l| l.trim_start().starts_with("wal")).unwrap();
        assert!(wal.contains(&format_latency_ns(s.commit.latency_ns.mean)), "{wal}");
        let parts = format!(
            "(commits: write {} + fdatasync {}, averages)",
            format_latency_ns(s.write.latency_ns.mean),
            format_latency_ns(s.flush.latency_ns.mean)
        );
        assert!(wal.ends_with(&parts), "{wal}");
        assert!(text.lines().any(|l| l.ends_with("(commits: each write-through write)")), "{text}");
        let read = text.lines().find(|l| l.trim_start().starts_with("read")).unwrap();
        assert!(read.ends_with("complete"), "no commits, nothing after the status: {read}");
    }

    #[test]
    fn an_interrupted_run_says_so_up_front() {
        let mut r = record();
        r.status = RunStatus::Interrupted;
        let text = String::from_utf8(render_text(&[r.clone(), r])).unwrap();
        assert!(text.lines().next().unwrap().contains("INTERRUPTED"), "{text}");
        assert!(text.contains("runs:"), "two records get an overview");
    }

    /// `runs show` of a large operation: its data's and log's volumes apart, and a checkpoint
    /// with no rate of rows (never IOs/sec).
    #[test]
    fn a_large_operation_shows_data_and_log_apart() {
        use spindle_model::KindData;
        use spindle_model::db::{DeviceIo, LargeOpFigures};
        let vol = |device: &str, writes: u64, kb: u64| DeviceIo {
            device: device.into(),
            writes,
            bytes_written: writes * kb * 1024,
            queue_ms: Some(500),
            seconds: Some(1.0),
            ..DeviceIo::default()
        };
        let op = |operation: &str, iops: f64| {
            let mut figures = LargeOpFigures {
                operation: operation.into(),
                rows: 1000,
                seconds: 1.0,
                volumes: vec![vol("loop1", 100, 63), vol("loop2", 10, 934)],
                data_volumes: vec!["loop1".into()],
                log_volumes: vec!["loop2".into()],
                ..LargeOpFigures::default()
            };
            figures.roles = figures.by_role();
            let mut r = RunRecord::new(
                KindData::LargeOps { spec: Default::default(), figures },
                RunStatus::Complete,
                std::time::SystemTime::UNIX_EPOCH,
                1.0,
            );
            r.summary.iops = iops;
            r
        };
        let text = String::from_utf8(render_text(&[op("update", 1000.0), op("checkpoint", 0.0)])).unwrap();
        let row = |start: &str| -> Vec<&str> {
            text.lines()
                .find(|l| l.trim_start().starts_with(start))
                .unwrap_or_else(|| panic!("{start}: {text}"))
                .split_whitespace()
                .collect()
        };
        assert_eq!(row("data (loop1)"), ["data", "(loop1)", "0", "100", "-", "63.0", "0.00", "6.45", "0.50"], "{text}");
        assert_eq!(row("log (loop2)"), ["log", "(loop2)", "0", "10", "-", "934.0", "0.00", "9.56", "0.50"], "{text}");
        assert!(text.contains("large operation: checkpoint") && !text.contains("IOs/sec"), "{text}");
        assert!(!text.contains("0ns") && !text.contains("histogram"), "no latencies of its own: {text}");
        assert!(text.contains("rows/sec:            -"), "{text}");
        let overview = text.lines().skip_while(|l| *l != "runs:").nth(3).unwrap();
        assert_eq!(overview.split_whitespace().nth(1), Some("-"), "{text}");
    }
}
