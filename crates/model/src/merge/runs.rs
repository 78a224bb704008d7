//! Agents' I/O runs made into the one run they measured together. The histograms go through
//! [`Merged`] (exact: bucket counts added, layouts checked); counts, bytes, errors and CPU
//! are summed; the per-second series are added second by second (every agent started at one
//! instant of the coordinator's clock, so second k is the same second for all of them); the
//! window is the time every agent was measuring.

use super::{AgentPart, Grid, Layout, MergeError, Merged};
use crate::histogram::{Histogram, SparseHistogram};
use crate::record::{
    CpuUsage, IoStats, OpStats, RunRecord, RunStatus, SessionStarts, TargetResult, ThreadResult, TimePoint,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a run measured by several agents was spread and started, kept in its record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// The instant every agent started at, nanoseconds since 1970 on the store server's clock.
    pub start_at_ns: i64,
    /// The spread of the agents' actual starts (latest minus earliest), microseconds.
    pub start_skew_us: f64,
    /// Seconds every agent was measuring (the shortest merged share's window).
    pub steady_seconds: f64,
    /// The agents asked for (`--agents N`; also the `agents` label).
    #[serde(default)]
    pub agents_asked: u32,
    /// The agents whose shares the merged figures are made of: fewer than asked when one was
    /// lost or failed (0 in records made before spindle said so).
    #[serde(default)]
    pub agents_measured: u32,
    /// Every agent of the run, merged or not, in index order.
    pub agents: Vec<AgentFacts>,
    /// A database run's server-side count over the measured window, beside the agents' own
    /// (absent for I/O, and where the server counts nothing: SQLite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerTally>,
}

/// What the database server counted over the window every agent measured, read at the
/// window's edges on the server's clock, and what the agents counted of the same.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerTally {
    /// The server's counter, as the server names it.
    pub counter: String,
    /// Its growth over the window.
    pub server: u64,
    /// The agents' calls that the counter covers, summed.
    pub agents: u64,
    /// Sessions connected to the database at the window's start.
    pub sessions_at_start: u64,
}

/// What came of one agent's share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShareStatus {
    /// It measured its whole window.
    Complete,
    /// It was stopped early (another agent lost, Ctrl-C) and saved what it measured.
    Interrupted,
    /// It stopped with an error.
    Failed,
    /// Its process, host or store connection went while it measured: the coordinator marked
    /// it lost. Its figures are not in the merged run.
    Lost,
}

impl ShareStatus {
    /// As the record spells it.
    pub fn name(self) -> &'static str {
        match self {
            ShareStatus::Complete => "complete",
            ShareStatus::Interrupted => "interrupted",
            ShareStatus::Failed => "failed",
            ShareStatus::Lost => "lost",
        }
    }
}

impl From<RunStatus> for ShareStatus {
    fn from(status: RunStatus) -> ShareStatus {
        match status {
            RunStatus::Complete => ShareStatus::Complete,
            RunStatus::Interrupted => ShareStatus::Interrupted,
            RunStatus::Failed => ShareStatus::Failed,
        }
    }
}

/// One agent of a distributed run, merged or not (a page's table of the agents).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentFacts {
    pub index: u32,
    pub hostname: String,
    /// Its run in the store (the share it measured); none when it saved none (a lost agent
    /// killed before its end saved nothing: agents save their share once, when they end).
    pub run_id: Option<i64>,
    /// Its clock minus the server's, nanoseconds (from the best of its round trips).
    pub offset_ns: i64,
    /// The round trip that offset was measured on, nanoseconds: the offset is good to half.
    pub rtt_ns: i64,
    /// How late it started after the common instant, microseconds (server clock).
    pub late_us: f64,
    /// Seconds its saved share measured; for a lost agent, the seconds of its window it is
    /// known to have measured (its last per-second count published to the store as it went,
    /// less the warm-up; its figures are not merged); 0 when there is neither.
    pub measured_seconds: f64,
    pub status: ShareStatus,
    /// A lost agent's last heartbeat, seconds after the common start (its warm-up included):
    /// how long it was known to be running. Absent for an agent that was not lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_after_seconds: Option<f64>,
}

/// Per direction: the operation's name in the merge and where it sits in `IoStats`.
const OPERATIONS: [&str; 4] = ["read", "write", "flush", "commit"];

fn histograms_of(stats: &IoStats) -> [&SparseHistogram; 4] {
    [&stats.read.histogram, &stats.write.histogram, &stats.flush.histogram, &stats.commit.histogram]
}

/// Adds the stats of several agents' shares of one thing (the run, a target) exactly.
/// `seconds` is the window the rates are over.
fn merged_stats(agents: &[(u32, &IoStats)], seconds: f64) -> Result<IoStats, MergeError> {
    let grid = Grid { start_ns: 0, interval_ns: 1 };
    let parts: Vec<AgentPart> = agents
        .iter()
        .map(|&(agent, stats)| AgentPart {
            agent,
            layout: Layout::SPINDLE,
            grid,
            histograms: OPERATIONS
                .iter()
                .zip(histograms_of(stats))
                .filter(|(_, h)| h.count > 0)
                .map(|(op, h)| (op.to_string(), BTreeMap::from([(0, h.clone())])))
                .collect(),
        })
        .collect();
    let merged = Merged::of(&parts)?;
    let empty = Histogram::default();
    let op = |name: &str| merged.operations.get(name).unwrap_or(&empty);
    let sum = |f: fn(&IoStats) -> u64| agents.iter().map(|(_, s)| f(s)).sum::<u64>();
    let (user, system) =
        agents.iter().fold((0.0, 0.0), |(u, s), (_, st)| (u + st.cpu.user_seconds, s + st.cpu.system_seconds));
    let ios = op("read").count() + op("write").count();
    Ok(IoStats {
        commit: OpStats::of(op("commit")),
        ..IoStats::from_histograms(
            op("read"),
            op("write"),
            op("flush"),
            sum(|s| s.read.bytes),
            sum(|s| s.write.bytes),
            seconds,
            CpuUsage::new(user, system, ios),
        )
    })
}

/// Adds per-second series point by point; a point's rates are over its own width.
fn merged_series(series: &[&[TimePoint]]) -> Vec<TimePoint> {
    let longest = series.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..longest)
        .map(|i| {
            let points: Vec<&TimePoint> = series.iter().filter_map(|s| s.get(i)).collect();
            let t = points.iter().map(|p| p.t).fold(0.0, f64::max);
            let ios: u64 = points.iter().map(|p| p.read_ios + p.write_ios).sum();
            let latency_sum: f64 = points.iter().map(|p| p.latency_mean_ns * (p.read_ios + p.write_ios) as f64).sum();
            TimePoint {
                t,
                read_ios: points.iter().map(|p| p.read_ios).sum(),
                write_ios: points.iter().map(|p| p.write_ios).sum(),
                bytes: points.iter().map(|p| p.bytes).sum(),
                iops: points.iter().map(|p| p.iops).sum(),
                bytes_per_sec: points.iter().map(|p| p.bytes_per_sec).sum(),
                latency_mean_ns: if ios == 0 { 0.0 } else { latency_sum / ios as f64 },
                latency_max_ns: points.iter().map(|p| p.latency_max_ns).max().unwrap_or(0),
            }
        })
        .collect()
}

/// The run the agents' `parts` (each agent's index and record, in any order) measured
/// together. The first part's record gives what they share (the kind and its spec, the
/// environment's machine facts); targets are matched by position, threads numbered on per
/// target. Complete only when every part is.
pub fn merge_runs(parts: &[(u32, &RunRecord)], distribution: Distribution) -> Result<RunRecord, MergeError> {
    let (_, first) = *parts.first().ok_or(MergeError::Nothing)?;
    let window = parts.iter().map(|(_, r)| r.measured_seconds).fold(f64::INFINITY, f64::min);
    let summaries: Vec<(u32, &IoStats)> = parts.iter().map(|&(a, r)| (a, &r.summary)).collect();
    let mut merged = first.clone();
    merged.summary = merged_stats(&summaries, window)?;
    merged.measured_seconds = window;
    merged.targets = (0..first.targets.len())
        .map(|i| {
            let shares: Vec<(u32, &TargetResult)> =
                parts.iter().filter_map(|&(a, r)| r.targets.get(i).map(|t| (a, t))).collect();
            let stats: Vec<(u32, &IoStats)> = shares.iter().map(|&(a, t)| (a, &t.stats)).collect();
            let series: Vec<&[TimePoint]> = shares.iter().map(|(_, t)| t.timeseries.as_slice()).collect();
            Ok(TargetResult {
                stats: merged_stats(&stats, window)?,
                timeseries: merged_series(&series),
                ..first.targets[i].clone()
            })
        })
        .collect::<Result<_, MergeError>>()?;
    let mut next_thread: BTreeMap<usize, u32> = BTreeMap::new();
    merged.threads = parts
        .iter()
        .flat_map(|(_, r)| r.threads.iter())
        .map(|t| {
            let n = next_thread.entry(t.target).or_default();
            *n += 1;
            ThreadResult { thread: *n - 1, ..t.clone() }
        })
        .collect();
    let series: Vec<&[TimePoint]> = parts.iter().map(|(_, r)| r.timeseries.as_slice()).collect();
    merged.timeseries = merged_series(&series);
    merged.errors = BTreeMap::new();
    for (_, r) in parts {
        for (kind, n) in &r.errors {
            *merged.errors.entry(kind.clone()).or_default() += n;
        }
    }
    merged.warnings =
        parts.iter().flat_map(|(a, r)| r.warnings.iter().map(move |w| format!("agent {a}: {w}"))).collect();
    merged.behind_schedule_ios = parts.iter().map(|(_, r)| r.behind_schedule_ios).sum();
    merged.in_flight_at_end = parts.iter().map(|(_, r)| r.in_flight_at_end).sum();
    merged.sessions_started = SessionStarts::merged(parts.iter().filter_map(|(_, r)| r.sessions_started.as_ref()));
    merged.status = if parts.iter().all(|(_, r)| r.status == RunStatus::Complete) {
        RunStatus::Complete
    } else {
        RunStatus::Interrupted
    };
    // Each agent's counters are its own host's: they stay in its own record.
    merged.counters = None;
    let mut hosts: Vec<&str> = parts.iter().map(|(_, r)| r.environment.hostname.as_str()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    merged.environment.hostname = hosts.join(",");
    // The run began when the agents began together, not when the first share's agent joined.
    let common_start = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(distribution.start_at_ns.max(0) as u64);
    merged.started_at = crate::time::rfc3339_utc(common_start);
    merged.agents = Some(distribution);
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(agent: u64, latencies: &[u64], seconds: f64) -> RunRecord {
        let mut read = Histogram::default();
        for l in latencies {
            read.record(*l);
        }
        let stats = IoStats::from_histograms(
            &read,
            &Histogram::default(),
            &Histogram::default(),
            read.count() * 8192,
            0,
            seconds,
            CpuUsage::new(0.5, 0.25, read.count()),
        );
        let mut r = crate::fixtures::record();
        r.status = RunStatus::Complete;
        r.measured_seconds = seconds;
        r.errors.clear();
        r.warnings.clear();
        r.environment.hostname = format!("h{}", agent % 2);
        r.targets = vec![TargetResult { path: "f".into(), stats: stats.clone(), ..TargetResult::default() }];
        r.threads = vec![ThreadResult { target: 0, thread: 0, stats: stats.clone() }];
        r.timeseries = TimePoint::per_second(&[read.count() / 2, read.count() - read.count() / 2], seconds);
        r.summary = stats;
        r
    }

    #[test]
    fn agents_shares_add_up_to_one_run_with_exact_percentiles() {
        let a = share(0, &[100, 200, 300, 400_000], 2.0);
        let b = share(1, &[150, 250, 9_000_000], 1.9);
        let merged = merge_runs(&[(0, &a), (1, &b)], Distribution::default()).unwrap();
        let mut all = Histogram::default();
        for l in [100, 200, 300, 400_000, 150, 250, 9_000_000] {
            all.record(l);
        }
        assert_eq!(merged.summary.read.histogram, SparseHistogram::from(&all), "bucket for bucket");
        assert_eq!(merged.summary.ios, 7);
        assert_eq!(merged.measured_seconds, 1.9, "the window every agent measured");
        assert_eq!(merged.summary.read.bytes, 7 * 8192);
        assert!((merged.summary.cpu.user_seconds - 1.0).abs() < 1e-9);
        assert_eq!(merged.threads.iter().map(|t| t.thread).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(merged.timeseries.iter().map(|p| p.read_ios + p.write_ios).sum::<u64>(), 7);
        assert_eq!(merged.environment.hostname, "h0,h1");
        assert_eq!(merged.targets[0].stats.ios, 7);
        assert!(merged.agents.is_some());
    }

    #[test]
    fn the_merged_run_starts_at_the_agents_common_start() {
        let (mut a, mut b) = (share(0, &[100], 2.0), share(1, &[100], 2.0));
        a.started_at = "2026-11-28T10:00:00Z".into();
        b.started_at = "2026-11-28T10:00:01Z".into();
        // 2026-11-28T10:00:05.5Z: the agents joined and prepared before it.
        let start = Distribution { start_at_ns: 1_795_860_005_500_000_000, ..Distribution::default() };
        let merged = merge_runs(&[(0, &a), (1, &b)], start).unwrap();
        assert_eq!(merged.started_at, "2026-11-28T10:00:05Z");
    }

    #[test]
    fn a_share_not_complete_makes_the_run_not_complete() {
        let a = share(0, &[100], 2.0);
        let mut b = share(1, &[100], 1.0);
        b.status = RunStatus::Interrupted;
        let merged = merge_runs(&[(0, &a), (1, &b)], Distribution::default()).unwrap();
        assert_eq!(merged.status, RunStatus::Interrupted);
    }

    #[test]
    fn a_histogram_that_does_not_add_up_is_refused() {
        let a = share(0, &[100], 2.0);
        let mut b = share(1, &[100], 2.0);
        b.summary.read.histogram.count += 1;
        assert!(matches!(merge_runs(&[(0, &a), (1, &b)], Distribution::default()), Err(MergeError::Histogram { .. })));
        assert_eq!(merge_runs(&[], Distribution::default()), Err(MergeError::Nothing));
    }
}
