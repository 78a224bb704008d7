//! The agents' saved shares merged into the one run they measured, with how they were
//! distributed (each agent's host, offset, round trip, lateness, window and status, the lost
//! and failed ones too).
//!
//! Only the shares of agents that reported themselves done are added. A lost agent's figures
//! are not: killed, it saved nothing (an agent saves its share once, when it ends); alive but
//! cut off, it is ended by the coordinator that launched it, or saves after the merge, its
//! report on a row marked lost refused. And it would not be sound to add one: its window
//! ended at an instant of its own, before the others'; the merged rates are over the shortest
//! merged window, so the others' calls over their longer windows would be divided by its
//! shorter one, overstating the run's rate. The merged run is what the whole shares measured,
//! said as "M of N agents measured", with the lost agent listed, status lost, when it was last
//! heard from, and how much of its window it had measured: every measuring spindle publishes
//! its per-second counts to the store's live runs as it goes (for `serve`), and a killed
//! agent's last published second is the last it is known to have measured.

use spindle_model::RunRecord;
use spindle_model::merge::{AgentFacts, Distribution, ShareStatus, merge_runs};
use spindle_model::record::RunStatus;
use spindle_store::Store;
use spindle_store::agents::{AgentRow, AgentState};
use spindle_store::progress::LiveRun;
use std::time::Duration;

/// The agents' saved shares merged into one run (`None` when none was saved); the agents
/// started at `start_at` (server clock, ns) and warmed up for `warmup` first.
pub fn merged_run(
    store: &Store,
    rows: &[AgentRow],
    (start_at, warmup): (i64, Duration),
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
    // Read only when an agent was lost: what it published as it measured.
    let live = if rows.iter().any(|r| r.state == Some(AgentState::Lost)) { store.live_runs()? } else { Vec::new() };
    let started: Vec<i64> = shares.iter().filter_map(|(r, _)| r.started_ns).collect();
    let skew_ns = started.iter().max().zip(started.iter().min()).map_or(0, |(a, b)| a - b);
    let distribution = Distribution {
        start_at_ns: start_at,
        start_skew_us: skew_ns as f64 / 1e3,
        steady_seconds: shares.iter().map(|(_, r)| r.measured_seconds).fold(f64::INFINITY, f64::min),
        agents_asked: rows.len() as u32,
        agents_measured: shares.len() as u32,
        agents: rows.iter().map(|r| facts(r, &shares, (start_at, warmup), &live)).collect(),
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
    if let Some(said) = merged.agents.as_ref().and_then(measured_text) {
        merged.warnings.insert(0, said);
    }
    Ok(Some(merged))
}

/// "2 of 3 agents measured; agent 2 lost after 6.0 s, having measured 5.0 s, not in these
/// figures", when fewer than asked were merged.
pub fn measured_text(d: &Distribution) -> Option<String> {
    if d.agents_measured >= d.agents_asked {
        return None;
    }
    let mut said = format!("{} of {} agents measured", d.agents_measured, d.agents_asked);
    for a in d.agents.iter().filter(|a| matches!(a.status, ShareStatus::Lost | ShareStatus::Failed)) {
        match a.lost_after_seconds {
            Some(s) => said.push_str(&format!(
                "; agent {} lost after {s:.1} s, having measured {:.1} s, not in these figures",
                a.index, a.measured_seconds
            )),
            None => said.push_str(&format!("; agent {} failed", a.index)),
        }
    }
    Some(said)
}

/// What the merged run says of agent `r`.
fn facts(
    r: &AgentRow,
    shares: &[(&AgentRow, RunRecord)],
    (start_at, warmup): (i64, Duration),
    live: &[LiveRun],
) -> AgentFacts {
    let record = shares.iter().find(|(s, _)| s.index == r.index).map(|(_, rec)| rec);
    let lost = r.state == Some(AgentState::Lost);
    let measured_seconds = match record {
        Some(rec) => rec.measured_seconds,
        None if lost => published_seconds(live, r, start_at, warmup),
        None => 0.0,
    };
    let status = match (lost, record) {
        (true, _) => ShareStatus::Lost,
        (false, Some(rec)) => rec.status.into(),
        (false, None) => ShareStatus::Failed,
    };
    AgentFacts {
        index: r.index,
        hostname: r.hostname.clone(),
        run_id: record.and(r.run_id),
        offset_ns: r.offset_ns,
        rtt_ns: r.rtt_ns,
        late_us: r.started_ns.map_or(0.0, |s| (s - start_at) as f64 / 1e3),
        measured_seconds,
        status,
        lost_after_seconds: lost.then(|| (r.heartbeat_ns - start_at).max(0) as f64 / 1e9),
    }
}

/// Seconds of its window lost agent `r` is known to have measured: its last second published
/// to the store's live runs, less the warm-up (0 when it published none). A row of its host
/// and pid last written before the run's start is another process's, gone before it.
fn published_seconds(live: &[LiveRun], r: &AgentRow, start_at: i64, warmup: Duration) -> f64 {
    live.iter()
        .filter(|l| l.pid == r.pid && l.hostname == r.hostname)
        .filter(|l| l.updated_ms.saturating_mul(1_000_000) - r.offset_ns >= start_at)
        .filter_map(|l| l.points.last())
        .map(|p| (p[0] - warmup.as_secs_f64()).max(0.0))
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(index: u32, status: ShareStatus, lost_after_seconds: Option<f64>) -> AgentFacts {
        AgentFacts {
            index,
            hostname: "h".into(),
            run_id: None,
            offset_ns: 0,
            rtt_ns: 0,
            late_us: 0.0,
            measured_seconds: 0.0,
            status,
            lost_after_seconds,
        }
    }

    #[test]
    fn a_run_missing_an_agent_says_how_many_measured_and_what_became_of_the_others() {
        let mut d = Distribution {
            agents_asked: 3,
            agents_measured: 2,
            agents: vec![
                agent(0, ShareStatus::Interrupted, None),
                agent(1, ShareStatus::Interrupted, None),
                agent(2, ShareStatus::Lost, Some(6.04)),
            ],
            ..Distribution::default()
        };
        d.agents[2].measured_seconds = 5.0;
        let lost = "agent 2 lost after 6.0 s, having measured 5.0 s, not in these figures";
        assert_eq!(measured_text(&d).unwrap(), format!("2 of 3 agents measured; {lost}"));
        d.agents[1].status = ShareStatus::Failed;
        d.agents_measured = 1;
        assert_eq!(measured_text(&d).unwrap(), format!("1 of 3 agents measured; agent 1 failed; {lost}"));
        d.agents_measured = 3;
        assert_eq!(measured_text(&d), None, "nothing said when every agent measured");
    }

    #[test]
    fn a_lost_agent_measured_up_to_its_last_published_second_past_the_warm_up() {
        let start_at = 1_795_860_000_000_000_000;
        let row = AgentRow { pid: 42, hostname: "h".into(), ..AgentRow::default() };
        let live = |pid: i64, updated_ms: i64| LiveRun {
            id: 1,
            pid,
            hostname: "h".into(),
            what: String::new(),
            started_at: String::new(),
            updated_ms,
            points: vec![[6.0, 10.0, 0.0, 0.0], [7.0, 10.0, 0.0, 0.0]],
            run_id: None,
        };
        let (after, before) = (start_at / 1_000_000 + 7_000, start_at / 1_000_000 - 60_000);
        let warmup = Duration::from_secs(2);
        assert_eq!(published_seconds(&[live(42, after)], &row, start_at, warmup), 5.0);
        assert_eq!(published_seconds(&[live(43, after)], &row, start_at, warmup), 0.0, "another pid's");
        assert_eq!(published_seconds(&[live(42, before)], &row, start_at, warmup), 0.0, "an older process's");
        assert_eq!(published_seconds(&[], &row, start_at, warmup), 0.0, "none published");
    }
}
