//! Drift: how far a host's figures wander between groups of runs made at different times, for
//! reasons that have nothing to do with what is compared (a SAN's other tenants, an SSD's
//! garbage collection, a warming cache). Two groups run one after the other carry the drift
//! between them into their difference; measured here, two `--repeat 3` groups of one
//! configuration run back to back differed by 11.8% IOPS with p = 0.031. Alternating A and B
//! in rounds (`spindle ab`) cancels it; for groups that were not alternated, the drift seen
//! between stored repeat groups of an identical workload on this host says how large a change
//! drift alone could explain.

use super::{Metric, SideRuns};
use crate::stats::student_t_quantile;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// How the two sides' runs lie in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sequence {
    /// A and B alternated in balanced rounds (`spindle ab`).
    Rounds,
    /// All of one side ran before all of the other: drift between them looks like a difference.
    OneAfterTheOther,
    /// The sides' runs are interleaved in time (or their times cannot tell).
    Interleaved,
}

impl Sequence {
    /// RFC 3339 UTC start times compare as text. They are whole seconds, so one side's last
    /// run and the other's first often share a second (short runs, one group straight after
    /// the other); that is read as one after the other, the cautious reading (drift then
    /// matters), unless both sides lie within one and the same second.
    pub fn of(a: &SideRuns, b: &SideRuns) -> Sequence {
        match (a.span(), b.span()) {
            (Some((a0, a1)), Some((b0, b1))) if (a1 <= b0 && a0 < b1) || (b1 <= a0 && b0 < a1) => {
                Sequence::OneAfterTheOther
            }
            _ => Sequence::Interleaved,
        }
    }
}

/// The drift estimated for one metric.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Drift {
    /// Two groups of one workload run at different times differ by up to this much (a 95%
    /// prediction bound from Student's t with as many degrees of freedom as stored steps),
    /// percent.
    pub pct: f64,
    /// Stored groups the estimate rests on.
    pub groups: usize,
}

/// A stored group as the drift is estimated from it: the workload its runs ran (when they all
/// ran one), when it began, and each metric's mean log figure (where every run's is positive).
#[derive(Clone, Debug)]
pub struct GroupFigures {
    identity: Option<String>,
    start: String,
    log_means: [Option<f64>; Metric::ALL.len()],
}

impl GroupFigures {
    /// `None` for a group without runs.
    pub fn of(group: &SideRuns) -> Option<GroupFigures> {
        let (start, _) = group.span()?;
        let identity = match group.identities().iter().collect::<Vec<_>>().as_slice() {
            [one] => Some(one.to_string()),
            _ => None,
        };
        let log_means = Metric::ALL.map(|m| {
            let logs = group.log_figures(m)?;
            Some(logs.iter().sum::<f64>() / logs.len() as f64)
        });
        Some(GroupFigures { identity, start: start.to_string(), log_means })
    }
}

/// The 95% range of the change between consecutive stored groups of an identical workload
/// (one of the `wanted` workload identities, `SideRuns::identities`), from `history`: stored
/// repeat groups other than the compared runs. `None` when no workload has two groups.
///
/// The steps' root mean square estimates their spread with one degree of freedom a step (their
/// mean is taken as zero: drift wanders both ways), so the bound is Student's t at 97.5% with
/// that many degrees of freedom times it: with one step t = 12.71, not the normal 1.96, and two
/// stored groups 2% apart bound the drift at about ±29%, not ±4%.
pub fn estimate(metric: Metric, history: &[GroupFigures], wanted: &BTreeSet<String>) -> Option<Drift> {
    // Per workload, each group's start time and geometric mean.
    let mut by_workload: BTreeMap<&str, Vec<(&str, f64)>> = BTreeMap::new();
    for group in history {
        let Some(identity) = group.identity.as_deref().filter(|i| wanted.contains(*i)) else { continue };
        let Some(log_mean) = group.log_means[metric.index()] else { continue };
        by_workload.entry(identity).or_default().push((&group.start, log_mean));
    }
    let mut steps = Vec::new();
    let mut groups = 0;
    for mut series in by_workload.into_values() {
        if series.len() < 2 {
            continue;
        }
        groups += series.len();
        series.sort_by(|x, y| x.0.cmp(y.0));
        steps.extend(series.windows(2).map(|w| w[1].1 - w[0].1));
    }
    if steps.is_empty() {
        return None;
    }
    let rms = (steps.iter().map(|s| s * s).sum::<f64>() / steps.len() as f64).sqrt();
    let t = student_t_quantile(0.975, steps.len() as f64);
    Some(Drift { pct: (t * rms).exp_m1() * 100.0, groups })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::RunRecord;
    use spindle_model::fixtures::io_run;

    fn side(runs: &[&RunRecord]) -> SideRuns {
        let ids: Vec<(i64, &RunRecord)> = runs.iter().map(|r| (0, *r)).collect();
        SideRuns::of(&ids, &[])
    }

    fn figures(history: &[Vec<&RunRecord>]) -> Vec<GroupFigures> {
        history.iter().filter_map(|g| GroupFigures::of(&side(g))).collect()
    }

    fn identities(r: &RunRecord) -> BTreeSet<String> {
        side(&[r]).identities().clone()
    }

    fn run(iops: f64, at: &str) -> RunRecord {
        let mut r = io_run(&[iops; 3], 100_000, &[]);
        r.started_at = at.into();
        r
    }

    #[test]
    fn sides_run_one_after_the_other_or_interleaved() {
        let (a1, a2) = (run(100.0, "2026-11-23T10:00:00Z"), run(100.0, "2026-11-23T10:01:00Z"));
        let (b1, b2) = (run(100.0, "2026-11-23T10:02:00Z"), run(100.0, "2026-11-23T10:00:30Z"));
        assert_eq!(Sequence::of(&side(&[&a1, &a2]), &side(&[&b1])), Sequence::OneAfterTheOther);
        assert_eq!(Sequence::of(&side(&[&b1]), &side(&[&a1, &a2])), Sequence::OneAfterTheOther);
        assert_eq!(Sequence::of(&side(&[&a1, &a2]), &side(&[&b1, &b2])), Sequence::Interleaved);
        assert_eq!(Sequence::of(&side(&[&a1]), &side(&[&a1])), Sequence::Interleaved, "one instant cannot tell");
        // Short runs: A's last and B's first started in the same second.
        let b_same_second = run(100.0, "2026-11-23T10:01:00Z");
        assert_eq!(Sequence::of(&side(&[&a1, &a2]), &side(&[&b_same_second, &b1])), Sequence::OneAfterTheOther);
        assert_eq!(Sequence::of(&side(&[&b_same_second, &b1]), &side(&[&a1, &a2])), Sequence::OneAfterTheOther);
    }

    #[test]
    fn drift_is_the_spread_between_groups_of_one_workload() {
        let g1 = [run(1000.0, "2026-11-20T10:00:00Z"), run(1000.0, "2026-11-20T10:01:00Z")];
        let g2 = [run(1100.0, "2026-11-21T10:00:00Z"), run(1100.0, "2026-11-21T10:01:00Z")];
        let g3 = [run(1000.0, "2026-11-22T10:00:00Z"), run(1000.0, "2026-11-22T10:01:00Z")];
        let mut other = run(5000.0, "2026-11-22T11:00:00Z");
        spindle_model::fixtures::job_mut(&mut other).engine = spindle_model::spec::EngineKind::Sync;
        let history: Vec<Vec<&RunRecord>> =
            vec![g1.iter().collect(), g2.iter().collect(), g3.iter().collect(), vec![&other, &other]];
        let compared = run(1000.0, "2026-11-23T10:00:00Z");
        let d = estimate(Metric::Iops, &figures(&history), &identities(&compared)).unwrap();
        assert_eq!(d.groups, 3, "the other workload's group is left out");
        // Two steps of +-ln(1.1): the 95% range is exp(t(0.975, 2) ln 1.1) - 1, t = 4.303.
        assert!((d.pct - (4.302_652_7 * 1.1f64.ln()).exp_m1() * 100.0).abs() < 1e-4, "{d:?}");
        assert!(
            estimate(Metric::Iops, &figures(&history[..1]), &identities(&compared)).is_none(),
            "one group shows no drift"
        );
        assert!(estimate(Metric::Iops, &figures(&history), &identities(&other)).is_none());
    }

    #[test]
    fn two_stored_groups_bound_the_drift_with_one_degree_of_freedom() {
        // Two groups 2% apart: one step, so t(0.975, 1) = 12.71, not 1.96 (which said ±3.96%).
        let g1 = [run(1000.0, "2026-11-20T10:00:00Z"), run(1000.0, "2026-11-20T10:01:00Z")];
        let g2 = [run(1020.0, "2026-11-21T10:00:00Z"), run(1020.0, "2026-11-21T10:01:00Z")];
        let history: Vec<Vec<&RunRecord>> = vec![g1.iter().collect(), g2.iter().collect()];
        let compared = run(1000.0, "2026-11-23T10:00:00Z");
        let d = estimate(Metric::Iops, &figures(&history), &identities(&compared)).unwrap();
        assert!((d.pct - (12.706_204_7 * 1.02f64.ln()).exp_m1() * 100.0).abs() < 1e-3, "{d:?}");
        assert!(d.pct > 28.0 && d.pct < 29.0, "{d:?}");
    }
}
