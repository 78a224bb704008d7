//! The coordinator's two waits, both read from the store: the barrier (every agent joined and
//! prepared, then one start instant on the server's clock, far enough ahead for the slowest
//! agent to hear of it) and the watch while they measure (a lease gone or a heartbeat gone
//! quiet marks the run partial, naming the agent and the instant, and the others stop).

use crate::caller::Caller;
use crate::launch::Launched;
use spindle_store::Store;
use spindle_store::agents::{AgentRow, AgentState, RunState};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How often the coordinator looks at the agents.
const LOOK: Duration = Duration::from_millis(20);
/// A heartbeat older than this marks its agent lost (agents beat every 200 ms): a host that
/// vanished without closing its connection, which the lease alone would miss for hours.
const QUIET: Duration = Duration::from_secs(3);
/// The least time between the start being set and the start: agents look every 200 ms.
const LEAD: Duration = Duration::from_secs(1);

/// How the barrier ended.
pub enum Barrier {
    /// The agents start at this instant (server clock, ns since 1970).
    Started(i64),
    /// The run was aborted before its start, for this reason (said and stored).
    Aborted(String),
}

/// Waits for all `agents` to be ready, then starts the run.
pub fn barrier(
    store: &Store,
    run: i64,
    agents: u32,
    timeout: Duration,
    launched: &mut Launched,
    caller: &dyn Caller,
) -> anyhow::Result<Barrier> {
    let since = Instant::now();
    let abort = |why: String| -> anyhow::Result<Barrier> {
        store.agent_run_move(run, RunState::Waiting, RunState::Aborted, Some(&why))?;
        Ok(Barrier::Aborted(why))
    };
    loop {
        let rows = store.agents_of(run)?;
        let ready = |r: &AgentRow| r.state == Some(AgentState::Ready);
        if rows.iter().filter(|r| ready(r)).count() == agents as usize {
            let rtt = rows.iter().map(|r| r.rtt_ns).max().unwrap_or(0);
            let lead = LEAD.max(Duration::from_nanos(10 * rtt.max(0) as u64));
            return Ok(match store.agent_run_start(run, lead.as_nanos() as i64)? {
                Some(at) => Barrier::Started(at),
                None => Barrier::Aborted("the run was stopped before it started".into()),
            });
        }
        if let Some(failed) = rows.iter().find(|r| r.state == Some(AgentState::Failed)) {
            let why = failed.note.clone().unwrap_or_default();
            return abort(format!("agent {} on {} failed before the start: {why}", failed.index, failed.hostname));
        }
        if let Some((index, host, status)) = launched.exited() {
            let who = index.map_or("the agents".to_string(), |i| format!("agent {i}"));
            return abort(format!("{who} ({host}) exited before the start ({status})"));
        }
        if caller.stop_flag().load(Ordering::Relaxed) {
            return abort("stopped by Ctrl-C before the start".into());
        }
        if since.elapsed() >= timeout {
            let missing: Vec<String> = (0..agents)
                .filter(|i| !rows.iter().any(|r| r.index == *i && ready(r)))
                .map(|i| i.to_string())
                .collect();
            return abort(format!(
                "agent{} {} not ready after {} s: the run is aborted",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", "),
                timeout.as_secs()
            ));
        }
        std::thread::sleep(LOOK);
    }
}

/// Watches the started run until every agent has finished, failed or is lost; returns their
/// rows and, when the run became partial, why.
pub fn watch(
    store: &Store,
    run: i64,
    agents: u32,
    caller: &dyn Caller,
) -> anyhow::Result<(Vec<AgentRow>, Option<String>)> {
    let ended = |r: &AgentRow| matches!(r.state, Some(AgentState::Done | AgentState::Failed | AgentState::Lost));
    let mut partial: Option<String> = None;
    let mut stop_said = false;
    loop {
        let rows = store.agents_of(run)?;
        if rows.len() == agents as usize && rows.iter().all(ended) {
            return Ok((rows, partial));
        }
        let held = store.leases_held(run)?;
        let now = store.server_now_ns()?;
        for r in rows.iter().filter(|r| !ended(r)) {
            let quiet_ns = now - r.heartbeat_ns;
            let lost = if !held.contains(&r.index) {
                // Its lease may go the moment it reports itself done: read its row again.
                let again = store.agents_of(run)?.into_iter().find(|a| a.index == r.index);
                (!again.as_ref().is_some_and(ended))
                    .then(|| "its process or its connection to the store ended".to_string())
            } else {
                (quiet_ns > QUIET.as_nanos() as i64).then(|| format!("no heartbeat for {:.1} s", quiet_ns as f64 / 1e9))
            };
            if let Some(why) = lost {
                let note = format!(
                    "agent {} on {} lost at {}: {why}",
                    r.index,
                    r.hostname,
                    spindle_model::time::rfc3339_utc(std::time::UNIX_EPOCH + Duration::from_nanos(now.max(0) as u64))
                );
                store.agent_lost(run, r.index, &note)?;
                store.agent_run_move(run, RunState::Started, RunState::Partial, Some(&note))?;
                partial.get_or_insert(note);
            }
        }
        if let Some(failed) = rows.iter().find(|r| r.state == Some(AgentState::Failed)) {
            let note = format!(
                "agent {} on {} failed: {}",
                failed.index,
                failed.hostname,
                failed.note.clone().unwrap_or_default()
            );
            if store.agent_run_move(run, RunState::Started, RunState::Partial, Some(&note))? {
                partial.get_or_insert(note);
            }
        }
        if !stop_said && caller.stop_flag().load(Ordering::Relaxed) {
            stop_said = true;
            let note = "stopped by Ctrl-C".to_string();
            if store.agent_run_move(run, RunState::Started, RunState::Partial, Some(&note))? {
                partial.get_or_insert(note);
            }
        }
        std::thread::sleep(LOOK);
    }
}
