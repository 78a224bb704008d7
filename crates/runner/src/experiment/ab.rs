//! An A/B experiment: two workloads alternated in balanced rounds (`rounds`), each run saved
//! with its side and round as labels, then compared pair by pair (a paired test), so drift the
//! host shares between a round's two runs cancels. One comparison per point (a session count)
//! and part (a large operation, the load that readied a table): a scan is compared with a scan.
//! What the sides run does not matter here: I/O jobs, Hammer, the log test or the large
//! operations, as long as both sides run the same kind (the caller checks).

use super::rounds::{self, Side};
use super::{Place, Runner};
use crate::workload::Workload;
use spindle_analysis::compare::{Comparison, ROUND_LABEL, SIDE_LABEL, compare_rounds};
use spindle_analysis::group_summary::AbSummary;
use spindle_model::RunRecord;
use spindle_model::group::Point;
use spindle_store::GroupKind;
use std::collections::BTreeMap;

pub struct AbPlan {
    pub rounds: u32,
    pub first: Side,
    /// The points compared, each in rounds of its own (`sessions=8`); `[None]` for one.
    pub points: Vec<Option<String>>,
    /// The verdict's threshold, percent.
    pub threshold_pct: f64,
    /// The experiment's name; each group's name adds its point and part.
    pub name: String,
    /// How A and B are called in the group's summary (`a.toml`, `layout=same`).
    pub names: [String; 2],
    /// Labels of each side's runs besides `ab` and `round` (`layout=same`).
    pub side_labels: [BTreeMap<String, String>; 2],
}

/// One comparison: the runs of one point and part, A against B.
pub struct Compared {
    pub point: Option<String>,
    pub part: Option<String>,
    /// Index of its group in `Runner::groups`.
    pub group: usize,
    pub comparison: Comparison,
}

/// Runs the experiment: both sides prepared (what that measures, a load, is compared too, one
/// run a side), then each point's rounds in order; then each group compared and the comparison
/// saved as its summary. Everything the sides made is undone at the end, on errors too.
pub fn run(runner: &mut Runner<'_>, sides: [&mut dyn Workload; 2], plan: &AbPlan) -> anyhow::Result<Vec<Compared>> {
    let order = rounds::order(plan.rounds, plan.first);
    runner.total_steps = order.len() * plan.points.len();
    // Groups the runner made before (a check's batteries before its layouts) are not this
    // experiment's.
    let earlier_groups = runner.groups.len();
    let [a, b] = sides;
    let mut sides = [a, b];
    let result = run_rounds(runner, &mut sides, plan, &order);
    runner.finish(&mut sides);
    result?;
    compare_groups(runner, plan, &order, earlier_groups)
}

fn group_name(plan: &AbPlan, point: Option<&str>, part: Option<&str>) -> String {
    [Some(plan.name.as_str()), point, part].into_iter().flatten().collect::<Vec<_>>().join(" ")
}

fn labels(plan: &AbPlan, side: Side, round: u32) -> BTreeMap<String, String> {
    let mut labels = plan.side_labels[side as usize].clone();
    labels.insert(SIDE_LABEL.into(), side.label().into());
    labels.insert(ROUND_LABEL.into(), round.to_string());
    labels
}

fn run_rounds(
    runner: &mut Runner<'_>,
    sides: &mut [&mut dyn Workload; 2],
    plan: &AbPlan,
    order: &[(Side, u32)],
) -> anyhow::Result<()> {
    for side in [Side::A, Side::B] {
        let ready = runner.prepare(&mut *sides[side as usize], &mut |m| Place {
            group: Some((GroupKind::Ab, group_name(plan, None, Some(m.part.as_deref().unwrap_or("load"))))),
            point: Some(Point::Member(side.label().into())),
            repeat: 1,
            labels: labels(plan, side, 1),
        })?;
        if !ready {
            return Ok(());
        }
    }
    for (index, point) in plan.points.iter().enumerate() {
        for &(side, round) in order {
            let at = point.as_deref().map(|p| format!("{p}, ")).unwrap_or_default();
            runner.observer.announce(&format!("{at}round {round}: {}", side.label().to_uppercase()));
            let goes_on = runner.step(&mut *sides[side as usize], index, &mut |m| Place {
                group: Some((GroupKind::Ab, group_name(plan, point.as_deref(), m.part.as_deref()))),
                point: Some(Point::Member(side.label().into())),
                repeat: round,
                labels: labels(plan, side, round),
            })?;
            if !goes_on {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Each group's runs paired by their labels and compared, in the order the groups began.
fn compare_groups(
    runner: &Runner<'_>,
    plan: &AbPlan,
    order: &[(Side, u32)],
    earlier_groups: usize,
) -> anyhow::Result<Vec<Compared>> {
    let mut out = Vec::new();
    for (index, group) in runner.groups.iter().enumerate().skip(earlier_groups) {
        let runs: Vec<&super::Finished> = runner.runs.iter().filter(|f| f.group == Some(index)).collect();
        let Some(first) = runs.first() else { continue };
        let ids: Vec<(i64, &RunRecord)> = runs.iter().map(|f| (f.id, &f.record)).collect();
        let comparison = compare_rounds(&ids, plan.threshold_pct);
        let summary = AbSummary {
            a: plan.names[0].clone(),
            b: plan.names[1].clone(),
            order: rounds::order_text(order),
            comparison: &comparison,
        };
        runner.saver.set_group_summary(group, &serde_json::to_value(summary)?)?;
        let part = first.part.clone();
        let point =
            plan.points.iter().flatten().find(|p| group.name == group_name(plan, Some(p), part.as_deref())).cloned();
        out.push(Compared { point, part, group: index, comparison });
    }
    Ok(out)
}

/// A fair coin for which side goes first: the clock's nanoseconds, mixed.
pub fn random_bit() -> bool {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    spindle_model::rng::Rng::new(u64::from(nanos) ^ u64::from(std::process::id())).next_u64() & 1 == 1
}
