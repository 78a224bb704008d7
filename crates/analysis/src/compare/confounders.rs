//! Ways two sets of runs differ besides what the user compared: workload settings, the
//! environment, other labels. Seed 000 compared layouts on one server with one workload; a
//! margin between runs that also differ in depth or host says little about the layout.

use super::SideRuns;
use serde::Serialize;
use spindle_model::RunRecord;
use spindle_model::record::{DeviceInfo, shared_disks};
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
    /// What the difference does to the figures, in a sentence, where spindle knows (a loop
    /// device's direct I/O, a shared disk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meaning: Option<&'static str>,
}

/// Every fact whose values differ between A and B.
pub fn confounders(a: &SideRuns, b: &SideRuns) -> Vec<Confounder> {
    differing(&a.facts(), &b.facts())
}

/// How the devices under two sides' targets differ (the disks, the layers between: loop
/// devices, device mapper, md, and which targets share a disk): what `spindle ab` lists with
/// the workloads' differences before its first run.
pub fn device_differences(a: &[DeviceInfo], b: &[DeviceInfo]) -> Vec<Confounder> {
    let facts = |devices: &[DeviceInfo]| {
        let mut facts = Facts::new();
        device_facts(devices, &mut |area, key, value| {
            facts.entry((area, key)).or_default().insert(value);
        });
        facts
    };
    differing(&facts(a), &facts(b))
}

fn differing(fa: &Facts, fb: &Facts) -> Vec<Confounder> {
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
                meaning: meaning_of(&k.1),
            })
        })
        .collect()
}

/// What a difference in the fact `key` does to what was measured.
fn meaning_of(key: &str) -> Option<&'static str> {
    let field = key.rsplit('.').next().unwrap_or(key);
    Some(match field {
        "loop_direct_io" => {
            "without direct I/O the loop device goes through its backing file's page cache: reads it holds \
             never reach the disk and writes reach it later, so that side's rates may be memory's"
        }
        "loop_backing_file" => "the loop devices are backed by different files, perhaps on different disks",
        "members" => "the device-mapper or md volumes are built on different devices",
        "device" => "the targets reach different disks",
        "shared_disks" => {
            "targets on one disk wait for each other; on separate disks they do not, so the disks' own speed \
             is not all that differs"
        }
        _ => return None,
    })
}

pub(crate) type Facts = BTreeMap<(&'static str, String), BTreeSet<String>>;

/// The facts of the devices under one run's targets.
fn device_facts(devices: &[DeviceInfo], add: &mut dyn FnMut(&'static str, String, String)) {
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let list = |v: Vec<&str>| if v.is_empty() { "-".to_string() } else { v.join(" + ") };
    for (i, d) in devices.iter().enumerate() {
        let mut fact = |name: &str, value: String| add("environment", format!("devices[{i}].{name}"), value);
        // Every disk under the target (a dm or md device may reach several).
        fact("device", list(d.physical_disks()));
        fact("model", show(&d.model));
        fact("filesystem", show(&d.filesystem));
        fact("mount_options", show(&d.mount_options));
        fact("scheduler", show(&d.scheduler));
        fact("write_cache", show(&d.write_cache));
        let kb = |v: Option<u64>| v.map_or_else(|| "-".into(), |v| format!("{v} KiB"));
        fact("read_ahead_kb", kb(d.read_ahead_kb));
        fact("max_sectors_kb", kb(d.max_sectors_kb));
        fact("loop_backing_file", show(&d.loop_backing_file));
        let dio = match d.loop_direct_io {
            Some(true) => "on (the loop reads and writes its backing file directly)",
            Some(false) => "off (the backing file's page cache stands between the loop and the disk)",
            None => "-",
        };
        fact("loop_direct_io", dio.into());
        fact("members", list(d.members.iter().map(String::as_str).collect()));
    }
    add("environment", "shared_disks".into(), sharing_text(devices));
}

/// Which targets share a disk, in words: `targets 0 and 1 on one disk (vda)`.
fn sharing_text(devices: &[DeviceInfo]) -> String {
    let shared = shared_disks(devices);
    if shared.is_empty() {
        return if devices.len() > 1 { "none: each target on a disk of its own".into() } else { "-".into() };
    }
    let said: Vec<String> = shared
        .iter()
        .map(|s| {
            let mut places: Vec<String> = s.targets.iter().map(usize::to_string).collect();
            let last = places.pop().unwrap_or_default();
            format!("targets {} and {last} on one disk ({})", places.join(", "), s.disk)
        })
        .collect();
    said.join("; ")
}

/// The facts of one run A and B may differ in: its workload `settings` (`workload_of`), its
/// environment and devices, and its labels other than those that picked the sides.
pub(crate) fn add_run_facts(
    r: &RunRecord,
    settings: &[(String, String)],
    selected_by: &[String],
    add: &mut dyn FnMut(&'static str, String, String),
) {
    for (k, v) in settings {
        add("workload", k.clone(), v.clone());
    }
    let e = &r.environment;
    add("environment", "hostname".into(), e.hostname.clone());
    add("environment", "kernel".into(), e.kernel.clone());
    add("environment", "cpu".into(), format!("{} x{}", e.cpu_model, e.logical_cpus));
    add("environment", "memory_bytes".into(), e.memory_bytes.to_string());
    device_facts(&e.devices, add);
    for (k, v) in &r.labels {
        if !selected_by.contains(k) {
            add("label", k.clone(), v.clone());
        }
    }
}

/// Every setting in which two resolved specs differ, as `(key, A's value, B's value)` (`-`
/// where one lacks it), leaving out those that do not change what is measured: what `spindle
/// ab` lists before its first run.
pub fn spec_differences(a: &serde_json::Value, b: &serde_json::Value) -> Vec<(String, String, String)> {
    let mut differences = value_differences(a, b);
    differences.retain(|(k, _, _)| !IGNORED_SPEC_KEYS.contains(&k.as_str()));
    differences
}

/// Every leaf in which two JSON values differ (`a.b[0].c`), as `setting_differences` says them.
pub fn value_differences(a: &serde_json::Value, b: &serde_json::Value) -> Vec<(String, String, String)> {
    let (mut fa, mut fb) = (Vec::new(), Vec::new());
    flatten("", a, &mut fa);
    flatten("", b, &mut fb);
    setting_differences(&fa, &fb)
}

/// Every key whose value differs between two lists of `(key, value)` settings, as `(key, A's
/// value, B's value)` in the order of the keys (`-` where one lacks it).
pub fn setting_differences(a: &[(String, String)], b: &[(String, String)]) -> Vec<(String, String, String)> {
    let (ma, mb): (BTreeMap<&String, &String>, BTreeMap<&String, &String>) =
        (a.iter().map(|(k, v)| (k, v)).collect(), b.iter().map(|(k, v)| (k, v)).collect());
    let keys: BTreeSet<&String> = ma.keys().chain(mb.keys()).copied().collect();
    let absent = "-".to_string();
    keys.into_iter()
        .filter_map(|k| {
            let (va, vb) = (ma.get(k).copied().unwrap_or(&absent), mb.get(k).copied().unwrap_or(&absent));
            (va != vb).then(|| (k.clone(), va.clone(), vb.clone()))
        })
        .collect()
}

/// The run's kind and spec settings as `(key, value)` texts, leaving out those that do not
/// change what is measured.
pub(crate) fn workload_of(r: &RunRecord) -> Vec<(String, String)> {
    let mut spec = Vec::new();
    flatten("", &r.details.spec_json(), &mut spec);
    spec.retain(|(k, _)| !IGNORED_SPEC_KEYS.contains(&k.as_str()));
    spec.insert(0, ("kind".into(), r.kind().name().to_string()));
    spec
}

/// Of a run's `workload_of` settings, those repeats of one workload share: all but how long
/// they ran.
pub(crate) fn repeat_settings(settings: &[(String, String)]) -> Vec<(String, String)> {
    settings.iter().filter(|(k, _)| !TIMING_SPEC_KEYS.contains(&k.as_str())).cloned().collect()
}

/// Of a run on `hostname` with its `repeat_settings`: equal for two runs exactly when they ran
/// one workload (durations aside) on one host; how stored groups are matched to estimate a
/// host's drift.
pub(crate) fn identity_of(hostname: &str, repeat: &[(String, String)]) -> String {
    let mut text = hostname.to_string();
    for (k, v) in repeat {
        text.push('\n');
        text.push_str(k);
        text.push('=');
        text.push_str(v);
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
