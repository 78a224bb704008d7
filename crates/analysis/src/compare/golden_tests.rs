//! Comparisons of fixed runs kept whole in a golden file: a change in how sides are read
//! (a run at a time, for sides of thousands of runs) must leave every figure, verdict and word
//! as it was. `SPINDLE_UPDATE_GOLDEN=1` rewrites the file after a change meant to show.

use super::tests::large_op;
use super::*;
use spindle_model::RunRecord;
use spindle_model::fixtures::{io_run, job_mut};
use spindle_model::over_time::LevelShift;

const GOLDEN: &str = "src/compare/golden/comparisons.json";

/// Runs at `levels` IOPS with a wobble, latency inverse to the rate, started at `minutes`.
fn runs(levels: &[f64], minutes: &[u32], labels: &[(&str, &str)]) -> Vec<RunRecord> {
    levels
        .iter()
        .zip(minutes)
        .enumerate()
        .map(|(i, (level, minute))| {
            let series: Vec<f64> = (0..20).map(|s| level * (1.0 + 0.01 * ((s + i) % 5) as f64 - 0.02)).collect();
            let mut r = io_run(&series, (2e8 / level) as u64, labels);
            r.started_at = format!("2026-11-23T10:{minute:02}:00Z");
            r
        })
        .collect()
}

fn ids(runs: &[RunRecord], first: i64) -> Vec<(i64, &RunRecord)> {
    runs.iter().enumerate().map(|(i, r)| (first + i as i64, r)).collect()
}

fn comparisons() -> Vec<(&'static str, Comparison)> {
    let selected = ["raid".to_string()];
    let by_raid = Settings { selected_by: &selected, ..Settings::default() };
    let mut out = Vec::new();

    // Interleaved repeats, B faster, on another host, one of B's runs with a label the others lack
    // and one with a level shift.
    let a = runs(&[1000.0, 1030.0, 985.0, 1012.0], &[0, 2, 4, 6], &[("raid", "5"), ("cache", "on")]);
    let mut b = runs(&[1500.0, 1475.0, 1530.0], &[1, 3, 5], &[("raid", "10"), ("cache", "on")]);
    for r in &mut b {
        r.environment.hostname = "db02".into();
    }
    b[1].labels.insert("note".into(), "rebuilt".into());
    b[2].level_shift = Some(LevelShift { at_seconds: 7.0, before: 1600.0, after: 1450.0 });
    out.push(("independent", compare(&ids(&a, 1), &ids(&b, 10), &by_raid)));

    // Within the threshold, a 2% threshold and a wider one.
    let near = runs(&[1010.0, 1002.0, 1020.0], &[7, 8, 9], &[("raid", "10")]);
    out.push(("equivalent", compare(&ids(&a, 1), &ids(&near, 20), &by_raid)));
    out.push(("threshold 0.5", compare(&ids(&a, 1), &ids(&near, 20), &Settings { threshold_pct: 0.5, ..by_raid })));

    // One after the other, no history: no verdict.
    let later = runs(&[1200.0, 1190.0, 1220.0], &[30, 31, 32], &[("raid", "10")]);
    out.push(("one after the other", compare(&ids(&a, 1), &ids(&later, 30), &by_raid)));

    // A side whose runs are not repeats (two depths), and a single run.
    let mut mixed = runs(&[1400.0, 1420.0], &[1, 3], &[("raid", "10")]);
    job_mut(&mut mixed[1]).targets[0].workload.depth = 32;
    job_mut(&mut mixed[1]).force = true;
    out.push(("not repeats", compare(&ids(&a, 1), &ids(&mixed, 40), &by_raid)));
    out.push(("single run", compare(&ids(&a[..1], 1), &ids(&b[..1], 10), &Settings::default())));

    // A checkpoint timed as a whole.
    let (c1, c2) = (large_op("checkpoint", 0.25, Vec::new()), large_op("checkpoint", 0.27, Vec::new()));
    let (c3, c4) = (large_op("checkpoint", 0.40, Vec::new()), large_op("checkpoint", 0.41, Vec::new()));
    out.push(("checkpoint", compare(&[(1, &c1), (2, &c2)], &[(3, &c3), (4, &c4)], &Settings::default())));

    // Rounds of an A/B experiment, one cut short.
    let rounds: Vec<RunRecord> = [("a", "1", 1000.0), ("b", "1", 1100.0), ("b", "2", 1090.0), ("a", "2", 1004.0)]
        .iter()
        .chain(&[("a", "3", 996.0), ("b", "3", 1111.0), ("a", "4", 1001.0)])
        .map(|(side, round, level)| runs(&[*level], &[0], &[(SIDE_LABEL, side), (ROUND_LABEL, round)]).remove(0))
        .collect();
    out.push(("rounds", compare_rounds(&ids(&rounds, 50), 5.0)));
    out
}

#[test]
fn comparisons_of_fixed_runs_are_as_kept() {
    let mut text = String::new();
    for (name, c) in comparisons() {
        text.push_str(&format!("{name}:\n{}\n", serde_json::to_string_pretty(&c).unwrap()));
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("SPINDLE_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap();
    let at = kept.lines().zip(text.lines()).position(|(k, t)| k != t);
    assert!(
        kept == text,
        "{GOLDEN} changed (first differing line {at:?}); if meant, rerun with SPINDLE_UPDATE_GOLDEN=1\n{text}"
    );
}
