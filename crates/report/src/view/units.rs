//! One latency unit per page: every latency a view shows (its cells and its latency charts)
//! in the unit that suits most of them, so a reader compares figures without converting
//! (a page once read 92ns in a table, 0.0000918 on a bar in ms and µs for percentiles).

use super::{ReportView, Table};
use crate::figures::LatencyUnit;

/// Puts every latency in `v` in one unit, chosen for its figures: the tables' latency cells
/// and the latency charts' values (which the builders leave in nanoseconds).
pub fn one_latency_unit(v: &mut ReportView) {
    let tables = || v.sections.iter().flat_map(|s| s.tables.iter());
    let cells = tables().flat_map(latencies);
    let charts = v.sections.iter().flat_map(|s| s.charts.iter()).filter(|c| c.latency);
    let unit = LatencyUnit::for_most(cells.chain(charts.flat_map(|c| c.series.iter().flat_map(|s| s.values.clone()))));
    for s in &mut v.sections {
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

fn latencies(t: &Table) -> impl Iterator<Item = f64> + '_ {
    t.rows.iter().flatten().filter(|c| c.unit == "ns").filter_map(|c| c.value)
}
