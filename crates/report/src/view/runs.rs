//! A section per run: its headline figures, latency percentiles and SQLIO's millisecond
//! histogram, the per-second series with the counters sampled beside it, its threads (a
//! Hammer run's sessions), the figures of its experiment, and what it ran on: spec, labels,
//! environment, origin, warnings.

use super::{Chart, ChartKind, Section, Series, Table};
use crate::document::ReportRun;
use crate::figures::Cell;
use crate::lead;
use spindle_model::record::{IoStats, LatencyOf, LatencySummary, RunRecord};
use spindle_model::units::format_bytes_approx;
use spindle_model::{Recorded, RunKind};

/// Long series are thinned to this many points: a chart cannot show more, and 200 runs of an
/// hour each must still make a page a browser opens at once.
const MAX_POINTS: usize = 200;
/// Counters charted beside a run's series (all are in the table).
const MAX_COUNTER_CHARTS: usize = 4;

pub fn section(r: &ReportRun, position: usize) -> Section {
    let rec = &r.record;
    let mut s = Section {
        anchor: match r.id {
            Some(id) => format!("run-{id}"),
            None => format!("run-n{}", position + 1),
        },
        level: 3,
        title: format!(
            "{}: {} {}{}",
            r.name(position),
            rec.kind().name(),
            rec.targets.first().map(|t| t.workload.as_str()).unwrap_or(""),
            r.point.as_ref().map(|p| format!(" ({p})")).unwrap_or_default()
        ),
        lead_tables: 1,
        ..Section::default()
    };
    if rec.status != spindle_model::record::RunStatus::Complete {
        s.notes.push(format!(
            "This run is {}: its figures cover the {:.1} s that ran.",
            rec.status.name(),
            rec.measured_seconds
        ));
    }
    s.notes.extend(rec.warnings.iter().map(|w| format!("Warning: {w}")));
    if let Some(o) = rec.details.origin() {
        s.notes.push(format!(
            "Imported from {} ({}{}), run {} of the file.",
            o.file,
            o.tool,
            o.tool_version.as_deref().map(|v| format!(" {v}")).unwrap_or_default(),
            o.run_in_file
        ));
        s.notes.extend(o.absent.iter().map(|a| format!("Not in the file: {a}.")));
        s.notes.extend(o.notes.iter().cloned());
    }
    if let Some(said) = spindle_analysis::over_time::said(rec) {
        s.notes.push(format!("Over time: {said}."));
    }
    s.tables.push(headline(rec));
    if let Some(d) = &rec.agents {
        let (said, table) = super::agents::agents(d);
        s.notes.push(said);
        s.tables.push(table);
        // Who measured it is part of its answer.
        s.lead_tables += 1;
    }
    s.tables.extend(role_table(r, position));
    // The log test's and large operations' latencies are of rows, not worth a chart.
    let charted = rec.summary.ios > 0 && !matches!(rec.kind(), RunKind::LogTest | RunKind::LargeOps);
    let recorded = rec.recorded().percentiles;
    if charted && recorded && (rec.summary.latency_ns.p50 > 0 || rec.summary.latency_ns.p99_99 > 0) {
        s.charts.push(percentiles(rec));
    }
    if charted && rec.summary.sqlio_histogram_pct.iter().any(|p| *p > 0.0) {
        s.charts.push(sqlio_histogram(rec));
    }
    if rec.timeseries.len() > 1 {
        s.charts.push(series(rec));
    }
    if let Some(log) = rec.counters.as_ref().filter(|l| !l.counters.is_empty()) {
        s.charts.extend(counter_charts(log));
        s.tables.push(counter_table(log));
    }
    if rec.threads.len() > 1 {
        s.tables.push(threads(rec));
    }
    if rec.targets.len() > 1 {
        s.tables.push(targets(rec));
    }
    if !rec.errors.is_empty() {
        s.tables.push(Table::pairs("Errors", rec.errors.iter().map(|(k, n)| (k.clone(), Cell::count(*n))).collect()));
    }
    s.tables.push(environment(rec));
    if !rec.environment.devices.is_empty() {
        s.tables.push(devices(rec));
    }
    if !rec.labels.is_empty() {
        s.tables
            .push(Table::pairs("Labels", rec.labels.iter().map(|(k, v)| (k.clone(), Cell::text(v.clone()))).collect()));
    }
    if !rec.command_line.is_empty() {
        s.blocks.push(("Command line".into(), rec.command_line.join(" ")));
    }
    s.blocks.push(("Spec".into(), serde_json::to_string_pretty(&rec.details.spec_json()).unwrap_or_default()));
    s
}

fn headline(rec: &RunRecord) -> Table {
    let st = &rec.summary;
    let counts = rec.kind().counts();
    let [read, write] = rec.kind().directions();
    let mut rows = vec![
        ("started".to_string(), Cell::text(rec.started_at.clone())),
        ("status".into(), Cell::text(rec.status.name())),
        ("seconds measured".into(), Cell::seconds(rec.measured_seconds)),
        (counts.plural().to_string(), Cell::count(st.ios)),
        (counts.per_sec().to_string(), Cell::opt(rec.rate(), Cell::rate)),
        (format!("{read}/sec"), Cell::rate(st.read.iops)),
        (format!("{write}/sec"), Cell::rate(st.write.iops)),
    ];
    if rec.kind().moves_bytes() {
        rows.push(("MB/s (decimal)".into(), Cell::rate(st.mb_per_sec)));
        rows.push(("MiB/s".into(), Cell::rate(st.mib_per_sec)));
    }
    // The commit latency leads where there are commits, and each I/O's follows, named so.
    let commits = st.lead_latency().0 == LatencyOf::Commit;
    if commits {
        rows.push(("commits".into(), Cell::count(st.commit.count)));
        rows.push(("commit latency mean".into(), Cell::latency_ns(st.commit.latency_ns.mean)));
        rows.push(("commit latency p99".into(), Cell::latency_ns(st.commit.latency_ns.p99 as f64)));
    }
    if st.ios > 0 {
        let recorded = rec.recorded();
        let name = |what: &str| if commits { format!("I/O latency {what}") } else { format!("latency {what}") };
        rows.push((name("min"), Cell::latency_if(recorded.min, st.latency_ns.min as f64)));
        rows.push((name("mean"), Cell::latency_if(recorded.latency, st.latency_ns.mean)));
        rows.push((name("max"), Cell::latency_if(recorded.max, st.latency_ns.max as f64)));
        rows.push((name("p99"), Cell::latency_if(recorded.percentiles, st.latency_ns.p99 as f64)));
    }
    if st.flush.count > 0 {
        rows.push(("flushes".into(), Cell::count(st.flush.count)));
        rows.push(("flush mean".into(), Cell::latency_ns(st.flush.latency_ns.mean)));
    }
    if st.cpu.us_per_io > 0.0 {
        rows.push((
            format!("spindle CPU per {}", counts.plural().trim_end_matches('s')),
            // A time as the latencies are, so the page reads it in their unit.
            Cell::latency_ns(st.cpu.us_per_io * 1e3),
        ));
    }
    if rec.behind_schedule_ios > 0 {
        rows.push(("behind schedule".into(), Cell::count(rec.behind_schedule_ios)));
    }
    if let Some(f) = rec.details.log_test() {
        rows.push(("rows a transaction".into(), Cell::count(f.transaction_size)));
        rows.push(("log writes".into(), Cell::opt(f.log_write_ios, Cell::count)));
        rows.push(("log bytes written".into(), Cell::opt(f.log_bytes_written, |b| Cell::bytes(b as f64))));
        rows.push(("log MB/s".into(), Cell::opt(f.mb_per_sec, Cell::rate)));
        rows.push(("log figures from".into(), Cell::text(f.source.clone())));
        rows.extend(f.missing.iter().map(|m| ("not measured".to_string(), Cell::text(m.clone()))));
    }
    if let Some(op) = rec.details.large_op() {
        rows.push(("operation".into(), Cell::text(op.operation.clone())));
        rows.push(("rows".into(), Cell::count(op.rows)));
        if let Some(why) = &op.cold_why {
            rows.push(("cache".into(), Cell::text(why.clone())));
        }
        for v in &op.volumes {
            rows.push((
                format!("{} read / written", v.device),
                Cell::text(format!(
                    "{} in {} reads / {} in {} writes",
                    format_bytes_approx(v.bytes_read),
                    v.reads,
                    format_bytes_approx(v.bytes_written),
                    v.writes
                )),
            ));
        }
    }
    Table::pairs("Figures", rows)
}

/// The columns of a large operation's volumes by role, after its run and operation.
pub(super) const ROLE_COLUMNS: [&str; 12] = [
    "run",
    "operation",
    "role",
    "volumes",
    "reads",
    "writes",
    "KB/read",
    "KB/write",
    "read MB/s",
    "write MB/s",
    "queue",
    "shared",
];

/// A role's cells from `role` on (`ROLE_COLUMNS` less the first two).
pub(super) fn role_cells(r: &spindle_model::db::RoleIo) -> Vec<Cell> {
    let kb = |v: f64| Cell::number(format!("{v:.1}"), v);
    vec![
        Cell::text(r.role.name()),
        Cell::text(r.devices.join(", ")),
        Cell::count(r.reads),
        Cell::count(r.writes),
        Cell::opt(r.kb_per_read, kb),
        Cell::opt(r.kb_per_write, kb),
        Cell::rate(r.read_mb_per_sec),
        Cell::rate(r.write_mb_per_sec),
        Cell::opt(r.queue, |q| Cell::number(format!("{q:.2}"), q)),
        Cell::text(if r.shared { "with the other role" } else { "" }),
    ]
}

/// A large operation's volumes, a row per role.
fn role_table(r: &ReportRun, position: usize) -> Option<Table> {
    let op = r.record.details.large_op()?;
    let mut t = Table::new("Data and log volumes, from /proc/diskstats", &ROLE_COLUMNS);
    for role in op.roles() {
        let mut row = vec![Cell::text(r.name(position)), Cell::text(op.operation.clone())];
        row.extend(role_cells(&role));
        t.rows.push(row);
    }
    (!t.rows.is_empty()).then_some(t)
}

/// The lead latency's percentiles, and where that is a commit's, each I/O's beside them.
fn percentiles(rec: &RunRecord) -> Chart {
    let s = &rec.summary;
    let points = |l: &LatencySummary| [l.p50, l.p90, l.p95, l.p99, l.p99_9, l.p99_99].map(|v| v as f64);
    let lead = match s.lead_latency() {
        (LatencyOf::Commit, l) => vec![("commit", points(l)), ("I/O", points(&s.latency_ns))],
        (LatencyOf::Io, l) => vec![("latency", points(l))],
    };
    let mut c = Chart::new("Latency percentiles", ChartKind::Bar, "percentile", "ns");
    c.categories = ["p50", "p90", "p95", "p99", "p99.9", "p99.99"].map(String::from).to_vec();
    c.series = lead.into_iter().map(|(name, v)| Series { name: name.into(), values: v.to_vec() }).collect();
    c.latency = true;
    c
}

fn sqlio_histogram(rec: &RunRecord) -> Chart {
    let h = &rec.summary.sqlio_histogram_pct;
    let mut c = Chart::new("Latency histogram (SQLIO's milliseconds)", ChartKind::Bar, "ms", "% of operations");
    c.categories = (0..h.len()).map(|ms| if ms + 1 == h.len() { format!("{ms}+") } else { ms.to_string() }).collect();
    c.series = vec![Series { name: "% of operations".into(), values: h.clone() }];
    c
}

/// Every `step`-th index, so a series keeps at most `MAX_POINTS`.
fn thinned(len: usize) -> impl Iterator<Item = usize> {
    let step = len.div_ceil(MAX_POINTS).max(1);
    (0..len).step_by(step)
}

fn series(rec: &RunRecord) -> Chart {
    let unit = rec.kind().counts().per_sec();
    let mut c = Chart::new(format!("{unit}, second by second"), ChartKind::Line, "seconds", unit);
    let keep: Vec<usize> = thinned(rec.timeseries.len()).collect();
    c.categories = keep.iter().map(|&i| format!("{:.0}", rec.timeseries[i].t)).collect();
    c.series = vec![Series { name: unit.into(), values: keep.iter().map(|&i| rec.timeseries[i].iops).collect() }];
    c
}

/// The disk counters that explain a run first (queue, rates), then whatever else was sampled.
fn counter_charts(log: &spindle_model::counters::CounterLog) -> Vec<Chart> {
    let rank = |path: &str| {
        ["Avg. Disk Queue Length", "Disk Reads/sec", "Disk Writes/sec", "% Disk Time", "% Processor Time"]
            .iter()
            .position(|n| path.ends_with(n))
            .unwrap_or(usize::MAX)
    };
    let mut chosen: Vec<&spindle_model::counters::CounterSeries> = log.counters.iter().collect();
    chosen.sort_by_key(|c| rank(&c.path));
    let keep: Vec<usize> = thinned(log.t.len()).collect();
    chosen
        .into_iter()
        .take(MAX_COUNTER_CHARTS)
        .filter(|c| c.values.iter().any(Option::is_some))
        .map(|counter| {
            let mut c = Chart::new(counter.path.clone(), ChartKind::Line, "seconds", "");
            c.categories = keep.iter().map(|&i| format!("{:.0}", log.t[i])).collect();
            c.series = vec![Series {
                name: counter.path.clone(),
                values: keep.iter().map(|&i| counter.values.get(i).copied().flatten().unwrap_or(0.0)).collect(),
            }];
            c
        })
        .collect()
}

fn counter_table(log: &spindle_model::counters::CounterLog) -> Table {
    let mut t = Table::new("Counters while it ran", &["counter", "average", "minimum", "maximum"]);
    let num = |v: f64| Cell::number(super::counter_text(v), v);
    for c in &log.counters {
        t.rows.push(vec![Cell::text(c.path.clone()), num(c.avg), num(c.min), num(c.max)]);
    }
    t
}

/// A scope's figures, its lead latency's as `lead::columns(commits)` has them.
fn stats_cells(s: &IoStats, recorded: Recorded, rec: &RunRecord, commits: bool) -> Vec<Cell> {
    let mut cells = vec![Cell::count(s.ios), Cell::rate(s.iops)];
    if rec.kind().moves_bytes() {
        cells.push(Cell::rate(s.mb_per_sec));
    }
    cells.extend(lead::cells(s, recorded, commits));
    cells
}

fn stats_columns<'a>(rec: &RunRecord, first: &[&'a str], commits: bool) -> Vec<&'a str> {
    let counts = rec.kind().counts();
    let mut columns = first.to_vec();
    columns.extend([counts.plural(), counts.per_sec()]);
    if rec.kind().moves_bytes() {
        columns.push("MB/s");
    }
    columns.extend(lead::columns(commits));
    columns
}

/// Per thread, or per session for Hammer.
fn threads(rec: &RunRecord) -> Table {
    let who = if rec.kind() == RunKind::Hammer { "session" } else { "thread" };
    let title = if rec.kind() == RunKind::Hammer { "Sessions" } else { "Threads" };
    let commits = lead::any_commits(rec.threads.iter().map(|th| &th.stats));
    let mut t = Table::new(title, &stats_columns(rec, &["target", who], commits));
    for th in &rec.threads {
        let mut row = vec![Cell::count(th.target as u64 + 1), Cell::count(th.thread as u64)];
        row.extend(stats_cells(&th.stats, rec.recorded().of_thread(), rec, commits));
        t.rows.push(row);
    }
    t
}

fn targets(rec: &RunRecord) -> Table {
    let commits = lead::any_commits(rec.targets.iter().map(|tg| &tg.stats));
    let mut t = Table::new("Targets", &stats_columns(rec, &["target", "path", "workload"], commits));
    for (i, tg) in rec.targets.iter().enumerate() {
        let mut row = vec![Cell::count(i as u64 + 1), Cell::text(tg.path.clone()), Cell::text(tg.workload.clone())];
        row.extend(stats_cells(&tg.stats, rec.recorded(), rec, commits));
        t.rows.push(row);
    }
    t
}

fn environment(rec: &RunRecord) -> Table {
    let e = &rec.environment;
    let mut rows = vec![
        ("host".to_string(), Cell::text(e.hostname.clone())),
        ("OS".into(), Cell::text(e.os.clone())),
        ("kernel".into(), Cell::text(e.kernel.clone())),
        ("CPU".into(), Cell::text(e.cpu_model.clone())),
        ("logical CPUs".into(), Cell::count(e.logical_cpus as u64)),
        ("memory".into(), Cell::bytes(e.memory_bytes as f64)),
        ("spindle".into(), Cell::text(rec.spindle_version.clone())),
    ];
    rows.retain(|(_, v)| !v.text.is_empty() && v.value != Some(0.0));
    Table::pairs("Environment", rows)
}

fn devices(rec: &RunRecord) -> Table {
    let mut t = Table::new(
        "Devices",
        &[
            "target",
            "device",
            "model",
            "rotational",
            "scheduler",
            "write cache",
            "read-ahead",
            "file system",
            "mount options",
            "layers",
        ],
    );
    let text = |v: &Option<String>| Cell::text(v.clone().unwrap_or_default());
    for d in &rec.environment.devices {
        t.rows.push(vec![
            Cell::text(d.target.clone()),
            Cell::text(match (&d.device, &d.partition) {
                (Some(dev), Some(part)) => format!("{part} on {dev}"),
                (Some(dev), None) => dev.clone(),
                _ => String::new(),
            }),
            text(&d.model),
            Cell::text(d.rotational.map_or("", |r| if r { "yes" } else { "no" })),
            text(&d.scheduler),
            text(&d.write_cache),
            Cell::opt(d.read_ahead_kb, |k| Cell { text: format!("{k} KiB"), value: Some(k as f64), unit: "KiB" }),
            text(&d.filesystem),
            text(&d.mount_options),
            Cell::text(crate::text::layers_text(d)),
        ]);
    }
    t
}
