use super::*;
use spindle_model::fixtures::io_run;

/// A per-second series around `level` with a fixed ±2% wobble, shifted by `phase`.
fn series(level: f64, phase: usize) -> Vec<f64> {
    const WOBBLE: [f64; 7] = [0.0, 0.02, -0.01, 0.015, -0.02, 0.005, -0.01];
    (0..30).map(|i| level * (1.0 + WOBBLE[(i + phase) % WOBBLE.len()])).collect()
}

fn verdict(c: &Comparison, m: Metric) -> Verdict {
    c.metrics.iter().find(|x| x.metric == m).unwrap().verdict
}

#[test]
fn a_run_compared_with_itself_is_within_noise() {
    let r = io_run(&series(1000.0, 0), 200_000, &[("raid", "5")]);
    let c = compare(&[(1, &r)], &[(1, &r)], &[]);
    assert_eq!(c.basis, Basis::SingleRun);
    for m in Metric::ALL {
        assert_eq!(verdict(&c, m), Verdict::WithinNoise, "{m:?}: untestable, but identical");
    }
    assert!(c.confounders.is_empty(), "{:?}", c.confounders);
    assert!(c.headline.starts_with("No real difference in IOPS"), "{}", c.headline);
}

#[test]
fn repeats_of_one_configuration_are_within_noise() {
    let a: Vec<_> =
        [1000.0, 1012.0, 994.0].iter().enumerate().map(|(i, l)| io_run(&series(*l, i), 200_000, &[])).collect();
    let b: Vec<_> =
        [1006.0, 991.0, 1009.0].iter().enumerate().map(|(i, l)| io_run(&series(*l, i + 3), 200_000, &[])).collect();
    let side = |v: &'static [i64], runs: &[spindle_model::RunRecord]| -> Vec<(i64, spindle_model::RunRecord)> {
        v.iter().copied().zip(runs.iter().cloned()).collect()
    };
    let (sa, sb) = (side(&[1, 2, 3], &a), side(&[4, 5, 6], &b));
    let ra: Vec<(i64, &spindle_model::RunRecord)> = sa.iter().map(|(i, r)| (*i, r)).collect();
    let rb: Vec<(i64, &spindle_model::RunRecord)> = sb.iter().map(|(i, r)| (*i, r)).collect();
    let c = compare(&ra, &rb, &[]);
    assert_eq!(c.basis, Basis::Repeats);
    assert_eq!(verdict(&c, Metric::Iops), Verdict::WithinNoise);
    let iops = &c.metrics[0];
    let (lo, hi) = iops.ci95_pct.unwrap();
    assert!(lo < 0.0 && hi > 0.0, "the interval of a null difference spans zero: {lo} {hi}");
    assert_eq!(c.a_runs, [1, 2, 3]);
}

#[test]
fn a_clear_difference_is_stated_as_seed_002_does() {
    let a: Vec<_> = (0..3).map(|i| io_run(&series(1000.0 + i as f64 * 10.0, i), 400_000, &[("raid", "5")])).collect();
    let b: Vec<_> = (0..3).map(|i| io_run(&series(2170.0 + i as f64 * 15.0, i), 180_000, &[("raid", "10")])).collect();
    let ra: Vec<(i64, &spindle_model::RunRecord)> = a.iter().enumerate().map(|(i, r)| (i as i64 + 1, r)).collect();
    let rb: Vec<(i64, &spindle_model::RunRecord)> = b.iter().enumerate().map(|(i, r)| (i as i64 + 4, r)).collect();
    let c = compare(&ra, &rb, &["raid".to_string()]);
    assert_eq!(verdict(&c, Metric::Iops), Verdict::BBetter);
    assert_eq!(verdict(&c, Metric::LatencyMean), Verdict::BBetter, "lower latency is better");
    assert!(c.headline.starts_with("B outperforms A by 116.3"), "{}", c.headline);
    assert!(c.headline.contains("3 vs 3 runs"), "{}", c.headline);
    assert!(c.metrics[0].test.as_ref().unwrap().p_value < 0.001);
    assert!(c.confounders.is_empty(), "the compared label is not a confounder: {:?}", c.confounders);

    let reversed = compare(&rb, &ra, &["raid".to_string()]);
    assert_eq!(verdict(&reversed, Metric::Iops), Verdict::BWorse);
    assert!(reversed.headline.starts_with("A outperforms B"), "{}", reversed.headline);
}

#[test]
fn single_runs_are_not_tested_however_large_the_change() {
    // Measured here: two single runs of one configuration differed by 43%.
    let a = io_run(&series(61_463.0, 0), 130_000, &[]);
    let b = io_run(&series(88_118.0, 0), 91_000, &[]);
    let c = compare(&[(1, &a)], &[(4, &b)], &[]);
    assert!(c.metrics.iter().all(|m| m.verdict == Verdict::Untested && m.test.is_none()));
    assert!((c.metrics[0].change_pct - 43.37).abs() < 0.1, "the change is still shown");
    assert!(c.headline.contains("--repeat 3"), "{}", c.headline);
}

#[test]
fn other_differences_are_listed() {
    let a = io_run(&series(1000.0, 0), 200_000, &[("raid", "5"), ("cache", "on")]);
    let mut b = io_run(&series(1000.0, 0), 200_000, &[("raid", "10")]);
    b.spec = serde_json::json!({ "engine": "uring", "duration_ns": 10_000_000_000u64, "force": true,
        "targets": [{ "workload": { "depth": 32 } }] });
    b.environment.hostname = "db02".into();
    let c = compare(&[(1, &a)], &[(2, &b)], &["raid".to_string()]);
    let keys: Vec<(&str, &str)> = c.confounders.iter().map(|x| (x.area, x.key.as_str())).collect();
    assert_eq!(
        keys,
        [("environment", "hostname"), ("label", "cache"), ("workload", "targets[0].workload.depth")],
        "force does not change what is measured; raid is what was compared"
    );
    let depth = &c.confounders[2];
    assert_eq!((depth.a.as_slice(), depth.b.as_slice()), (&["-".to_string()][..], &["32".to_string()][..]));
}
