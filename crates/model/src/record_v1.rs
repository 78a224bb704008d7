//! Reading records of schema v1 (`spindle.run-record/v1`), in stores, in kept
//! `spindle-unsaved-*.json` files and in JSON given to `spindle import`.
//!
//! v1 kept the kind's data in loose fields beside each other: `kind`, `spec` (untyped JSON),
//! and the optional `log_test`, `large_op`, `origin` and `verify`. v2 gathers them into one
//! `details` object tagged by its `kind` (an imported run, `origin` set, is `imported`). The
//! rest of the record is the same in both. The conversion moves those fields, as JSON, into
//! the v2 shape; the typed spec structs are named as v1's spec keys were, so deserializing
//! the result as v2 is what checks v1's spec against its kind's type.

use crate::record::SCHEMA_ID;
use serde_json::{Map, Value, json};

pub(crate) const SCHEMA_V1: &str = "spindle.run-record/v1";

/// `json` as a record of the current schema: unchanged when it is one, converted when it is
/// of v1; an error naming the schema for anything else.
pub(crate) fn upgrade(mut json: Value) -> Result<Value, String> {
    let record = json.as_object_mut().ok_or("a run record is a JSON object")?;
    match record.get("schema").and_then(Value::as_str) {
        Some(SCHEMA_ID) => return Ok(json),
        Some(SCHEMA_V1) => {}
        Some(other) => {
            return Err(format!("record schema '{other}' is unknown (this spindle reads {SCHEMA_V1} and {SCHEMA_ID})"));
        }
        None => return Err("the record has no schema".into()),
    }
    let details = details_of_v1(record)?;
    record.insert("details".into(), details);
    record.insert("schema".into(), SCHEMA_ID.into());
    Ok(json)
}

/// Takes v1's per-kind fields out of `record` and returns them as v2's `details`.
fn details_of_v1(record: &mut Map<String, Value>) -> Result<Value, String> {
    let mut take = |key: &str| record.remove(key).filter(|v| !v.is_null());
    let kind = take("kind").ok_or("a v1 record without its kind")?;
    let spec = take("spec").unwrap_or(Value::Null);
    let (origin, verify, log_test, large_op) = (take("origin"), take("verify"), take("log_test"), take("large_op"));
    let missing = |what: &str| format!("a v1 {kind} record without its {what}");
    let details = match (kind.as_str(), origin) {
        (Some("io"), Some(origin)) => json!({ "kind": "imported", "origin": origin, "spec": spec }),
        (Some("io"), None) => match verify {
            Some(verify) => json!({ "kind": "io", "spec": spec, "verify": verify }),
            None => json!({ "kind": "io", "spec": spec }),
        },
        (Some(kind @ ("hammer" | "hammer-load")), _) => json!({ "kind": kind, "spec": spec }),
        (Some("logtest"), _) => {
            json!({ "kind": "logtest", "spec": spec, "figures": log_test.ok_or_else(|| missing("log_test"))? })
        }
        (Some("largeops"), _) => {
            json!({ "kind": "largeops", "spec": spec, "figures": large_op.ok_or_else(|| missing("large_op"))? })
        }
        _ => return Err(format!("a v1 record of unknown kind {kind}")),
    };
    Ok(details)
}

#[cfg(test)]
mod tests {
    use crate::db::LogTestFigures;
    use crate::db_spec::LogTestSpec;
    use crate::{ImportedSpec, KindData, Origin, RunKind, RunRecord};
    use serde_json::{Value, json};

    /// `record` as spindle wrote it under v1: its details back in loose fields.
    fn as_v1(record: &RunRecord) -> Value {
        let mut v = serde_json::to_value(record).unwrap();
        let o = v.as_object_mut().unwrap();
        let details = o.remove("details").unwrap();
        o.insert("schema".into(), super::SCHEMA_V1.into());
        o.insert("kind".into(), record.kind().name().into());
        o.insert("spec".into(), details["spec"].clone());
        for (v1, v2) in [("origin", "origin"), ("verify", "verify")] {
            if let Some(x) = details.get(v2) {
                o.insert(v1.into(), x.clone());
            }
        }
        let figures = details.get("figures").cloned();
        match record.kind() {
            RunKind::LogTest => o.insert("log_test".into(), figures.unwrap()),
            RunKind::LargeOps => o.insert("large_op".into(), figures.unwrap()),
            _ => None,
        };
        v
    }

    fn logtest_run() -> RunRecord {
        let mut r = crate::fixtures::io_run(&[10.0], 1_000, &[]);
        r.details = KindData::LogTest {
            spec: LogTestSpec {
                db: "sqlite:///t/l.db".into(),
                engine: "sqlite".into(),
                server_version: "3.50".into(),
                settings: [("journal_mode".to_string(), "wal".to_string())].into(),
                rows: 200,
                row_bytes: 100,
                transaction_size: 10,
            },
            figures: LogTestFigures { transaction_size: 10, rows: 200, ..LogTestFigures::default() },
        };
        r
    }

    fn imported_run() -> RunRecord {
        let mut r = crate::fixtures::io_run(&[10.0], 1_000, &[]);
        let origin = Origin { tool: "sqlio".into(), file: "s.txt".into(), ..Origin::default() };
        r.details = KindData::Imported { origin, spec: ImportedSpec { block_size: Some(8192), ..Default::default() } };
        r
    }

    #[test]
    fn v1_records_of_each_shape_read_as_they_were() {
        let mut verified = crate::fixtures::record();
        if let KindData::Io { verify, .. } = &mut verified.details {
            *verify = Some(crate::verify::VerifySummary { id: "ab".into(), sectors_checked: 9, ..Default::default() });
        }
        for r in [crate::fixtures::record(), verified, logtest_run(), imported_run()] {
            let v1 = as_v1(&r);
            let read: RunRecord = serde_json::from_value(v1.clone()).unwrap();
            assert_eq!(read, r, "{v1}");
            assert_eq!(read.schema, crate::record::SCHEMA_ID);
        }
        assert_eq!(imported_run().kind(), RunKind::Io, "an imported run is an I/O run");
    }

    #[test]
    fn current_records_round_trip_and_name_their_kind_in_details() {
        let r = logtest_run();
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["details"]["kind"], "logtest");
        assert_eq!(json["details"]["figures"]["transaction_size"], 10);
        assert!(json.get("kind").is_none() && json.get("log_test").is_none(), "{json}");
        assert_eq!(serde_json::from_value::<RunRecord>(json).unwrap(), r);
    }

    #[test]
    fn records_that_cannot_be_read_say_why() {
        let why = |v: Value| serde_json::from_value::<RunRecord>(v).unwrap_err().to_string();
        let mut v1 = as_v1(&logtest_run());
        v1.as_object_mut().unwrap().remove("log_test");
        assert!(why(v1).contains("without its log_test"));
        let mut newer = serde_json::to_value(crate::fixtures::record()).unwrap();
        newer["schema"] = "spindle.run-record/v9".into();
        assert!(why(newer).contains("'spindle.run-record/v9' is unknown"));
        let mut odd = as_v1(&crate::fixtures::record());
        odd["kind"] = "tape".into();
        assert!(why(odd).contains("unknown kind \"tape\""));
        let mut untyped = as_v1(&crate::fixtures::record());
        untyped["spec"] = json!({ "engine": "uring" });
        assert!(why(untyped).contains("missing field"), "a v1 io spec must be a whole job");
        assert!(why(json!([1])).contains("JSON object"));
    }
}
