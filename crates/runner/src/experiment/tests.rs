//! The runner's promises, on a real store: every run saved before the next step begins, a
//! run that cannot go on ends the series with the runs before it kept, everything prepared is
//! finished on every path, and an A/B experiment compares each part with the same part.

use super::ab::{self, AbPlan};
use super::rounds::Side;
use super::series::{self, Step};
use super::{Finished, Runner};
use crate::observer::Observer;
use crate::workload::{Context, Measured, Sink, Workload};
use crate::{Outcome, RunEnd, Saver};
use spindle_analysis::compare::{ROUND_LABEL, SIDE_LABEL};
use spindle_io::run::Progress;
use spindle_model::RunRecord;
use spindle_model::details::KindData;
use spindle_model::record::RunStatus;
use spindle_store::{Filter, GroupKind, Store};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Says nothing: the tests look at the store and the runner's runs instead.
struct Silent;

impl Observer for Silent {
    fn note(&self, _: &str) {}
    fn warn(&self, _: &str) {}
    fn error(&self, _: &str) {}
    fn tick(&self, _: &Progress) {}
    fn fill(&self, _: &str, _: u64, _: u64) {}
    fn announce(&self, _: &str) {}
    fn finish_line(&self) {}
    fn saved(&self, _: &Finished, _: usize, _: usize) {}
    fn unsaved(&self, _: &RunRecord) {}
}

static NEVER: AtomicBool = AtomicBool::new(false);

fn no() -> bool {
    false
}

/// A workload whose steps make one run per part, at a rate of `rate` per second, and check
/// that every earlier run is already in the store when a step begins.
struct Parts {
    store: PathBuf,
    parts: &'static [&'static str],
    rate: f64,
    /// A run made while preparing (a load), when set.
    prepared_run: bool,
    /// The end of each step, in order (then `Complete`).
    ends: Vec<RunEnd>,
    steps: usize,
    finished: bool,
    /// Runs saved by every workload of the test so far.
    shared_count: &'static std::sync::atomic::AtomicU64,
}

impl Parts {
    fn new(
        store: &Path,
        parts: &'static [&'static str],
        rate: f64,
        counter: &'static std::sync::atomic::AtomicU64,
    ) -> Parts {
        Parts {
            store: store.to_path_buf(),
            parts,
            rate,
            prepared_run: false,
            ends: Vec::new(),
            steps: 0,
            finished: false,
            shared_count: counter,
        }
    }

    fn record(&self, part: &str) -> RunRecord {
        let details = KindData::LargeOps { spec: Default::default(), figures: Default::default() };
        let mut r = RunRecord::new(details, RunStatus::Complete, std::time::SystemTime::now(), 1.0);
        // Each part has a rate of its own, so a comparison that mixed parts would show it.
        let scale = 1.0 + self.parts.iter().position(|p| *p == part).unwrap_or(0) as f64;
        r.summary.ios = (self.rate * scale) as u64;
        r.summary.iops = self.rate * scale;
        r.summary.write.ios = r.summary.ios;
        r.summary.write.iops = r.summary.iops;
        r
    }

    fn stored(&self) -> u64 {
        Store::open_existing(&self.store).unwrap().map_or(0, |s| s.count(&Filter::default()).unwrap())
    }
}

impl Workload for Parts {
    fn prepare(&mut self, _: &mut Context<'_>, sink: &mut Sink<'_>) -> anyhow::Result<()> {
        if self.prepared_run {
            let m = Measured {
                part: Some("load".into()),
                ..Measured::new(self.record("load"), RunEnd::Complete { failed_operations: false })
            };
            sink(m)?;
            self.shared_count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }

    fn measure(&mut self, _: usize, _: &mut Context<'_>, sink: &mut Sink<'_>) -> anyhow::Result<RunEnd> {
        let before = self.shared_count.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(self.stored(), before, "every run of the steps before is saved when a step begins");
        let end = if self.steps < self.ends.len() {
            self.ends[self.steps].clone()
        } else {
            RunEnd::Complete { failed_operations: false }
        };
        self.steps += 1;
        for part in self.parts {
            let m = Measured { part: Some(part.to_string()), ..Measured::new(self.record(part), end.clone()) };
            sink(m)?;
            self.shared_count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            assert_eq!(self.stored(), self.shared_count.load(std::sync::atomic::Ordering::Relaxed), "saved at once");
        }
        Ok(end)
    }

    fn finish(&mut self, _: &mut Context<'_>) -> anyhow::Result<()> {
        self.finished = true;
        Ok(())
    }
}

fn runner<'a>(store: &Path, observer: &'a Silent) -> Runner<'a> {
    Runner::new(Saver::new(store.to_path_buf()).unwrap(), observer, &NEVER, no)
}

#[test]
fn a_series_saves_each_run_before_the_next_step_and_stops_at_a_run_that_cannot_go_on() {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let mut w = Parts::new(&store, &["load", "scan"], 100.0, &COUNT);
    w.ends = vec![RunEnd::Complete { failed_operations: false }, RunEnd::Failed("scan failed".into())];
    let steps: Vec<Step> = (1..=4).map(|repeat| Step { repeat, ..Step::once() }).collect();
    let observer = Silent;
    let mut r = runner(&store, &observer);
    series::run(&mut r, &mut [&mut w as &mut dyn Workload], &steps, Some((GroupKind::Repeat, "x".into()))).unwrap();
    assert_eq!(w.steps, 2, "the step whose run failed is the last");
    assert!(w.finished, "finished even though the series stopped early");
    assert_eq!(r.runs.len(), 4);
    assert_eq!(r.outcome, Outcome::OperationsFailed);
    assert_eq!(r.groups.len(), 1);
    let stored = Store::open_existing(&store).unwrap().unwrap();
    assert_eq!(stored.count(&Filter { group: r.groups[0].id, ..Filter::default() }).unwrap(), 4);
}

#[test]
fn an_ab_experiment_compares_each_part_with_the_same_part_in_balanced_rounds() {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let mut a = Parts::new(&store, &["scan", "update"], 100.0, &COUNT);
    let mut b = Parts::new(&store, &["scan", "update"], 200.0, &COUNT);
    a.prepared_run = true;
    b.prepared_run = true;
    let plan = AbPlan {
        rounds: 3,
        first: Side::B,
        points: vec![None],
        threshold_pct: 5.0,
        name: "ab a b".into(),
        names: ["a".into(), "b".into()],
        side_labels: Default::default(),
    };
    let observer = Silent;
    let mut r = runner(&store, &observer);
    let compared = ab::run(&mut r, [&mut a, &mut b], &plan).unwrap();
    assert!(a.finished && b.finished);
    let parts: Vec<Option<&str>> = compared.iter().map(|c| c.part.as_deref()).collect();
    assert_eq!(parts, [Some("load"), Some("scan"), Some("update")], "a group and a comparison per part");
    assert!(r.groups.iter().all(|g| g.kind == GroupKind::Ab));
    for c in &compared {
        // B is twice A in every part: a comparison that mixed parts could not say so.
        let rate = c.comparison.metrics.first().expect("a rate is compared");
        assert!((rate.change_pct - 100.0).abs() < 1e-6, "{}: {}", c.part.as_deref().unwrap_or(""), rate.change_pct);
    }
    let scans: Vec<_> = r.runs.iter().filter(|f| f.part.as_deref() == Some("scan")).collect();
    assert_eq!(scans.len(), 6);
    let order: Vec<&str> = scans.iter().map(|f| f.record.labels[SIDE_LABEL].as_str()).collect();
    assert_eq!(order, ["b", "a", "a", "b", "b", "a"], "balanced rounds, B first as asked");
    assert!(scans.iter().all(|f| f.record.labels.contains_key(ROUND_LABEL)));
}

#[test]
fn an_ab_experiment_after_a_series_compares_only_its_own_groups() {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let observer = Silent;
    let mut r = runner(&store, &observer);
    // A check's battery first, in a group of its own.
    let mut before = Parts::new(&store, &["scan"], 50.0, &COUNT);
    series::run(&mut r, &mut [&mut before as &mut dyn Workload], &[Step::once()], Some((GroupKind::Check, "c".into())))
        .unwrap();
    let (mut a, mut b) = (Parts::new(&store, &["scan"], 100.0, &COUNT), Parts::new(&store, &["scan"], 200.0, &COUNT));
    let plan = AbPlan {
        rounds: 2,
        first: Side::A,
        points: vec![None],
        threshold_pct: 5.0,
        name: "ab a b".into(),
        names: ["a".into(), "b".into()],
        side_labels: Default::default(),
    };
    let compared = ab::run(&mut r, [&mut a, &mut b], &plan).unwrap();
    assert_eq!(compared.len(), 1, "the series' group is not the experiment's");
    assert_eq!(r.groups[compared[0].group].kind, GroupKind::Ab);
    let stored = Store::open_existing(&store).unwrap().unwrap();
    assert!(stored.group(r.groups[0].id.unwrap()).unwrap().summary.is_none(), "the series' summary is left alone");
}
