//! One run measured by many agents (hosts, or processes on one host), merged exactly. Every
//! agent records in the one histogram layout spindle has, per operation and per interval of
//! one time grid (interval k is `[start + k·Δ, start + (k+1)·Δ)` in the coordinator's clock),
//! and the merged run is the sum of their bucket counts: the same histogram, bucket for
//! bucket, as one histogram of all their samples, whatever the order the agents are added
//! in. Percentiles are read from the sum, never averaged across agents (an average of p99s
//! is no percentile of anything). An agent whose layout or grid differs is refused, and so
//! is a histogram whose counts do not add up or would overflow: nothing is merged then.

mod runs;

pub use runs::{AgentFacts, Distribution, ServerTally, ShareStatus, merge_runs};

use crate::histogram::{BUCKETS, Histogram, SUB_BUCKETS, SparseHistogram};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// How a histogram's buckets are laid out: histograms add only when theirs are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Linear sub-buckets per power of two (values below twice this are exact).
    pub sub_buckets: u32,
    /// Buckets in all.
    pub buckets: u32,
}

impl Layout {
    /// The layout of `Histogram`, every spindle's.
    pub const SPINDLE: Layout = Layout { sub_buckets: SUB_BUCKETS as u32, buckets: BUCKETS as u32 };
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "log-linear, {} sub-buckets per power of two, {} buckets", self.sub_buckets, self.buckets)
    }
}

/// The time grid of a run: where interval 0 starts and how long each interval is, in
/// nanoseconds of the coordinator's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grid {
    pub start_ns: u64,
    pub interval_ns: u64,
}

/// What one agent measured: for each operation, a histogram per interval of the grid it
/// was given (intervals it saw no operation in are absent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentPart {
    /// The agent's index in the run.
    pub agent: u32,
    pub layout: Layout,
    pub grid: Grid,
    /// Operation (`read`, `write`, a transaction's name) -> interval index -> histogram.
    pub histograms: BTreeMap<String, BTreeMap<u64, SparseHistogram>>,
}

/// Why agents' results were not merged.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum MergeError {
    #[error("there are no agents' results to merge")]
    Nothing,
    #[error(
        "agent {agent} recorded its histograms as {found}, the run as {expected}: histograms of different layouts cannot be added, and percentiles are never averaged"
    )]
    Layout { agent: u32, found: Layout, expected: Layout },
    #[error(
        "agent {agent} measured on another time grid (intervals of {found_ns} ns from {found_start}, the run's {expected_ns} ns from {expected_start}): its intervals are not the run's"
    )]
    Grid { agent: u32, found_start: u64, found_ns: u64, expected_start: u64, expected_ns: u64 },
    #[error("agent {agent}, {operation} in interval {interval}: {why}")]
    Histogram { agent: u32, operation: String, interval: u64, why: String },
}

/// The run, merged: for each operation, the histogram of every agent's samples in each
/// interval of the grid, and over the whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    pub layout: Layout,
    pub grid: Grid,
    /// Operation -> interval index -> histogram.
    pub intervals: BTreeMap<String, BTreeMap<u64, Histogram>>,
    /// Operation -> histogram of all its intervals.
    pub operations: BTreeMap<String, Histogram>,
}

impl Merged {
    /// Adds every agent's histograms, in the order given (any order gives the same result).
    /// All of them or none: the first part that does not fit is the error.
    pub fn of(parts: &[AgentPart]) -> Result<Merged, MergeError> {
        let first = parts.first().ok_or(MergeError::Nothing)?;
        let mut merged = Merged {
            layout: Layout::SPINDLE,
            grid: first.grid,
            intervals: BTreeMap::new(),
            operations: BTreeMap::new(),
        };
        for part in parts {
            merged.add(part)?;
        }
        Ok(merged)
    }

    /// Adds one agent's histograms; on an error the merge is left as it was.
    pub fn add(&mut self, part: &AgentPart) -> Result<(), MergeError> {
        if part.layout != self.layout {
            return Err(MergeError::Layout { agent: part.agent, found: part.layout, expected: self.layout });
        }
        if part.grid != self.grid {
            return Err(MergeError::Grid {
                agent: part.agent,
                found_start: part.grid.start_ns,
                found_ns: part.grid.interval_ns,
                expected_start: self.grid.start_ns,
                expected_ns: self.grid.interval_ns,
            });
        }
        // Every histogram is checked against what it joins before any is added.
        let mut adding = Vec::new();
        for (operation, intervals) in &part.histograms {
            let mut total = self.operations.get(operation).map_or(Sums::default(), Sums::of);
            for (&interval, sparse) in intervals {
                let error = |why: String| MergeError::Histogram {
                    agent: part.agent,
                    operation: operation.clone(),
                    interval,
                    why,
                };
                let histogram = whole(sparse).map_err(error)?;
                let overflow = || error("adding it overflows the run's counts".into());
                if let Some(into) = self.intervals.get(operation).and_then(|i| i.get(&interval)) {
                    Sums::of(into).plus(Sums::of(&histogram)).ok_or_else(overflow)?;
                }
                total = total.plus(Sums::of(&histogram)).ok_or_else(overflow)?;
                adding.push((operation, interval, histogram));
            }
        }
        for (operation, interval, histogram) in adding {
            self.intervals.entry(operation.clone()).or_default().entry(interval).or_default().merge(&histogram);
            self.operations.entry(operation.clone()).or_default().merge(&histogram);
        }
        Ok(())
    }
}

/// `sparse` as a histogram, once it is known to be whole: its buckets in the layout and
/// adding up to its count. Buckets then never overflow where counts do not.
fn whole(sparse: &SparseHistogram) -> Result<Histogram, String> {
    let counted = sparse.buckets.iter().try_fold(0u64, |sum, &(_, n)| sum.checked_add(n));
    if counted != Some(sparse.count) {
        return Err(format!("its buckets do not add up to its count of {}", sparse.count));
    }
    if sparse.count > 0 && sparse.min > sparse.max {
        return Err(format!("its minimum {} is above its maximum {}", sparse.min, sparse.max));
    }
    Histogram::try_from(sparse)
}

/// A histogram's count and sums: what adding histograms may overflow.
#[derive(Clone, Copy, Default)]
struct Sums {
    count: u64,
    sum: u128,
    sum_squares: u128,
}

impl Sums {
    fn of(h: &Histogram) -> Sums {
        Sums { count: h.count(), sum: h.sum(), sum_squares: h.sum_squares() }
    }

    /// `None` where any of them overflows.
    fn plus(self, other: Sums) -> Option<Sums> {
        Some(Sums {
            count: self.count.checked_add(other.count)?,
            sum: self.sum.checked_add(other.sum)?,
            sum_squares: self.sum_squares.checked_add(other.sum_squares)?,
        })
    }
}

#[cfg(test)]
mod tests;
