//! The agents' saved shares merged into the one run they measured, with how they were
//! distributed (each agent's host, offset, round trip, lateness and window).

use spindle_model::RunRecord;
use spindle_model::merge::{AgentFacts, Distribution, merge_runs};
use spindle_model::record::RunStatus;
use spindle_store::Store;
use spindle_store::agents::{AgentRow, AgentState};

/// The agents' saved shares merged into one run (`None` when none was saved).
pub fn merged_run(
    store: &Store,
    rows: &[AgentRow],
    start_at: i64,
    partial: Option<&str>,
) -> anyhow::Result<Option<RunRecord>> {
    let mut shares = Vec::new();
    for r in rows.iter().filter(|r| r.state == Some(AgentState::Done)) {
        if let Some(id) = r.run_id {
            shares.push((r, store.load(id)?.record));
        }
    }
    if shares.is_empty() {
        return Ok(None);
    }
    let started: Vec<i64> = shares.iter().filter_map(|(r, _)| r.started_ns).collect();
    let skew_ns = started.iter().max().zip(started.iter().min()).map_or(0, |(a, b)| a - b);
    let distribution = Distribution {
        start_at_ns: start_at,
        start_skew_us: skew_ns as f64 / 1e3,
        steady_seconds: shares.iter().map(|(_, r)| r.measured_seconds).fold(f64::INFINITY, f64::min),
        agents: rows.iter().map(|r| facts(r, &shares, start_at)).collect(),
        server: None,
    };
    let parts: Vec<(u32, &RunRecord)> = shares.iter().map(|(r, rec)| (r.index, rec)).collect();
    let mut merged = merge_runs(&parts, distribution)?;
    // The agents' summed series is the run's: its shift and swing, as the runner marks a run's.
    spindle_analysis::over_time::mark(&mut merged);
    if let Some(why) = partial {
        merged.status = RunStatus::Interrupted;
        merged.warnings.insert(0, format!("partial: {why}"));
    }
    Ok(Some(merged))
}

/// What the merged run says of agent `r`.
fn facts(r: &AgentRow, shares: &[(&AgentRow, RunRecord)], start_at: i64) -> AgentFacts {
    let record = shares.iter().find(|(s, _)| s.index == r.index).map(|(_, rec)| rec);
    AgentFacts {
        index: r.index,
        hostname: r.hostname.clone(),
        run_id: r.run_id,
        offset_ns: r.offset_ns,
        rtt_ns: r.rtt_ns,
        late_us: r.started_ns.map_or(0.0, |s| (s - start_at) as f64 / 1e3),
        measured_seconds: record.map_or(0.0, |rec| rec.measured_seconds),
        status: record.map_or(RunStatus::Failed, |rec| rec.status),
    }
}
