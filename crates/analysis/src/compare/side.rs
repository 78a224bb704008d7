//! One side of a comparison as the comparison reads it, gathered a run at a time: each run's
//! figures (seven numbers a run), the span of the runs' start times, and each setting, fact of
//! the environment and label with the values the runs have. A side of thousands of runs is
//! held in these, never as its records (each with its series and histograms), and every fact
//! is gathered in one pass over the runs, so comparing large groups takes time in proportion
//! to their runs and memory in proportion to their figures.

use super::Metric;
use super::confounders::{Facts, add_run_facts, identity_of, repeat_settings, workload_of};
use spindle_model::RunRecord;
use spindle_model::db::Counts;
use spindle_model::over_time::LevelShift;
use std::collections::{BTreeMap, BTreeSet};

/// A side's runs, added one by one (`add`) in the order the comparison lists them.
#[derive(Clone, Debug)]
pub struct SideRuns {
    /// Label keys that picked the sides: what is compared, not a fact the sides differ in.
    selected_by: Vec<String>,
    ids: Vec<i64>,
    /// Per metric, in `Metric::ALL`'s order: each run's figure (0 where it lacks it), and
    /// whether every run has it.
    figures: [(Vec<f64>, bool); Metric::ALL.len()],
    /// The earliest and the latest start time (RFC 3339 UTC, which compares as text).
    span: Option<(String, String)>,
    /// What the first run counts.
    counts: Option<Counts>,
    /// The settings that make runs repeats of one workload (durations aside): each one's
    /// values, and how many runs have it.
    workload: BTreeMap<String, (BTreeSet<String>, usize)>,
    /// The facts A and B may differ in, each with the values the runs have.
    facts: Facts,
    /// How many runs carry each label in `facts`.
    labelled: BTreeMap<String, usize>,
    /// The runs' workloads with their hosts (`identity_of`), each once.
    identities: BTreeSet<String>,
    /// The runs whose rate changed level for good, with their ids.
    shifts: Vec<(i64, LevelShift)>,
}

impl SideRuns {
    pub fn new(selected_by: &[String]) -> SideRuns {
        SideRuns {
            selected_by: selected_by.to_vec(),
            ids: Vec::new(),
            figures: std::array::from_fn(|_| (Vec::new(), true)),
            span: None,
            counts: None,
            workload: BTreeMap::new(),
            facts: Facts::new(),
            labelled: BTreeMap::new(),
            identities: BTreeSet::new(),
            shifts: Vec::new(),
        }
    }

    /// A side of `runs`, in their order.
    pub fn of(runs: &[(i64, &RunRecord)], selected_by: &[String]) -> SideRuns {
        let mut side = SideRuns::new(selected_by);
        for (id, r) in runs {
            side.add(*id, r);
        }
        side
    }

    /// Takes what the comparison needs of run `id`; the record itself is not kept.
    pub fn add(&mut self, id: i64, r: &RunRecord) {
        self.ids.push(id);
        for (m, (values, all)) in Metric::ALL.iter().zip(&mut self.figures) {
            values.push(m.of(r));
            *all &= m.present_in(r);
        }
        let at = &r.started_at;
        self.span = Some(match self.span.take() {
            None => (at.clone(), at.clone()),
            Some((first, last)) => (first.min(at.clone()), last.max(at.clone())),
        });
        self.counts.get_or_insert(r.counts);
        let settings = workload_of(r);
        let repeat = repeat_settings(&settings);
        for (key, value) in &repeat {
            let (values, runs) = self.workload.entry(key.clone()).or_default();
            values.insert(value.clone());
            *runs += 1;
        }
        self.identities.insert(identity_of(&r.environment.hostname, &repeat));
        add_run_facts(r, &settings, &self.selected_by, &mut |area, key, value| {
            self.facts.entry((area, key)).or_default().insert(value);
        });
        for key in r.labels.keys().filter(|k| !self.selected_by.contains(k)) {
            *self.labelled.entry(key.clone()).or_default() += 1;
        }
        if let Some(shift) = &r.level_shift {
            self.shifts.push((id, *shift));
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn ids(&self) -> &[i64] {
        &self.ids
    }

    /// Each run's figure of `metric` (0 where a run lacks it).
    pub fn figures(&self, metric: Metric) -> &[f64] {
        &self.figures[metric.index()].0
    }

    /// Whether every run has `metric`.
    pub fn all_have(&self, metric: Metric) -> bool {
        self.figures[metric.index()].1
    }

    /// The metric's figure of each run on the log scale, where a ratio becomes a difference and
    /// every interval of a ratio stays above -100%. `None` when a run's figure is not positive
    /// (a run that measured nothing has no ratio to anything).
    pub fn log_figures(&self, metric: Metric) -> Option<Vec<f64>> {
        self.figures(metric).iter().map(|&x| (x > 0.0 && x.is_finite()).then(|| x.ln())).collect()
    }

    /// The earliest and the latest start time, when there are runs.
    pub fn span(&self) -> Option<(&str, &str)> {
        self.span.as_ref().map(|(first, last)| (first.as_str(), last.as_str()))
    }

    pub fn counts(&self) -> Option<Counts> {
        self.counts
    }

    /// Workload settings whose value differs among the runs, `-` standing for a setting a run
    /// lacks (empty when they are repeats of one workload).
    pub fn differing_keys(&self) -> Vec<String> {
        let n = self.len();
        self.workload
            .iter()
            .filter(|(_, (values, runs))| values.len() + usize::from(*runs < n && !values.contains("-")) > 1)
            .map(|(key, _)| key.clone())
            .collect()
    }

    /// The facts A and B may differ in, a label only some runs carry being absent (`-`) on
    /// the others.
    pub fn facts(&self) -> Facts {
        let mut facts = self.facts.clone();
        for (key, runs) in &self.labelled {
            if *runs < self.len() {
                facts.entry(("label", key.clone())).or_default().insert("-".into());
            }
        }
        facts
    }

    pub fn identities(&self) -> &BTreeSet<String> {
        &self.identities
    }

    /// The runs whose rate changed level for good, with their ids, in the side's order.
    pub fn shifts(&self) -> &[(i64, LevelShift)] {
        &self.shifts
    }
}
