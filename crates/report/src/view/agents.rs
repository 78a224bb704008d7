//! A run measured by several agents together (`spindle agents`): who measured it, how far
//! apart they started, and each one's share, from the distribution its merged record keeps.

use super::Table;
use crate::figures::{Cell, LatencyUnit};
use spindle_model::merge::Distribution;

/// What a note says of the agents' start, and their table: a row per agent.
pub fn agents(d: &Distribution) -> (String, Table) {
    // Their clocks' times in one unit, the one most of them suit, as a page's latencies are.
    let times = d.agents.iter().flat_map(|a| [a.offset_ns as f64, a.rtt_ns as f64, a.late_us * 1e3]);
    let unit = LatencyUnit::for_most(times.map(f64::abs).chain([d.start_skew_us * 1e3]));
    let time = |ns: f64| Cell::number(unit.text(ns), ns);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agent_has_a_row_and_the_start_spread_is_said() {
        // As a merged record keeps it (read as JSON: the facts kept of an agent may grow).
        let agent = |index: u32, host: &str, late_us: f64| {
            serde_json::json!({
                "index": index, "hostname": host, "run_id": 10 + index, "offset_ns": -1_500_000, "rtt_ns": 250_000,
                "late_us": late_us, "measured_seconds": 10.0, "status": "complete"
            })
        };
        let d: Distribution = serde_json::from_value(serde_json::json!({
            "start_at_ns": 0, "start_skew_us": 830.0, "steady_seconds": 10.0,
            "agents": [agent(0, "db1", 0.0), agent(1, "db2", 830.0)]
        }))
        .unwrap();
        let (note, t) = agents(&d);
        assert!(note.contains("2 agents") && note.contains("830 µs"), "{note}");
        let texts: Vec<Vec<&str>> = t.rows.iter().map(|r| r.iter().map(|c| c.text.as_str()).collect()).collect();
        assert_eq!(texts[1], ["1", "db2", "run 11", "-1,500 µs", "250 µs", "830 µs", "10.0 s", "complete"]);
    }
}
