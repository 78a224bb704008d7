//! The merge is exact: agents' histograms added are one histogram of all their samples,
//! bucket for bucket, per operation and interval and over the run, in every order the agents
//! are added in; and what does not fit is refused with nothing merged.

use super::*;
use crate::rng::Rng;

const OPERATIONS: [&str; 3] = ["read", "write", "commit"];
const GRID: Grid = Grid { start_ns: 1_795_000_000_000_000_000, interval_ns: 1_000_000_000 };

/// A latency as storage gives them: mostly around a typical value, a tail over several
/// powers of two, now and then an exact small value or an outlier up to an hour.
fn latency(rng: &mut Rng) -> u64 {
    match rng.below(100) {
        0..=4 => rng.below(128),
        5..=6 => rng.below(3_600_000_000_000),
        _ => {
            let typical = 20_000 + rng.below(200_000);
            let spread = rng.below(12) + 1;
            typical << rng.below(spread)
        }
    }
}

/// The samples of one run: (agent, operation, interval, latency).
struct Samples(Vec<(u32, usize, u64, u64)>);

impl Samples {
    fn new(rng: &mut Rng, agents: u32, per_agent_max: u64) -> Samples {
        let intervals = 1 + rng.below(4);
        let operations = 1 + rng.below(OPERATIONS.len() as u64) as usize;
        let mut samples = Vec::new();
        for agent in 0..agents {
            // An agent may measure nothing at all (it failed to start, or had no work).
            for _ in 0..rng.below(per_agent_max + 1) {
                samples.push((agent, rng.below(operations as u64) as usize, rng.below(intervals), latency(rng)));
            }
        }
        Samples(samples)
    }

    /// Each agent's part as it travels: sparse histograms per operation and interval.
    fn parts(&self, agents: u32) -> Vec<AgentPart> {
        (0..agents)
            .map(|agent| {
                let mut histograms: BTreeMap<String, BTreeMap<u64, Histogram>> = BTreeMap::new();
                for &(_, op, interval, value) in self.0.iter().filter(|s| s.0 == agent) {
                    histograms.entry(OPERATIONS[op].into()).or_default().entry(interval).or_default().record(value);
                }
                let histograms = histograms
                    .into_iter()
                    .map(|(op, intervals)| {
                        (op, intervals.iter().map(|(&k, h)| (k, SparseHistogram::from(h))).collect())
                    })
                    .collect();
                AgentPart { agent, layout: Layout::SPINDLE, grid: GRID, histograms }
            })
            .collect()
    }

    /// One histogram of all the samples of each operation and interval, and of each operation.
    fn union(&self) -> (BTreeMap<String, BTreeMap<u64, Histogram>>, BTreeMap<String, Histogram>) {
        let (mut intervals, mut operations): (BTreeMap<String, BTreeMap<u64, Histogram>>, BTreeMap<String, Histogram>) =
            Default::default();
        for &(_, op, interval, value) in &self.0 {
            intervals.entry(OPERATIONS[op].into()).or_default().entry(interval).or_default().record(value);
            operations.entry(OPERATIONS[op].into()).or_default().record(value);
        }
        (intervals, operations)
    }
}

fn shuffled<T: Clone>(items: &[T], rng: &mut Rng) -> Vec<T> {
    let mut out = items.to_vec();
    for i in (1..out.len()).rev() {
        out.swap(i, rng.below(i as u64 + 1) as usize);
    }
    out
}

fn figures(h: &Histogram) -> [u64; 5] {
    [h.count(), h.percentile(50.0), h.percentile(99.0), h.percentile(99.9), h.max()]
}

/// 1,000 runs of 2 to 16 agents: the merge, in the agents' order and again reversed (even
/// cases) or shuffled (odd ones), equals one histogram of all the samples in every bucket,
/// count and sum, so its p50, p99, p99.9, maximum and count are those of the samples.
#[test]
fn the_merge_of_agents_is_the_histogram_of_all_their_samples_in_any_order() {
    let mut rng = Rng::new(34);
    for case in 0..1_000 {
        let agents = 2 + rng.below(15) as u32;
        let samples = Samples::new(&mut rng, agents, 250);
        let parts = samples.parts(agents);
        let (intervals, operations) = samples.union();
        let merged = Merged::of(&parts).unwrap();
        assert_eq!(merged.intervals, intervals, "case {case}: {agents} agents, per operation and interval");
        assert_eq!(merged.operations, operations, "case {case}: {agents} agents, per operation");
        for (op, whole) in &operations {
            assert_eq!(figures(&merged.operations[op]), figures(whole), "case {case}, {op}");
        }
        let order = if case % 2 == 0 { parts.iter().rev().cloned().collect() } else { shuffled(&parts, &mut rng) };
        assert_eq!(Merged::of(&order).unwrap(), merged, "case {case}: the order changes nothing");
    }
}

/// A million samples over 16 agents: still exact.
#[test]
fn a_million_samples_over_sixteen_agents_merge_exactly() {
    let mut rng = Rng::new(1_000_000);
    let samples = Samples::new(&mut rng, 16, 125_000);
    assert!(samples.0.len() > 900_000, "{}", samples.0.len());
    let (intervals, operations) = samples.union();
    let merged = Merged::of(&samples.parts(16)).unwrap();
    assert_eq!((merged.intervals, merged.operations), (intervals, operations));
}

#[test]
fn another_layout_or_grid_is_refused_and_nothing_merged() {
    let mut rng = Rng::new(7);
    let samples = Samples::new(&mut rng, 3, 100);
    let mut parts = samples.parts(3);
    let before = Merged::of(&parts[..1]).unwrap();

    let mut layout = parts.clone();
    layout[2].layout = Layout { sub_buckets: 32, buckets: 1_920 };
    let err = Merged::of(&layout).unwrap_err();
    assert!(matches!(err, MergeError::Layout { agent: 2, .. }), "{err}");
    assert!(err.to_string().contains("32 sub-buckets") && err.to_string().contains("never averaged"), "{err}");

    parts[1].grid.interval_ns = 500_000_000;
    let err = Merged::of(&parts).unwrap_err();
    assert!(matches!(err, MergeError::Grid { agent: 1, found_ns: 500_000_000, .. }), "{err}");
    let mut merged = before.clone();
    assert!(merged.add(&parts[1]).is_err());
    assert_eq!(merged, before, "a refused agent adds nothing");
    assert_eq!(Merged::of(&[]).unwrap_err(), MergeError::Nothing);
}

/// Histograms that do not add up (damaged, or hostile) are refused, never a panic or a
/// wrapped count.
#[test]
fn a_histogram_that_does_not_add_up_or_overflows_is_refused() {
    let one = |buckets: Vec<(u32, u64)>, count: u64, min: u64, max: u64| {
        let sparse = SparseHistogram { count, min, max, sum: "10".into(), sum_squares: "100".into(), buckets };
        let histograms = BTreeMap::from([("read".to_string(), BTreeMap::from([(0, sparse)]))]);
        AgentPart { agent: 0, layout: Layout::SPINDLE, grid: GRID, histograms }
    };
    let refused = |part: AgentPart| Merged::of(&[part]).unwrap_err().to_string();
    assert!(refused(one(vec![(10, 2)], 3, 10, 10)).contains("do not add up"));
    assert!(refused(one(vec![(10, u64::MAX), (10, 1)], 0, 10, 10)).contains("do not add up"));
    assert!(refused(one(vec![(99_999, 1)], 1, 10, 10)).contains("out of range"));
    assert!(refused(one(vec![(10, 1)], 1, 11, 10)).contains("above its maximum"));
    let big = one(vec![(10, u64::MAX)], u64::MAX, 10, 10);
    let err = Merged::of(&[big.clone(), AgentPart { agent: 1, ..big }]).unwrap_err();
    assert!(matches!(&err, MergeError::Histogram { agent: 1, why, .. } if why.contains("overflows")), "{err}");
}
