//! The SQLIO matrix, as "SQL Server I/O Characteristics: SQLIO results in Excel" charted it:
//! one row per I/O run (every pattern x block size x threads x outstanding I/O of
//! `spindle suite sqlserver`, or any I/O runs), with threads, outstanding I/Os, the file, its
//! size, the duration, the pattern, the block size, MB/s, IOPS, average and p99 latency, each a
//! number (its unit in the column's name, none in the cell); and a chart per measure, each
//! ranking the runs by its own measure (the most MB/s and IOPS first, the least latency first).
//! A run that commits is ranked by its commits' latency, as every view leads with it.
//! HTML, Markdown and the workbook draw this one table and these charts.

use super::{Chart, ChartKind, Series, Table, counter_text};
use crate::document::ReportRun;
use crate::figures::{Cell, grouped};
use crate::lead;
use spindle_model::RunRecord;
use spindle_model::record::LatencyOf;
use spindle_model::units::format_size;

/// The matrix's columns, in order; units are in the names, so every cell is a bare number.
pub const COLUMNS: [&str; 12] = [
    "run",
    "threads",
    "outstanding I/Os per thread",
    "file",
    "file size (MiB)",
    "duration (s)",
    "pattern",
    "block size (KiB)",
    "MB/s",
    "IOPS",
    "average latency (ms)",
    "p99 latency (ms)",
];

/// Where a run of the matrix commits, its latencies are its commits' (`IoStats::lead_latency`):
/// this column then comes before them to say so, and each I/O's average follows them.
pub const LATENCY_OF: &str = "latency of";
pub const IO_AVERAGE: &str = "I/O average latency (ms)";

/// The matrix's columns: `COLUMNS`, and with `commits` (a run of it commits) `LATENCY_OF`
/// before its latencies and `IO_AVERAGE` after them.
pub fn columns(commits: bool) -> Vec<&'static str> {
    let (figures, latencies) = COLUMNS.split_at(COLUMNS.len() - 2);
    if commits { [figures, &[LATENCY_OF], latencies, &[IO_AVERAGE]].concat() } else { COLUMNS.to_vec() }
}

/// The matrix's table and its four rankings.
#[derive(Clone, Debug)]
pub struct Matrix {
    pub table: Table,
    /// MB/s and IOPS, highest first; average and p99 latency, lowest first.
    pub charts: Vec<Chart>,
}

/// One run's place in the charts: its name there and its four measures (a latency its tool
/// did not record is absent, and the run has no bar in that chart rather than one of 0).
struct Measures {
    name: String,
    /// Its name in the latency rankings: a commit's latency says so.
    latency_name: String,
    mb_per_sec: f64,
    iops: f64,
    mean_ms: Option<f64>,
    p99_ms: Option<f64>,
}

/// The matrix of these I/O runs (`position` is each run's place in the report, for runs with
/// no id), in the order given.
pub fn matrix(runs: &[(usize, &ReportRun)]) -> Matrix {
    let title = match runs.len() {
        1 => "SQLIO matrix (1 run)".to_string(),
        n => format!("SQLIO matrix ({n} runs)"),
    };
    let commits = lead::any_commits(runs.iter().map(|(_, r)| &r.record.summary));
    let mut table = Table::new(title, &columns(commits));
    let mut measures = Vec::with_capacity(runs.len());
    for &(position, r) in runs {
        let rec = &r.record;
        let shape = Shape::of(rec);
        let recorded = rec.recorded();
        let s = &rec.summary;
        let (of, l) = s.lead_latency();
        let ms = |ok: bool, ns: f64| (ok && s.ios > 0).then_some(ns / 1e6);
        let mean_ms = ms(recorded.latency, l.mean);
        let p99_ms = ms(recorded.percentiles, l.p99 as f64);
        let mut row = vec![
            r.id.map_or_else(|| Cell::text(r.name(position)), |id| Cell::number(r.name(position), id as f64)),
            shape.threads,
            shape.depth,
            shape.file,
            shape.size_mib,
            plain(rec.measured_seconds),
            shape.pattern,
            shape.block_kib,
            plain(s.mb_per_sec),
            plain(s.iops),
        ];
        if commits {
            row.push(Cell::text(lead::of_text(of)));
        }
        row.extend([mean_ms.map_or_else(Cell::not_recorded, plain), p99_ms.map_or_else(Cell::not_recorded, plain)]);
        if commits {
            row.push(match of {
                LatencyOf::Commit => ms(recorded.latency, s.latency_ns.mean).map_or_else(Cell::not_recorded, plain),
                LatencyOf::Io => Cell::empty(),
            });
        }
        table.rows.push(row);
        let name = bar_name(r, position);
        measures.push(Measures {
            latency_name: match of {
                LatencyOf::Commit => format!("{name} (commit)"),
                LatencyOf::Io => name.clone(),
            },
            name,
            mb_per_sec: s.mb_per_sec,
            iops: s.iops,
            mean_ms,
            p99_ms,
        });
    }
    let charts = vec![
        ranking("MB/s, highest first", "MB/s", &measures, |m| Some((&m.name, m.mb_per_sec)), true),
        ranking("IOPS, highest first", "IOPS", &measures, |m| Some((&m.name, m.iops)), true),
        ranking("Average latency (ms), lowest first", "ms", &measures, |m| Some((&m.latency_name, m.mean_ms?)), false),
        ranking("p99 latency (ms), lowest first", "ms", &measures, |m| Some((&m.latency_name, m.p99_ms?)), false),
    ];
    Matrix { table, charts: charts.into_iter().filter(|c| !c.is_empty()).collect() }
}

/// A bar per run that has the measure (`bar`: its name there and its value), sorted by it
/// (`highest_first`, else lowest first); runs that tie keep their order.
fn ranking<'a>(
    title: &str,
    unit: &str,
    measures: &'a [Measures],
    bar: impl Fn(&'a Measures) -> Option<(&'a String, f64)>,
    highest_first: bool,
) -> Chart {
    let mut bars: Vec<(&str, f64)> =
        measures.iter().filter_map(|m| bar(m).filter(|b| b.1.is_finite()).map(|(n, v)| (n.as_str(), v))).collect();
    if highest_first {
        bars.sort_by(|a, b| b.1.total_cmp(&a.1));
    } else {
        bars.sort_by(|a, b| a.1.total_cmp(&b.1));
    }
    let mut c = Chart::new(title, ChartKind::Bar, "run", unit);
    c.categories = bars.iter().map(|b| b.0.to_string()).collect();
    c.series = vec![Series { name: unit.to_string(), values: bars.iter().map(|b| b.1).collect() }];
    c
}

/// A bar's name: the run and its suite member (`run 12: random-8k-read`), else its workload in
/// words, else an imported run's block size.
fn bar_name(r: &ReportRun, position: usize) -> String {
    let name = r.name(position);
    let rec = &r.record;
    let what = r
        .point
        .as_ref()
        .map(|p| p.to_string())
        .or_else(|| rec.targets.first().map(|t| t.workload.clone()).filter(|w| !w.is_empty()))
        .or_else(|| rec.details.imported_spec().and_then(|s| s.block_size).map(format_size));
    match what {
        Some(w) => format!("{name}: {w}"),
        None => name,
    }
}

/// A number with no unit of its own (the column names it), shown to a precision that suits it
/// (three significant digits under 1), a whole number without decimals, no trailing zeros.
fn plain(v: f64) -> Cell {
    if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 1e15 {
        return whole(v as u64);
    }
    let text = counter_text(v);
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text };
    Cell::number(text, v)
}

/// A whole number: threads, outstanding I/Os.
fn whole(n: u64) -> Cell {
    Cell::number(grouped(n), n as f64)
}

fn mib(bytes: u64) -> Cell {
    plain(bytes as f64 / (1u64 << 20) as f64)
}

fn kib(bytes: u64) -> Cell {
    plain(bytes as f64 / 1024.0)
}

/// One value for every target (a number), or each target's in turn (`8, 1`: words) when they
/// differ; absent when the run does not say.
fn per_target(values: &[u64], cell: fn(u64) -> Cell) -> Cell {
    match values {
        [] => Cell::not_recorded(),
        [first, rest @ ..] if rest.iter().all(|v| v == first) => cell(*first),
        _ => Cell::text(values.iter().map(|v| cell(*v).text).collect::<Vec<_>>().join(", ")),
    }
}

/// The pattern in words, from the percentages of I/Os that are random and reads:
/// `random read`, `sequential write`, `random 70% read`.
pub fn pattern_words(random_pct: f64, read_pct: f64) -> String {
    let access = match random_pct.round() as i64 {
        100 => "random".to_string(),
        0 => "sequential".to_string(),
        r => format!("{r}% random"),
    };
    let direction = match read_pct.round() as i64 {
        100 => "read".to_string(),
        0 => "write".to_string(),
        r => format!("{r}% read"),
    };
    format!("{access} {direction}")
}

/// What the run drove: spindle's job, or as far as an imported file says.
struct Shape {
    threads: Cell,
    depth: Cell,
    file: Cell,
    size_mib: Cell,
    pattern: Cell,
    block_kib: Cell,
}

impl Shape {
    fn of(rec: &RunRecord) -> Shape {
        if let Some(job) = rec.details.job() {
            let t = &job.targets;
            let mut patterns: Vec<String> =
                t.iter().map(|t| pattern_words(t.workload.random_pct(), t.workload.read_pct())).collect();
            patterns.dedup();
            // A mix of sizes (`64KiB:83,8KiB:17`) is words; one size is a number.
            let blocks: Vec<u64> = t.iter().map(|t| t.workload.largest_block()).collect();
            let mixed = t.iter().any(|t| t.workload.mix.len() > 1);
            return Shape {
                threads: per_target(&t.iter().map(|t| t.workload.threads as u64).collect::<Vec<_>>(), whole),
                depth: per_target(&t.iter().map(|t| t.workload.depth as u64).collect::<Vec<_>>(), whole),
                file: Cell::text(t.iter().map(|t| t.path.to_string_lossy()).collect::<Vec<_>>().join(", ")),
                size_mib: per_target(&t.iter().map(|t| t.size).collect::<Vec<_>>(), mib),
                pattern: Cell::text(patterns.join("; ")),
                block_kib: if mixed {
                    Cell::text(t.iter().map(|t| t.workload.mix_label()).collect::<Vec<_>>().join("; "))
                } else {
                    per_target(&blocks, kib)
                },
            };
        }
        let spec = rec.details.imported_spec().cloned().unwrap_or_default();
        let first = rec.targets.first();
        let file = spec.target.clone().or_else(|| first.map(|t| t.path.clone()).filter(|p| !p.is_empty()));
        let size = spec.target_size.or_else(|| first.map(|t| t.size).filter(|s| *s > 0));
        let opt = |v: Option<u64>, cell: fn(u64) -> Cell| v.map_or_else(Cell::not_recorded, cell);
        Shape {
            threads: opt(spec.threads.map(u64::from), whole),
            depth: opt(spec.depth.map(u64::from), whole),
            file: file.map_or_else(Cell::not_recorded, Cell::text),
            size_mib: opt(size, mib),
            pattern: match (spec.random_pct, spec.read_pct) {
                (Some(random), Some(read)) => Cell::text(pattern_words(random, read)),
                _ => Cell::not_recorded(),
            },
            block_kib: opt(spec.block_size, kib),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::fixtures::io_run;
    use spindle_model::group::Point;
    use spindle_model::spec::{MixEntry, TargetSpec, Workload};
    use spindle_model::{ImportedSpec, KindData, Origin, Unrecorded};

    /// A suite member: `block` bytes, `random` and `read` percent, 2 threads x `depth`, with
    /// this throughput and latency.
    fn member(
        id: i64,
        name: &str,
        (block, random, read): (u64, u8, u8),
        depth: u32,
        iops: f64,
        lat_ns: u64,
    ) -> ReportRun {
        let mut rec = io_run(&[iops; 4], lat_ns, &[]);
        let workload = Workload {
            mix: vec![MixEntry { block, weight: 1, read_pct: read, random_pct: random }],
            threads: 2,
            depth,
            rate_iops: None,
            buffered: false,
            write_through: false,
            fsync_every: 0,
        };
        let target = TargetSpec { path: "/mnt/t/spindle-test.dat".into(), size: 256 << 20, workload };
        rec.details = KindData::Io { spec: spindle_model::fixtures::job(vec![target]), verify: None };
        // MB/s from the block size, so bandwidth and IOPS rank the runs differently.
        rec.summary.mb_per_sec = iops * block as f64 / 1e6;
        ReportRun { id: Some(id), group: Some(1), point: Some(Point::Member(name.into())), repeat: 1, record: rec }
    }

    fn suite() -> Vec<ReportRun> {
        vec![
            member(1, "random-8k-read", (8192, 100, 100), 8, 4000.0, 2_000_000),
            member(2, "random-64k-read", (65536, 100, 100), 8, 1000.0, 8_000_000),
            member(3, "seq-256k-write-o100", (262144, 0, 0), 100, 300.0, 1_000_000),
            member(4, "random-8k-write", (8192, 100, 0), 8, 2500.0, 3_000_000),
        ]
    }

    fn of(runs: &[ReportRun]) -> Matrix {
        let indexed: Vec<(usize, &ReportRun)> = runs.iter().enumerate().collect();
        matrix(&indexed)
    }

    fn number(c: &Cell) -> f64 {
        c.value.unwrap_or_else(|| panic!("{c:?} is not a number"))
    }

    #[test]
    fn a_row_per_run_with_every_figure_a_number_in_the_unit_its_column_names() {
        let m = of(&suite());
        assert_eq!(m.table.columns, COLUMNS);
        assert_eq!(m.table.rows.len(), 4);
        let col = |name: &str| COLUMNS.iter().position(|c| *c == name).unwrap();
        let row = &m.table.rows[2];
        assert_eq!(number(&row[col("run")]), 3.0);
        assert_eq!(number(&row[col("threads")]), 2.0);
        assert_eq!(number(&row[col("outstanding I/Os per thread")]), 100.0);
        assert_eq!(row[col("file")].text, "/mnt/t/spindle-test.dat");
        assert_eq!(number(&row[col("file size (MiB)")]), 256.0);
        assert_eq!(number(&row[col("duration (s)")]), 4.0);
        assert_eq!(row[col("pattern")].text, "sequential write");
        assert_eq!(m.table.rows[0][col("pattern")].text, "random read");
        assert_eq!(number(&row[col("block size (KiB)")]), 256.0);
        assert!((number(&row[col("MB/s")]) - 300.0 * 262144.0 / 1e6).abs() < 1e-9);
        assert!((number(&row[col("IOPS")]) - 300.0).abs() < 1e-9);
        let mean = number(&row[col("average latency (ms)")]);
        // The fixture's latencies spread from 1 ms to 1.49 ms.
        assert!((1.0..1.5).contains(&mean), "about 1.2 ms: {mean}");
        let p99 = number(&row[col("p99 latency (ms)")]);
        assert!(p99 >= mean && p99 < 1.6, "{p99}");
        // The unit is the column's: no cell carries one of its own (ns, bytes) for a
        // spreadsheet to add to the header.
        for r in &m.table.rows {
            assert!(r.iter().all(|c| c.unit.is_empty()), "{r:?}");
            for name in COLUMNS.iter().filter(|c| !["run", "file", "pattern"].contains(c)) {
                number(&r[col(name)]);
            }
        }
    }

    #[test]
    fn each_chart_ranks_the_runs_by_its_own_measure() {
        let m = of(&suite());
        let titles: Vec<&str> = m.charts.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "MB/s, highest first",
                "IOPS, highest first",
                "Average latency (ms), lowest first",
                "p99 latency (ms), lowest first"
            ]
        );
        let order =
            |c: &Chart| c.categories.iter().map(|n| n.split(':').next().unwrap().to_string()).collect::<Vec<_>>();
        assert_eq!(order(&m.charts[0]), ["run 3", "run 2", "run 1", "run 4"], "MB/s: 78.6, 65.5, 32.8, 20.5");
        assert_eq!(m.charts[0].categories[0], "run 3: seq-256k-write-o100");
        assert_eq!(order(&m.charts[1]), ["run 1", "run 4", "run 2", "run 3"]);
        assert_eq!(order(&m.charts[2]), ["run 3", "run 1", "run 4", "run 2"]);
        assert_eq!(order(&m.charts[3]), ["run 3", "run 1", "run 4", "run 2"]);
        for (c, descending) in m.charts.iter().zip([true, true, false, false]) {
            let v = &c.series[0].values;
            assert!(v.windows(2).all(|w| if descending { w[0] >= w[1] } else { w[0] <= w[1] }), "{}: {v:?}", c.title);
        }
        // The table keeps the runs' order; only the charts rank.
        let runs: Vec<f64> = m.table.rows.iter().map(|r| number(&r[0])).collect();
        assert_eq!(runs, [1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn an_imported_run_shows_what_its_file_says_and_nothing_it_did_not_record() {
        let mut rec = io_run(&[500.0; 2], 4_000_000, &[]);
        let spec = ImportedSpec {
            tool: Some("sqlio".into()),
            target: Some("E:\\testfile.dat".into()),
            target_size: Some(2 << 30),
            block_size: Some(65536),
            threads: Some(4),
            depth: Some(32),
            read_pct: Some(0.0),
            random_pct: Some(100.0),
            ..ImportedSpec::default()
        };
        let origin =
            Origin { tool: "sqlio".into(), absent: vec![Unrecorded::Percentiles.words().into()], ..Origin::default() };
        rec.details = KindData::Imported { origin, spec };
        let runs = vec![ReportRun { id: Some(7), group: None, point: None, repeat: 1, record: rec }];
        let m = of(&runs);
        let row = &m.table.rows[0];
        assert_eq!([number(&row[1]), number(&row[2])], [4.0, 32.0]);
        assert_eq!(row[3].text, "E:\\testfile.dat");
        assert_eq!(number(&row[4]), 2048.0);
        assert_eq!(row[6].text, "random write");
        assert_eq!(number(&row[7]), 64.0);
        assert!(row[10].value.is_some(), "SQLIO records the average latency");
        assert_eq!(row[11].text, "-", "p99 not recorded, not 0");
        assert_eq!(row[11].value, None);
        assert_eq!(m.charts.len(), 3, "no p99 chart with no p99 to rank");
    }

    #[test]
    fn numbers_read_plainly() {
        let text = |v: f64| plain(v).text;
        assert_eq!([text(8.0), text(256.0), text(2048.0), text(0.5)], ["8", "256", "2,048", "0.5"]);
        assert_eq!([text(0.05), text(1.245), text(0.00808), text(17595.4)], ["0.05", "1.25", "0.00808", "17,595"]);
        assert_eq!(plain(0.05).value, Some(0.05), "the number kept whole behind the text");
    }

    #[test]
    fn patterns_in_words() {
        assert_eq!(pattern_words(100.0, 100.0), "random read");
        assert_eq!(pattern_words(0.0, 0.0), "sequential write");
        assert_eq!(pattern_words(100.0, 70.0), "random 70% read");
        assert_eq!(pattern_words(50.0, 100.0), "50% random read");
    }
}
