//! An A/B experiment's runs as rounds. Each run carries its side (`ab=a|b`) and its round
//! (`round=N`) as labels, so the pairs are found again from the records alone: by `spindle ab`
//! as it ends, and by any later view of the stored group.

use super::{Comparison, Pair, Settings, compare_paired};
use spindle_model::RunRecord;

/// The label a run's side is kept in: `a` or `b`.
pub const SIDE_LABEL: &str = "ab";
/// The label a run's round is kept in: `1`, `2`, ...
pub const ROUND_LABEL: &str = "round";

/// The rounds in which both sides' runs are present, in the order the rounds first appear;
/// a round cut short (an interruption between its two runs) has no pair and is left out.
pub fn pair_rounds<'a>(runs: &[(i64, &'a RunRecord)]) -> Vec<Pair<'a>> {
    let label = |r: &RunRecord, key: &str| r.labels.get(key).cloned().unwrap_or_default();
    let mut rounds: Vec<String> = Vec::new();
    for (_, r) in runs {
        let round = label(r, ROUND_LABEL);
        if !rounds.contains(&round) {
            rounds.push(round);
        }
    }
    rounds
        .iter()
        .filter_map(|round| {
            let side = |s: &str| {
                runs.iter().copied().find(|(_, r)| label(r, ROUND_LABEL) == *round && label(r, SIDE_LABEL) == s)
            };
            Some(Pair { a: side("a")?, b: side("b")? })
        })
        .collect()
}

/// An A/B experiment's comparison: its runs paired by round and tested round by round. The
/// side and round labels are the experiment's design, not differences between A and B.
pub fn compare_rounds(runs: &[(i64, &RunRecord)], threshold_pct: f64) -> Comparison {
    let design = [SIDE_LABEL.to_string(), ROUND_LABEL.to_string()];
    compare_paired(&pair_rounds(runs), &Settings { selected_by: &design, threshold_pct, ..Settings::default() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::fixtures::io_run;

    #[test]
    fn only_complete_rounds_pair() {
        let runs: Vec<RunRecord> = [("a", "1"), ("b", "1"), ("b", "2"), ("a", "2"), ("a", "3")]
            .iter()
            .map(|(side, round)| io_run(&[100.0], 1_000, &[(SIDE_LABEL, side), (ROUND_LABEL, round)]))
            .collect();
        let ids: Vec<(i64, &RunRecord)> = runs.iter().enumerate().map(|(i, r)| (10 + i as i64, r)).collect();
        let pairs: Vec<(i64, i64)> = pair_rounds(&ids).iter().map(|p| (p.a.0, p.b.0)).collect();
        assert_eq!(pairs, [(10, 11), (13, 12)]);
        assert!(pair_rounds(&[]).is_empty());
    }
}
