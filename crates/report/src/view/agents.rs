//! A run measured by several agents together (`spindle agents`): who measured it, how far
//! apart they started, and each one's share, from the distribution its merged record keeps.

use super::Table;
use crate::figures::{Cell, LatencyUnit};
use spindle_model::merge::Distribution;

/// What a note says of the agents' start, and their table: a row per agent.
pub fn agents(d: &Distribution) -> (String, Table) {
    let said = format!(
        "Measured by {} agents, started together: their starts spread over {}; every one measured for {:.1} s.",
        d.agents.len(),
        time(d.start_skew_us * 1e3).text,
        d.steady_seconds
    );
    let mut t = Table::new(
        "Agents",
        &["agent", "host", "its share (run)", "clock offset", "round trip", "started late by", "seconds", "status"],
    );
    for a in &d.agents {
        t.rows.push(vec![
            Cell::count(u64::from(a.index)),
            Cell::text(a.hostname.clone()),
            a.run_id.map_or_else(Cell::empty, |id| Cell::number(format!("run {id}"), id as f64)),
            time(a.offset_ns as f64),
            time(a.rtt_ns as f64),
            time(a.late_us * 1e3),
            Cell::seconds(a.measured_seconds),
            Cell::text(a.status.name()),
        ]);
    }
    (said, t)
}

/// A clock's time (not an operation's latency, so not put in the page's latency unit): in
/// the unit that suits it.
fn time(ns: f64) -> Cell {
    Cell::number(LatencyUnit::for_ns(ns.abs()).text(ns), ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::merge::AgentFacts;
    use spindle_model::record::RunStatus;

    #[test]
    fn each_agent_has_a_row_and_the_start_spread_is_said() {
        let agent = |index, host: &str, late_us| AgentFacts {
            index,
            hostname: host.into(),
            run_id: Some(10 + i64::from(index)),
            offset_ns: -1_500_000,
            rtt_ns: 250_000,
            late_us,
            measured_seconds: 10.0,
            status: RunStatus::Complete,
        };
        let d = Distribution {
            start_skew_us: 830.0,
            steady_seconds: 10.0,
            agents: vec![agent(0, "db1", 0.0), agent(1, "db2", 830.0)],
            ..Distribution::default()
        };
        let (note, t) = agents(&d);
        assert!(note.contains("2 agents") && note.contains("830 µs"), "{note}");
        let texts: Vec<Vec<&str>> = t.rows.iter().map(|r| r.iter().map(|c| c.text.as_str()).collect()).collect();
        assert_eq!(texts[1], ["1", "db2", "run 11", "-1.50 ms", "250 µs", "830 µs", "10.0 s", "complete"]);
    }
}
