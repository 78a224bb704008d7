//! Ways two sets of runs differ besides what the user compared: workload settings, the
//! environment, other labels. Seed 000 compared layouts on one server with one workload; a
//! margin between runs that also differ in depth or host says little about the layout.

use serde::Serialize;
use spindle_model::RunRecord;
use std::collections::{BTreeMap, BTreeSet};

/// Spec settings that do not change what is measured.
const IGNORED_SPEC_KEYS: [&str; 3] = ["keep_file", "force", "allow_destroy"];

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
        add("workload", "kind".into(), r.kind.clone());
        let mut spec = Vec::new();
        flatten("", &r.spec, &mut spec);
        for (k, v) in spec {
            if !IGNORED_SPEC_KEYS.contains(&k.as_str()) {
                add("workload", k, v);
            }
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
