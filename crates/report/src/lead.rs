//! The latency a run leads with in every view (`IoStats::lead_latency`), as tables and lines
//! show it: what it is of, and each I/O's latency beside it where it is a commit's.

use crate::figures::Cell;
use spindle_model::Recorded;
use spindle_model::record::{IoStats, LatencyOf};

/// What a lead latency is of, as a table or a line names it.
pub fn of_text(of: LatencyOf) -> &'static str {
    match of {
        LatencyOf::Commit => "commit",
        LatencyOf::Io => "I/O",
    }
}

/// Whether a table of these statistics needs the columns that say what its latency is of and
/// show each I/O's beside it: only when one of them leads with a commit's, so a table of runs
/// that commit nothing keeps its columns.
pub fn any_commits<'a>(stats: impl IntoIterator<Item = &'a IoStats>) -> bool {
    stats.into_iter().any(|s| s.lead_latency().0 == LatencyOf::Commit)
}

/// A table's latency columns: mean, p99 and max of the lead latency; with `commits` (see
/// `any_commits`), what it is of before them and each I/O's mean after.
pub(crate) fn columns(commits: bool) -> Vec<&'static str> {
    if commits { vec!["latency of", "mean", "p99", "max", "I/O mean"] } else { vec!["mean", "p99", "max"] }
}

/// The cells under `columns(commits)`; a figure the run did not record is shown as absent.
pub(crate) fn cells(s: &IoStats, recorded: Recorded, commits: bool) -> Vec<Cell> {
    let (of, l) = s.lead_latency();
    let lead_recorded = recorded.of_count(s.lead_count());
    let lead = [
        Cell::latency_if(lead_recorded.latency, l.mean),
        Cell::latency_if(lead_recorded.percentiles, l.p99 as f64),
        Cell::latency_if(lead_recorded.max, l.max as f64),
    ];
    if !commits {
        return lead.to_vec();
    }
    let beside = match of {
        LatencyOf::Commit => Cell::latency_if(recorded.of_count(s.ios).latency, s.latency_ns.mean),
        // The lead is each I/O's already.
        LatencyOf::Io => Cell::empty(),
    };
    let mut cells = vec![Cell::text(of_text(of))];
    cells.extend(lead);
    cells.push(beside);
    cells
}

#[cfg(test)]
mod tests;
