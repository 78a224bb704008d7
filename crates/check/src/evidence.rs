//! The check's stored runs turned into the evidence its rules judge: each step's record read
//! for the figures that step is about.

use crate::battery::{SUSTAINED, page_bytes};
use spindle_analysis::curve::{CurvePoint, Shape, close_call, curve, dip, noise, shape};
use spindle_analysis::findings::load::StepLoad;
use spindle_analysis::findings::over_time::StepOverTime;
use spindle_analysis::findings::sustained::Sustained;
use spindle_analysis::findings::{
    Area, Commits, DepthCurve, DirEvidence, Guidance, LogCurve, LogPoint, Transfer, VerifyOutcome,
};
use spindle_model::RunRecord;
use spindle_model::group::Point;
use spindle_model::record::{IoStats, LatencySummary, RunStatus};
use spindle_report::view::logtest as table;
use spindle_runner::experiment::Finished;

/// At most this many faults are named in the evidence; the run's record keeps the rest.
const FAULT_EXAMPLES: usize = 5;
/// `VerifySummary` counts sectors of this many bytes.
const SECTOR_BYTES: u64 = 512;

/// Fills `dir`'s figures from the runs of its battery (`runs` holds only this directory's).
pub fn gather(dir: &mut DirEvidence, guidance: Guidance, runs: &[&Finished], log_engine: &str) {
    let member = |name: &str| {
        runs.iter().find(|f| f.point == Some(Point::Member(name.into())) && f.record.status == RunStatus::Complete)
    };
    let points = depth_curve(runs.iter().copied());
    if !points.is_empty() {
        let shape = shape(&points);
        dir.page_reads = Some(DepthCurve {
            block: page_bytes(guidance),
            knee: shape.knee(),
            knee_range: close_call(&points),
            noisy: shape == Shape::Noisy,
            dip: if shape == Shape::Noisy { noise(&points) } else { dip(&points) },
            points,
        });
    }
    dir.commits = member("commits").map(|f| commits(&f.record));
    dir.large_writes = member("large-writes").map(|f| Transfer::of(&f.record));
    dir.large_reads = member("large-reads").map(|f| Transfer::of(&f.record));
    dir.sustained = member(SUSTAINED).map(|f| Sustained::of(&f.record));
    dir.verify = member("verify").and_then(|f| f.record.details.verify()).map(|v| VerifyOutcome {
        bytes_checked: v.sectors_checked.saturating_mul(SECTOR_BYTES),
        faults: v.faulty_sectors(),
        examples: v
            .findings
            .iter()
            .take(FAULT_EXAMPLES)
            .map(|f| format!("{} at offset {} ({} bytes)", f.kind.name(), f.offset, f.bytes))
            .collect(),
    });
    dir.loads = loads(runs);
    dir.over_time = io_steps(runs).map(|(area, step, r)| StepOverTime::of(area, step, r)).collect();
    let log_records: Vec<RunRecord> =
        runs.iter().filter(|f| f.record.details.log_test().is_some()).map(|f| f.record.clone()).collect();
    if !log_records.is_empty() {
        dir.log = Some(log_curve(&log_records, log_engine));
    }
}

/// Each complete I/O step with the area its figures are judged in and its name in a sentence
/// (the verified pass and the log test are judged on what they read back and count, not on a
/// rate other I/O moves or that swings).
fn io_steps<'r>(runs: &'r [&Finished]) -> impl Iterator<Item = (Area, String, &'r RunRecord)> {
    runs.iter().filter(|f| f.record.status == RunStatus::Complete).filter_map(|f| {
        let (area, step) = match f.point.as_ref()? {
            p if depth_of(p).is_some() => (Area::PageReads, format!("page reads at {} outstanding", depth_of(p)?)),
            Point::Member(m) if m == "commits" => (Area::Commits, "commits".into()),
            Point::Member(m) if m == "large-writes" => (Area::LargeWrites, "large writes".into()),
            Point::Member(m) if m == "large-reads" => (Area::LargeReads, "large reads".into()),
            Point::Member(m) if m == SUSTAINED => (Area::PageReads, "sustained page reads".into()),
            _ => return None,
        };
        Some((area, step, &f.record))
    })
}

/// What else the host did during each I/O step.
fn loads(runs: &[&Finished]) -> Vec<StepLoad> {
    io_steps(runs).map(|(area, step, r)| StepLoad::of(area, step, r)).collect()
}

/// The page reads' depth curve over the complete runs of the sweep, in the order the depths were
/// first measured, a depth measured again (a close call settled) averaged over its runs.
pub fn depth_curve<'r>(runs: impl Iterator<Item = &'r Finished>) -> Vec<CurvePoint> {
    let mut depths: Vec<(String, Vec<&RunRecord>)> = Vec::new();
    for f in runs.filter(|f| f.record.status == RunStatus::Complete) {
        let Some(depth) = f.point.as_ref().and_then(depth_of) else { continue };
        match depths.iter_mut().find(|(value, _)| value == depth) {
            Some((_, records)) => records.push(&f.record),
            None => depths.push((depth.to_string(), vec![&f.record])),
        }
    }
    curve(&depths)
}

/// The depth of a page-reads step (`depth=8`), or none for any other step.
pub fn depth_of(point: &Point) -> Option<&str> {
    match point {
        Point::Sweep(p) if p.param == "depth" => Some(&p.value),
        _ => None,
    }
}

/// How many commits a run made, and their latency: its commits where it flushed, else its
/// writes (each write-through write is a commit).
pub fn commits_of(s: &IoStats) -> (u64, &LatencySummary) {
    if s.commit.count > 0 { (s.commit.count, &s.commit.latency_ns) } else { (s.write.ios, &s.write.latency_ns) }
}

/// A commit is the write and its flush; a write-through log (SQL Server's) has no flush of its
/// own, and its write is the commit.
fn commits(r: &RunRecord) -> Commits {
    let s = &r.summary;
    let (count, latency) = commits_of(s);
    Commits {
        write_bytes: r.details.job().map_or(0, |j| j.targets.first().map_or(0, |t| t.workload.largest_block())),
        count,
        per_sec: if r.measured_seconds > 0.0 { count as f64 / r.measured_seconds } else { 0.0 },
        mean_ns: latency.mean,
        p99_ns: latency.p99,
        flush_median_ns: s.flush.latency_ns.p50,
        flush_p99_ns: s.flush.latency_ns.p99,
    }
}

/// The log test's sizes, and its optimum chosen as `spindle logtest` chooses it.
fn log_curve(records: &[RunRecord], engine: &str) -> LogCurve {
    let rows = table::rows(records);
    let per_sec = |n: u64, secs: f64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    LogCurve {
        engine: engine.to_string(),
        optimum: rows.iter().find(|r| r.optimum).map(|r| r.figures.transaction_size),
        still_rising: rows.iter().find(|r| r.still_rising).map(|r| r.figures.transaction_size),
        points: rows
            .iter()
            .map(|r| LogPoint {
                transaction_size: r.figures.transaction_size,
                rows_per_sec: per_sec(r.figures.rows, r.figures.duration_s),
                commits_per_sec: per_sec(r.figures.commits, r.figures.duration_s),
                mb_per_sec: r.lead.mb_per_sec,
            })
            .collect(),
    }
}
