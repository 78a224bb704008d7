//! One directory's battery through the runner: the log test's database readied first (one it
//! cannot use stops the check before any I/O), then the I/O steps in order, then the log test,
//! sized from the commit latency just measured. Every run is saved in the directory's check
//! group as it ends; the test files and the check's own database are removed at the end, on
//! Ctrl-C too.

use crate::battery::{LOG_ROW_BYTES, Sizing, log_rows};
use crate::evidence::{commits_of, depth_curve, depth_of};
use crate::plan::DirPlan;
use spindle_analysis::check_summary::StopReason;
use spindle_analysis::curve::{CurvePoint, close_call};
use spindle_db::DbUrl;
use spindle_db::logtest::LogTestPlan;
use spindle_db::managed::InstanceSpec;
use spindle_model::group::Point;
use spindle_model::units::format_elapsed;
use spindle_runner::end::is_out_of_space;
use spindle_runner::experiment::{Place, Runner};
use spindle_runner::workload::database::Database;
use spindle_runner::workload::io::{Files, IoJob};
use spindle_runner::workload::logtest::LogTest;
use spindle_runner::workload::{Measured, Workload};
use spindle_runner::{Outcome, RunEnd};
use spindle_store::GroupKind;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The database the log test runs on.
pub enum LogDb {
    /// A SQLite file the check makes in the directory and removes at the end.
    Own(PathBuf),
    /// The user's database (`--db`); only the test's table is made and dropped there.
    Given(DbUrl),
    /// A PostgreSQL or MariaDB instance spindle starts in the directory (`--managed`),
    /// removed at the end.
    Managed(InstanceSpec),
}

impl LogDb {
    fn database(&self) -> anyhow::Result<Database> {
        Ok(match self {
            LogDb::Own(path) => Database::at(
                spindle_db::parse_url(&format!("sqlite://{}", path.display()))
                    .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?,
                None,
            ),
            LogDb::Given(url) => Database::at(url.clone(), None),
            LogDb::Managed(spec) => Database::managed(spec.clone(), false),
        })
    }
}

/// What the remaining steps will take, for the progress line.
pub struct Eta {
    pub left: Duration,
    /// Steps begun, and planned (a close-call knee adds two).
    pub done: usize,
    pub total: usize,
    /// Steps measured to their end: what a check that stopped early says it covers.
    pub measured: usize,
}

impl Eta {
    fn announce(&mut self, runner: &Runner<'_>, what: &str, takes: Duration) {
        self.done += 1;
        runner.observer.announce(&format!(
            "step {} of {}: {what} (about {} left)",
            self.done,
            self.total,
            format_elapsed(self.left)
        ));
        self.left = self.left.saturating_sub(takes);
    }

    /// Runs the step announced, counting it measured when its run ran its course.
    fn step(
        &mut self,
        runner: &mut Runner<'_>,
        workload: &mut dyn Workload,
        point: usize,
        place: &mut dyn FnMut(&Measured) -> Place,
    ) -> anyhow::Result<bool> {
        let before = runner.runs.len();
        let goes_on = runner.step(workload, point, place)?;
        if runner.runs[before..].iter().any(|f| matches!(f.end, RunEnd::Complete { .. })) {
            self.measured += 1;
        }
        Ok(goes_on)
    }
}

/// Why the runs from `first` on stopped the check, if they did: Ctrl-C above all, else the
/// first run that did not run its course.
pub fn why_stopped(runner: &Runner<'_>, first: usize) -> Option<StopReason> {
    if runner.outcome == Outcome::Interrupted {
        return Some(StopReason::Interrupted);
    }
    runner.runs[first..].iter().find_map(|f| match f.end {
        RunEnd::Complete { .. } => None,
        RunEnd::Interrupted => Some(StopReason::Interrupted),
        RunEnd::OutOfSpace => Some(StopReason::DiskFull),
        RunEnd::Failed(_) => Some(StopReason::Failed),
    })
}

/// The group a directory's runs are saved in, named for the directory's full path so a later
/// check of the same place finds it however the directory was written (`.`, `../data`).
pub fn group_of(dir: &Path) -> (GroupKind, String) {
    let full = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    (GroupKind::Check, format!("check {}", full.display()))
}

/// Runs a directory's battery; why it stopped early, if it did (Ctrl-C, a full disk, a
/// failure). Its test files and own database are removed however it ends.
pub fn battery(
    runner: &mut Runner<'_>,
    dir: DirPlan,
    sizing: &Sizing,
    eta: &mut Eta,
) -> anyhow::Result<Option<StopReason>> {
    let group = group_of(&dir.dir);
    let first = runner.runs.len();
    let mut log = match &dir.log_db {
        Some(db) => Some(LogTest::new(
            db.database()?,
            LogTestPlan { rows: sizing.log_sizes.iter().copied().max().unwrap_or(1), row_bytes: LOG_ROW_BYTES },
            sizing.log_sizes.to_vec(),
            sizing.log_settle,
        )),
        None => None,
    };
    runner.files = Files::for_jobs(dir.steps.iter().map(|s| &s.job));
    let warnings = dir.warnings;
    let mut jobs: Vec<(&'static str, Point, IoJob)> =
        dir.steps.into_iter().map(|s| (s.name, s.point, IoJob::new(s.job, warnings.clone()))).collect();
    let result = run_steps(runner, &mut jobs, log.as_mut(), &group, sizing, eta);
    let mut workloads: Vec<&mut dyn Workload> = jobs.iter_mut().map(|(_, _, j)| j as &mut dyn Workload).collect();
    if let Some(log) = log.as_mut() {
        workloads.push(log);
    }
    runner.finish(&mut workloads);
    if let Some(LogDb::Own(path)) = &dir.log_db {
        remove_sqlite(path, runner);
    }
    match result {
        Ok(true) => Ok(None),
        Ok(false) => Ok(Some(why_stopped(runner, first).unwrap_or(StopReason::Failed))),
        // A full disk met outside a worker (a verified run's write state, say) ends the check
        // as one a worker met does: the steps so far are its findings.
        Err(e) if is_out_of_space(&e) => {
            runner.observer.error(&format!("{}; the check stops here", spindle_runner::saver::error_text(&e)));
            runner.outcome = runner.outcome.and(Outcome::OperationsFailed);
            Ok(Some(StopReason::DiskFull))
        }
        Err(e) => Err(e),
    }
}

fn run_steps(
    runner: &mut Runner<'_>,
    jobs: &mut [(&'static str, Point, IoJob)],
    mut log: Option<&mut LogTest>,
    group: &(GroupKind, String),
    sizing: &Sizing,
    eta: &mut Eta,
) -> anyhow::Result<bool> {
    let place = |point: Point, repeat: u32| {
        let group = group.clone();
        move |_: &Measured| Place {
            group: Some(group.clone()),
            point: Some(point.clone()),
            repeat,
            labels: Default::default(),
        }
    };
    if let Some(log) = log.as_deref_mut()
        && !runner.prepare(log, &mut place(Point::Member("log".into()), 1))?
    {
        return Ok(false);
    }
    for (_, point, job) in jobs.iter_mut() {
        if !runner.prepare(job, &mut place(point.clone(), 1))? {
            return Ok(false);
        }
    }
    let first = runner.runs.len();
    let mut commit_latency = None;
    for at in 0..jobs.len() {
        let (name, point, job) = &mut jobs[at];
        let takes = Duration::from_nanos(job.job.duration_ns + job.job.warmup_ns);
        eta.announce(runner, &describe(name, point), takes);
        let before = runner.runs.len();
        if !eta.step(runner, job, 0, &mut place(point.clone(), 1))? {
            return Ok(false);
        }
        if *name == "commits" {
            commit_latency = runner.runs[before..]
                .first()
                .map(|f| Duration::from_nanos(commits_of(&f.record.summary).1.mean.max(0.0) as u64));
        }
        let is_depth = |p: &Point| depth_of(p).is_some();
        let sweep_ends = is_depth(&jobs[at].1) && !jobs.get(at + 1).is_some_and(|(_, p, _)| is_depth(p));
        if sweep_ends && !settle_knee(runner, jobs, first, &place, eta)? {
            return Ok(false);
        }
    }
    let Some(log) = log else { return Ok(true) };
    // Without a commit measured here (it failed), the log test assumes a millisecond a commit.
    log.set_rows(log_rows(sizing, commit_latency.unwrap_or(Duration::from_millis(1))));
    for (i, size) in sizing.log_sizes.iter().enumerate() {
        let takes = sizing.log_step / (i as u32 + 1);
        eta.announce(runner, &format!("log test, {size} rows per transaction"), takes);
        if !eta.step(runner, log, i, &mut place(Point::sweep("batch", size.to_string()), 1))? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A knee too close to call from one run a depth (`curve::close_call`) is measured again: the
/// two depths it lies between (the deepest, when it may still be climbing), the deeper first
/// since the sweep ended there, so each pair of runs is taken in turn (A B B A). The evidence
/// averages each depth's two runs.
fn settle_knee<F>(
    runner: &mut Runner<'_>,
    jobs: &mut [(&'static str, Point, IoJob)],
    first: usize,
    place: &impl Fn(Point, u32) -> F,
    eta: &mut Eta,
) -> anyhow::Result<bool>
where
    F: FnMut(&Measured) -> Place,
{
    for value in measure_again(&depth_curve(runner.runs[first..].iter())) {
        let Some((name, point, job)) = jobs.iter_mut().find(|(_, p, _)| depth_of(p) == Some(value.as_str())) else {
            continue;
        };
        let takes = Duration::from_nanos(job.job.duration_ns + job.job.warmup_ns);
        eta.total += 1;
        eta.left += takes;
        eta.announce(runner, &format!("{}, again: the knee is a close call", describe(name, point)), takes);
        if !eta.step(runner, job, 0, &mut place(point.clone(), 2))? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The depths a close call is settled by, in the order they are measured again: none when the
/// knee (or its absence) is clear.
fn measure_again(curve: &[CurvePoint]) -> Vec<String> {
    let Some(range) = close_call(curve) else { return Vec::new() };
    let deeper = range.to.unwrap_or(curve.len() - 1);
    [deeper, range.from].iter().map(|&i| curve[i].value.clone()).collect()
}

fn describe(name: &str, point: &Point) -> String {
    let what = name.replace('-', " ");
    match point {
        Point::Sweep(p) => format!("{what}, {}={}", p.param, p.value),
        _ => what,
    }
}

/// Removes the check's own SQLite database and the files SQLite keeps beside it.
fn remove_sqlite(path: &Path, runner: &Runner<'_>) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => runner.observer.warn(&format!("{}: {e}; remove it yourself", Path::new(&file).display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depths(iops: &[f64]) -> Vec<CurvePoint> {
        iops.iter()
            .enumerate()
            .map(|(i, &iops)| CurvePoint {
                value: (1u32 << i).to_string(),
                runs: 1,
                iops,
                mb_per_sec: iops * 8192.0 / 1e6,
                latency_mean_ns: 1e5 * (i + 1) as f64,
                latency_p99_ns: 3e5 * (i + 1) as f64,
            })
            .collect()
    }

    #[test]
    fn a_close_call_is_settled_by_its_two_ends_the_deeper_first() {
        // 16 -> 32 gained 12% and 32 -> 64 1%: the knee is 16 or 32.
        assert_eq!(measure_again(&depths(&[1e3, 2e3, 4e3, 8e3, 16e3, 17.92e3, 18.1e3])), ["32", "16"]);
        // 32 -> 64 gained 13%: 32, or still climbing at 64.
        assert_eq!(measure_again(&depths(&[1e3, 2e3, 4e3, 8e3, 16e3, 24e3, 27.1e3])), ["64", "32"]);
        // Clear: a knee at 16 (then 2%), or still gaining 30% at the end.
        assert!(measure_again(&depths(&[1e3, 2e3, 4e3, 8e3, 16e3, 16.3e3, 16.4e3])).is_empty());
        assert!(measure_again(&depths(&[1e3, 2e3, 4e3, 8e3, 16e3, 24e3, 31.2e3])).is_empty());
    }
}
