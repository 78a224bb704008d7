//! One latency unit per page: every latency a view shows (its cells and its latency charts)
//! in the unit that suits most of them, so a reader compares figures without converting
//! (a page once read 92ns in a table, 0.0000918 on a bar in ms and µs for percentiles).

use super::{Section, Table};
use crate::figures::LatencyUnit;

/// Every latency `s` shows, in nanoseconds: its tables' latency cells and its latency
/// charts' values (which the builders leave in nanoseconds until `put_in`).
pub fn latencies(s: &Section) -> impl Iterator<Item = f64> + '_ {
    let cells = s.tables.iter().flat_map(table_latencies);
    let charts =
        s.charts.iter().filter(|c| c.latency).flat_map(|c| c.series.iter().flat_map(|s| s.values.iter().copied()));
    cells.chain(charts)
}

/// Puts every latency of `sections` in `unit`: the text of latency cells, and the values and
/// axis of latency charts.
pub fn put_in(sections: &mut [Section], unit: LatencyUnit) {
    for s in sections {
        for t in &mut s.tables {
            for cell in t.rows.iter_mut().flatten().filter(|c| c.unit == "ns") {
                if let Some(ns) = cell.value {
                    cell.text = unit.text(ns);
                }
            }
        }
        for c in s.charts.iter_mut().filter(|c| c.latency) {
            for v in c.series.iter_mut().flat_map(|s| s.values.iter_mut()) {
                *v /= unit.ns;
            }
            c.y_label = unit.name.to_string();
            c.latency = false;
        }
    }
}

fn table_latencies(t: &Table) -> impl Iterator<Item = f64> + '_ {
    t.rows.iter().flatten().filter(|c| c.unit == "ns").filter_map(|c| c.value)
}
