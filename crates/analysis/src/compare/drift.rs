//! Drift: how far a host's figures wander between groups of runs made at different times, for
//! reasons that have nothing to do with what is compared (a SAN's other tenants, an SSD's
//! garbage collection, a warming cache). Two groups run one after the other carry the drift
//! between them into their difference; measured here, two `--repeat 3` groups of one
//! configuration run back to back differed by 11.8% IOPS with p = 0.031. Alternating A and B
//! in rounds (`spindle ab`) cancels it; for groups that were not alternated, the drift seen
//! between stored repeat groups of an identical workload on this host says how large a change
//! drift alone could explain.

use super::Metric;
use super::confounders::workload_identity;
use crate::stats::student_t_quantile;
use serde::Serialize;
use spindle_model::RunRecord;
use std::collections::BTreeMap;

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
    pub fn of(a: &[&RunRecord], b: &[&RunRecord]) -> Sequence {
        fn span<'r>(runs: &[&'r RunRecord]) -> Option<(&'r str, &'r str)> {
            let first = runs.iter().map(|r| r.started_at.as_str()).min();
            let last = runs.iter().map(|r| r.started_at.as_str()).max();
            first.zip(last)
        }
        match (span(a), span(b)) {
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

/// The 95% range of the change between consecutive stored groups of an identical workload
/// (the workload of any run in `like`), from `history`: stored repeat groups, each the runs
/// of one group, none of them a compared run. `None` when no workload has two groups.
///
/// The steps' root mean square estimates their spread with one degree of freedom a step (their
/// mean is taken as zero: drift wanders both ways), so the bound is Student's t at 97.5% with
/// that many degrees of freedom times it: with one step t = 12.71, not the normal 1.96, and two
/// stored groups 2% apart bound the drift at about ±29%, not ±4%.
pub fn estimate(metric: Metric, history: &[Vec<&RunRecord>], like: &[&RunRecord]) -> Option<Drift> {
    let wanted: Vec<String> = like.iter().map(|r| workload_identity(r)).collect();
    // Per workload, each group's start time and geometric mean.
    let mut by_workload: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
    for group in history {
        let Some(first) = group.first() else { continue };
        let identity = workload_identity(first);
        if !wanted.contains(&identity) || group.iter().any(|r| workload_identity(r) != identity) {
            continue;
        }
        let logs: Option<Vec<f64>> =
            group.iter().map(|r| metric.of(r)).map(|x| (x > 0.0 && x.is_finite()).then(|| x.ln())).collect();
        let Some(logs) = logs else { continue };
        let start = group.iter().map(|r| r.started_at.clone()).min().unwrap_or_default();
        by_workload.entry(identity).or_default().push((start, logs.iter().sum::<f64>() / logs.len() as f64));
    }
    let mut steps = Vec::new();
    let mut groups = 0;
    for mut series in by_workload.into_values() {
        if series.len() < 2 {
            continue;
        }
        groups += series.len();
        series.sort_by(|x, y| x.0.cmp(&y.0));
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
    use spindle_model::fixtures::io_run;

    fn run(iops: f64, at: &str) -> RunRecord {
        let mut r = io_run(&[iops; 3], 100_000, &[]);
        r.started_at = at.into();
        r
    }

    #[test]
    fn sides_run_one_after_the_other_or_interleaved() {
        let (a1, a2) = (run(100.0, "2026-11-23T10:00:00Z"), run(100.0, "2026-11-23T10:01:00Z"));
        let (b1, b2) = (run(100.0, "2026-11-23T10:02:00Z"), run(100.0, "2026-11-23T10:00:30Z"));
        assert_eq!(Sequence::of(&[&a1, &a2], &[&b1]), Sequence::OneAfterTheOther);
        assert_eq!(Sequence::of(&[&b1], &[&a1, &a2]), Sequence::OneAfterTheOther);
        assert_eq!(Sequence::of(&[&a1, &a2], &[&b1, &b2]), Sequence::Interleaved);
        assert_eq!(Sequence::of(&[&a1], &[&a1]), Sequence::Interleaved, "one instant cannot tell");
        // Short runs: A's last and B's first started in the same second.
        let b_same_second = run(100.0, "2026-11-23T10:01:00Z");
        assert_eq!(Sequence::of(&[&a1, &a2], &[&b_same_second, &b1]), Sequence::OneAfterTheOther);
        assert_eq!(Sequence::of(&[&b_same_second, &b1], &[&a1, &a2]), Sequence::OneAfterTheOther);
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
        let d = estimate(Metric::Iops, &history, &[&compared]).unwrap();
        assert_eq!(d.groups, 3, "the other workload's group is left out");
        // Two steps of +-ln(1.1): the 95% range is exp(t(0.975, 2) ln 1.1) - 1, t = 4.303.
        assert!((d.pct - (4.302_652_7 * 1.1f64.ln()).exp_m1() * 100.0).abs() < 1e-4, "{d:?}");
        assert!(estimate(Metric::Iops, &history[..1], &[&compared]).is_none(), "one group shows no drift");
        assert!(estimate(Metric::Iops, &history, &[&other]).is_none());
    }

    #[test]
    fn two_stored_groups_bound_the_drift_with_one_degree_of_freedom() {
        // Two groups 2% apart: one step, so t(0.975, 1) = 12.71, not 1.96 (which said ±3.96%).
        let g1 = [run(1000.0, "2026-11-20T10:00:00Z"), run(1000.0, "2026-11-20T10:01:00Z")];
        let g2 = [run(1020.0, "2026-11-21T10:00:00Z"), run(1020.0, "2026-11-21T10:01:00Z")];
        let history: Vec<Vec<&RunRecord>> = vec![g1.iter().collect(), g2.iter().collect()];
        let compared = run(1000.0, "2026-11-23T10:00:00Z");
        let d = estimate(Metric::Iops, &history, &[&compared]).unwrap();
        assert!((d.pct - (12.706_204_7 * 1.02f64.ln()).exp_m1() * 100.0).abs() < 1e-3, "{d:?}");
        assert!(d.pct > 28.0 && d.pct < 29.0, "{d:?}");
    }
}
