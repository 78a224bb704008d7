//! Ways two sets of runs differ besides what the user compared: workload settings, the
//! environment, other labels. Seed 000 compared layouts on one server with one workload; a
//! margin between runs that also differ in depth or host says little about the layout.

use serde::Serialize;
use spindle_model::RunRecord;
use std::collections::{BTreeMap, BTreeSet};

/// Spec entries that do not change what is measured: file handling, and a figure measured
/// during the run (a Hammer run's ramp-up) that the spec echoes.
const IGNORED_SPEC_KEYS: [&str; 4] = ["keep_file", "force", "allow_destroy", "ramp_up_ns"];

/// Besides those, entries in which repeats of one workload may differ: how long they ran.
const TIMING_SPEC_KEYS: [&str; 2] = ["duration_ns", "warmup_ns"];

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Confounder {
    /// `workload`, `environment` or `label`.
    pub area: &'static str,
    /// The setting, e.g. `targets[0].workload.depth`, `hostname`, `cache`.
    pub key: String,
    /// The values seen on each side ("-" where absent).
    pub a: Vec<String>,
    pub b: Vec<String>,
}

/// Every fact whose values differ between A and B.
pub fn confounders(a: &[&RunRecord], b: &[&RunRecord], selected_by: &[String]) -> Vec<Confounder> {
    let (fa, fb) = (facts_of(a, selected_by), facts_of(b, selected_by));
    let keys: BTreeSet<&(&'static str, String)> = fa.keys().chain(fb.keys()).collect();
    let absent = BTreeSet::from(["-".to_string()]);
    keys.into_iter()
        .filter_map(|k| {
            let va = fa.get(k).unwrap_or(&absent);
            let vb = fb.get(k).unwrap_or(&absent);
            (va != vb).then(|| Confounder {
                area: k.0,
                key: k.1.clone(),
                a: va.iter().cloned().collect(),
                b: vb.iter().cloned().collect(),
            })
        })
        .collect()
}

type Facts = BTreeMap<(&'static str, String), BTreeSet<String>>;

fn facts_of(runs: &[&RunRecord], selected_by: &[String]) -> Facts {
    let mut facts = Facts::new();
    for r in runs {
        let mut add = |area: &'static str, key: String, value: String| {
            facts.entry((area, key)).or_default().insert(value);
        };
        for (k, v) in workload_of(r, &IGNORED_SPEC_KEYS) {
            add("workload", k, v);
        }
        let e = &r.environment;
        add("environment", "hostname".into(), e.hostname.clone());
        add("environment", "kernel".into(), e.kernel.clone());
        add("environment", "cpu".into(), format!("{} x{}", e.cpu_model, e.logical_cpus));
        add("environment", "memory_bytes".into(), e.memory_bytes.to_string());
        for (i, d) in e.devices.iter().enumerate() {
            let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            add("environment", format!("devices[{i}].device"), show(&d.device));
            add("environment", format!("devices[{i}].model"), show(&d.model));
            add("environment", format!("devices[{i}].filesystem"), show(&d.filesystem));
            add("environment", format!("devices[{i}].mount_options"), show(&d.mount_options));
            add("environment", format!("devices[{i}].scheduler"), show(&d.scheduler));
            add("environment", format!("devices[{i}].write_cache"), show(&d.write_cache));
            let kb = |v: Option<u64>| v.map_or_else(|| "-".into(), |v| format!("{v} KiB"));
            add("environment", format!("devices[{i}].read_ahead_kb"), kb(d.read_ahead_kb));
            add("environment", format!("devices[{i}].max_sectors_kb"), kb(d.max_sectors_kb));
        }
        for (k, v) in &r.labels {
            if !selected_by.contains(k) {
                add("label", k.clone(), v.clone());
            }
        }
    }
    // A label only some runs of a side carry is absent on the others.
    let labelled: Vec<String> = facts.keys().filter(|k| k.0 == "label").map(|k| k.1.clone()).collect();
    for key in labelled {
        if runs.iter().any(|r| !r.labels.contains_key(&key)) {
            facts.entry(("label", key)).or_default().insert("-".into());
        }
    }
    facts
}

/// Every setting in which two resolved specs differ, as `(key, A's value, B's value)` (`-`
/// where one lacks it): what `spindle ab` lists before its first run.
pub fn spec_differences(a: &serde_json::Value, b: &serde_json::Value) -> Vec<(String, String, String)> {
    let (mut fa, mut fb) = (Vec::new(), Vec::new());
    flatten("", a, &mut fa);
    flatten("", b, &mut fb);
    let (ma, mb): (BTreeMap<_, _>, BTreeMap<_, _>) = (fa.into_iter().collect(), fb.into_iter().collect());
    let keys: BTreeSet<&String> = ma.keys().chain(mb.keys()).collect();
    let absent = "-".to_string();
    keys.into_iter()
        .filter(|k| !IGNORED_SPEC_KEYS.contains(&k.as_str()))
        .filter_map(|k| {
            let (va, vb) = (ma.get(k).unwrap_or(&absent), mb.get(k).unwrap_or(&absent));
            (va != vb).then(|| (k.clone(), va.clone(), vb.clone()))
        })
        .collect()
}

/// The run's kind and spec settings as `(key, value)` texts, leaving out `ignored` keys.
fn workload_of(r: &RunRecord, ignored: &[&str]) -> Vec<(String, String)> {
    let mut spec = Vec::new();
    flatten("", &r.details.spec_json(), &mut spec);
    spec.retain(|(k, _)| !ignored.contains(&k.as_str()));
    spec.insert(0, ("kind".into(), r.kind().name().to_string()));
    spec
}

fn repeat_ignored() -> Vec<&'static str> {
    IGNORED_SPEC_KEYS.iter().chain(&TIMING_SPEC_KEYS).copied().collect()
}

/// The workload settings of `runs` that make runs repeats of one another (kind and spec,
/// durations aside), each with every value seen; `-` where a run lacks the key.
pub(crate) fn workload_facts(runs: &[&RunRecord]) -> BTreeMap<String, BTreeSet<String>> {
    let ignored = repeat_ignored();
    let per_run: Vec<BTreeMap<String, String>> =
        runs.iter().map(|r| workload_of(r, &ignored).into_iter().collect()).collect();
    let mut facts: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for run in &per_run {
        for key in per_run.iter().flat_map(|r| r.keys()) {
            facts.entry(key.clone()).or_default().insert(run.get(key).cloned().unwrap_or_else(|| "-".into()));
        }
    }
    facts
}

/// Equal for two runs exactly when they ran one workload (durations aside) on one host: how
/// stored groups are matched to estimate a host's drift.
pub fn workload_identity(r: &RunRecord) -> String {
    let mut text = r.environment.hostname.clone();
    for (k, v) in workload_of(r, &repeat_ignored()) {
        text.push('\n');
        text.push_str(&k);
        text.push('=');
        text.push_str(&v);
    }
    text
}

/// JSON leaves as `a.b[0].c` -> text.
fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&key, v, out);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), v, out);
            }
        }
        serde_json::Value::String(s) => out.push((prefix.to_string(), s.clone())),
        other => out.push((prefix.to_string(), other.to_string())),
    }
}
