//! The published schema (docs/run-record.schema.json) describes exactly what `render_json`
//! writes: a realistic record validates, and records missing required fields or carrying
//! unknown ones do not.

use crate::render_json;
use spindle_model::fixtures::record;

fn validator() -> jsonschema::Validator {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../../docs/run-record.schema.json")).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn errors(v: &jsonschema::Validator, doc: &serde_json::Value) -> Vec<String> {
    v.iter_errors(doc).map(|e| format!("{e} at {}", e.instance_path)).collect()
}

#[test]
fn rendered_json_validates() {
    let doc: serde_json::Value = serde_json::from_slice(&render_json(&record())).unwrap();
    let v = validator();
    assert_eq!(errors(&v, &doc), Vec::<String>::new());
    let mut shifted = record();
    shifted.level_shift =
        Some(spindle_model::over_time::LevelShift { at_seconds: 10.0, before: 6000.0, after: 1500.0 });
    let doc: serde_json::Value = serde_json::from_slice(&render_json(&shifted)).unwrap();
    assert_eq!(errors(&v, &doc), Vec::<String>::new());
}

#[test]
fn the_promised_fields_are_required_and_objects_are_closed() {
    let v = validator();
    let good: serde_json::Value = serde_json::from_slice(&render_json(&record())).unwrap();
    for pointer in ["/schema", "/status", "/summary/iops", "/summary/latency_ns/p99_9", "/environment", "/timeseries"] {
        let mut doc = good.clone();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        doc.pointer_mut(if parent.is_empty() { "" } else { parent }).unwrap().as_object_mut().unwrap().remove(key);
        assert!(!errors(&v, &doc).is_empty(), "a record without {pointer} must not validate");
    }
    let mut doc = good.clone();
    doc["summary"]["latency_ns"]["p42"] = 1.into();
    assert!(!errors(&v, &doc).is_empty(), "unknown fields are refused");
    let mut doc = good;
    doc["status"] = "maybe".into();
    assert!(!errors(&v, &doc).is_empty(), "status is one of three words");
}
