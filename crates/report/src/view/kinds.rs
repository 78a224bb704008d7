//! A section per kind of run: one table with every run of the kind and its figures, and for
//! I/O runs the SQLIO matrix of "SQL Server I/O Characteristics: SQLIO results in Excel" (its
//! table, and MB/s, IOPS, average and p99 latency each ranked by itself: `matrix`). Each kind
//! says what it counts.

use super::{Chart, ChartKind, Section, Series, Table};
use crate::document::{Document, ReportRun};
use crate::figures::Cell;
use crate::lead;
use spindle_model::RunKind;
use spindle_model::units::format_size;

pub fn sections(doc: &Document) -> Vec<Section> {
    let mut kinds: Vec<RunKind> = doc.records().map(|r| r.kind()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
        .into_iter()
        .map(|kind| {
            let runs: Vec<(usize, &ReportRun)> =
                doc.runs.iter().enumerate().filter(|(_, r)| r.record.kind() == kind).collect();
            let ranked = !one_groups_runs(doc, &runs);
            section(kind, &runs, ranked)
        })
        .collect()
}

/// Whether `runs` are all of one group that is not a suite (a sweep, repeats, an A/B pair):
/// that group's section says what they found, and ranking them (or calling them an SQLIO
/// matrix) would only say it again less well.
fn one_groups_runs(doc: &Document, runs: &[(usize, &ReportRun)]) -> bool {
    let Some(group) = runs.first().and_then(|(_, r)| r.group) else { return false };
    runs.iter().all(|(_, r)| r.group == Some(group))
        && doc.groups.iter().any(|g| g.id == group && g.kind != spindle_model::group::GroupKind::Suite)
}

/// The kind's table; with `ranked`, its rankings too (I/O runs' SQLIO matrix, Hammer's rates).
fn section(kind: RunKind, runs: &[(usize, &ReportRun)], ranked: bool) -> Section {
    // I/O runs that commit lead with the commit latency: the table then says what each run's
    // latency is of, and shows each I/O's beside it.
    let commits = kind == RunKind::Io && lead::any_commits(runs.iter().map(|(_, r)| &r.record.summary));
    let mut table = Table::new(format!("{} ({})", kind.title(), runs.len()), &common_columns(kind, commits));
    for &(i, r) in runs {
        let mut row = common_cells(r, i);
        row.extend(kind_cells(r, commits));
        table.rows.push(row);
    }
    let mut section = Section {
        anchor: format!("kind-{}", kind.name()),
        level: 2,
        title: kind.title().to_string(),
        tables: vec![table],
        ..Section::default()
    };
    if kind == RunKind::Io && ranked && !runs.is_empty() {
        let m = super::matrix::matrix(runs);
        section.charts = m.charts;
        section.tables.push(m.table);
    } else if matches!(kind, RunKind::Hammer | RunKind::HammerLoad) && ranked {
        section.charts = vec![rate_chart(kind, runs)];
    } else if kind == RunKind::LargeOps {
        section.tables.push(large_op_volumes(runs));
    }
    section
}

/// Columns every kind shows, then the kind's own (with `commits`, I/O runs' latency's too).
fn common_columns(kind: RunKind, commits: bool) -> Vec<&'static str> {
    let rate = match kind.counts() {
        spindle_model::db::Counts::Ios => "IOPS",
        spindle_model::db::Counts::Calls => "calls/s",
        spindle_model::db::Counts::Rows => "rows/s",
    };
    let mut columns = vec!["run", "started", "status", "workload", "labels", "host", "seconds", rate];
    columns.extend(match kind {
        RunKind::Io => [vec!["MB/s", "read %"], lead::columns(commits), vec!["errors", "source"]].concat(),
        RunKind::Hammer => vec!["GetAccount/s", "UpdateAccount/s", "mean", "p99", "max", "failed calls"],
        RunKind::HammerLoad => vec!["rows"],
        RunKind::LogTest => vec![
            "transaction_size",
            "log_write_ios",
            "log_bytes_written",
            "ios_per_row",
            "ios_per_transaction",
            "bytes_per_io",
            "mb_per_sec",
            "duration_s",
        ],
        // Each volume's figures are in the section's second table, a row per role.
        RunKind::LargeOps => vec!["operation", "rows", "cold"],
    });
    columns
}

fn common_cells(r: &ReportRun, position: usize) -> Vec<Cell> {
    let rec = &r.record;
    let labels: Vec<String> = rec.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let workload = rec.targets.first().map(|t| t.workload.clone()).unwrap_or_default();
    vec![
        r.id.map_or_else(|| Cell::text(r.name(position)), |id| Cell::number(r.name(position), id as f64)),
        Cell::text(rec.started_at.clone()),
        Cell::text(rec.status.name()),
        Cell::text(workload),
        Cell::text(labels.join(" ")),
        Cell::text(rec.environment.hostname.clone()),
        Cell::seconds(rec.measured_seconds),
        Cell::opt(rec.rate(), Cell::rate),
    ]
}

fn kind_cells(r: &ReportRun, commits: bool) -> Vec<Cell> {
    let rec = &r.record;
    let s = &rec.summary;
    let errors: u64 = rec.errors.values().sum();
    let recorded = rec.recorded();
    match rec.kind() {
        RunKind::Io => [
            vec![
                Cell::rate(s.mb_per_sec),
                Cell::opt((s.ios > 0).then(|| s.read.ios as f64 * 100.0 / s.ios as f64), Cell::pct),
            ],
            lead::cells(s, recorded, commits),
            vec![
                Cell::count(errors),
                Cell::text(
                    rec.details
                        .origin()
                        .map_or("spindle".to_string(), |o| format!("{} ({})", o.tool, file_name(&o.file))),
                ),
            ],
        ]
        .concat(),
        RunKind::Hammer => vec![
            Cell::rate(s.read.iops),
            Cell::rate(s.write.iops),
            Cell::latency_ns(s.latency_ns.mean),
            Cell::latency_ns(s.latency_ns.p99 as f64),
            Cell::latency_ns(s.latency_ns.max as f64),
            Cell::count(errors),
        ],
        RunKind::HammerLoad => vec![Cell::count(s.ios)],
        RunKind::LogTest => match rec.details.log_test() {
            Some(f) => vec![
                Cell::count(f.transaction_size),
                Cell::opt(f.log_write_ios, Cell::count),
                Cell::opt(f.log_bytes_written, |b| Cell::bytes(b as f64)),
                Cell::opt(f.ios_per_row, |v| Cell::number(format!("{v:.3}"), v)),
                Cell::opt(f.ios_per_transaction, |v| Cell::number(format!("{v:.3}"), v)),
                Cell::opt(f.bytes_per_io, Cell::bytes),
                Cell::opt(f.mb_per_sec, Cell::rate),
                Cell::seconds(f.duration_s),
            ],
            None => Vec::new(),
        },
        RunKind::LargeOps => match rec.details.large_op() {
            Some(op) => vec![Cell::text(op.operation.clone()), Cell::count(op.rows), Cell::text(cache(op.cold))],
            None => Vec::new(),
        },
    }
}

fn cache(cold: Option<bool>) -> &'static str {
    match cold {
        Some(true) => "cold",
        Some(false) => "warm",
        None => "",
    }
}

/// What the data's and the log's volumes did during each operation, a row per role: apart
/// where they are on different volumes, one "data and log" row where they share one.
fn large_op_volumes(runs: &[(usize, &ReportRun)]) -> Table {
    let mut t = Table::new("Data and log volumes, from /proc/diskstats", &super::runs::ROLE_COLUMNS);
    for &(i, r) in runs {
        let Some(op) = r.record.details.large_op() else { continue };
        for role in op.roles() {
            let mut row = vec![Cell::text(r.name(i)), Cell::text(op.operation.clone())];
            row.extend(super::runs::role_cells(&role));
            t.rows.push(row);
        }
    }
    t
}

fn rate_chart(kind: RunKind, runs: &[(usize, &ReportRun)]) -> Chart {
    let unit = match kind {
        RunKind::Hammer => "calls/s",
        _ => "rows/s",
    };
    let mut c = Chart::new(format!("{} per run", unit), ChartKind::Bar, "run", unit);
    c.categories = runs.iter().map(|(i, r)| bar_name(r, *i)).collect();
    c.series = vec![Series { name: unit.into(), values: runs.iter().map(|(_, r)| r.record.summary.iops).collect() }];
    c
}

/// A bar's name: the run, and what sets it apart (block size, depth) when the spec says.
fn bar_name(r: &ReportRun, position: usize) -> String {
    let mut name = r.name(position);
    if let Some(w) = r.record.targets.first().map(|t| t.workload.as_str()).filter(|w| !w.is_empty()) {
        name = format!("{name}: {w}");
    } else if let Some(bs) = r.record.details.imported_spec().and_then(|s| s.block_size) {
        name = format!("{name}: {}", format_size(bs));
    }
    name
}

/// The last part of a path as given (`/results/sqlio-1.txt` -> `sqlio-1.txt`, also for a
/// Windows path).
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}
