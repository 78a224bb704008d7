//! What a sweep and an A/B experiment say once their group ends, as the types their summaries
//! are saved and read as. They live here, not beside the log test's in spindle-model, because
//! they carry this crate's curve and comparison. Each is stored as the JSON of its fields, as
//! summaries were before they were typed, so stores need no migration; a field an older
//! spindle did not write reads as absent.

use crate::compare::DEFAULT_THRESHOLD_PCT;
use crate::curve::{CurvePoint, KneeSpan, Shape, close_call, shape};
use serde::{Deserialize, Serialize};

/// A sweep's conclusion (`--sweep`, Hammer's session counts): the parameter, the curve over
/// its values, the knee or where it may lie, and whether the curve was too noisy to name one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepSummary {
    #[serde(default)]
    pub param: String,
    #[serde(default)]
    pub curve: Vec<CurvePoint>,
    /// The swept value at the knee.
    #[serde(default)]
    pub knee: Option<String>,
    /// Where a knee too close to call may lie, by the swept values.
    #[serde(default)]
    pub knee_range: Option<KneeBetween>,
    #[serde(default)]
    pub noisy: bool,
}

/// A [`KneeSpan`] as a summary owns it, so a stored one can be read back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KneeBetween {
    pub from: String,
    /// `None`: the deepest point may still be climbing.
    pub to: Option<String>,
}

impl From<KneeSpan<'_>> for KneeBetween {
    fn from(span: KneeSpan<'_>) -> Self {
        KneeBetween { from: span.from.into(), to: span.to.map(Into::into) }
    }
}

impl SweepSummary {
    /// What the curve of `param`'s values says, as the sweep's text and `--json` say it.
    pub fn of(param: &str, curve: &[CurvePoint]) -> SweepSummary {
        let shape = shape(curve);
        SweepSummary {
            param: param.into(),
            curve: curve.to_vec(),
            knee: shape.knee().map(|i| curve[i].value.clone()),
            knee_range: close_call(curve).map(|r| r.span(curve).into()),
            noisy: shape == Shape::Noisy,
        }
    }
}

/// An A/B experiment's conclusion (`spindle ab`, `spindle placement`): what A and B are
/// called, the order the rounds ran in (`A B B A`), and their comparison. The experiment saves
/// the whole [`Comparison`](crate::compare::Comparison); a reader takes back what it judged
/// with ([`JudgedWith`]), since it draws the comparison again from the runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AbSummary<C = JudgedWith> {
    #[serde(default)]
    pub a: String,
    #[serde(default)]
    pub b: String,
    #[serde(default)]
    pub order: String,
    #[serde(default)]
    pub comparison: C,
}

/// What a stored comparison was judged with.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgedWith {
    /// The verdict's threshold, percent ([`DEFAULT_THRESHOLD_PCT`] where a summary lacks it).
    #[serde(default = "default_threshold_pct")]
    pub threshold_pct: f64,
}

impl Default for JudgedWith {
    fn default() -> Self {
        JudgedWith { threshold_pct: DEFAULT_THRESHOLD_PCT }
    }
}

fn default_threshold_pct() -> f64 {
    DEFAULT_THRESHOLD_PCT
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{ROUND_LABEL, SIDE_LABEL, compare_rounds};
    use serde_json::json;
    use spindle_model::RunRecord;
    use spindle_model::fixtures::io_run;

    fn point(value: &str, mb_per_sec: f64, latency_mean_ns: f64) -> CurvePoint {
        CurvePoint { value: value.into(), runs: 1, iops: 0.0, mb_per_sec, latency_mean_ns, latency_p99_ns: 0.0 }
    }

    /// The text the store saves for a summary: the writer hands it over as a JSON value.
    fn stored(summary: impl Serialize) -> String {
        serde_json::to_value(summary).unwrap().to_string()
    }

    #[test]
    fn a_sweeps_summary_is_the_json_the_store_held_before_it_was_typed() {
        // A knee at 8, and one too close to call between 4 and 8.
        let knee = [point("1", 100.0, 1e5), point("4", 300.0, 2e5), point("8", 330.0, 3e5), point("16", 331.0, 6e5)];
        let climbing = [point("1", 100.0, 1e5), point("2", 200.0, 2e5)];
        for curve in [&knee[..], &climbing[..], &[]] {
            let shape = shape(curve);
            let before = json!({
                "param": "depth",
                "curve": curve,
                "knee": shape.knee().map(|i| &curve[i].value),
                "knee_range": close_call(curve).map(|r| r.span(curve)),
                "noisy": shape == Shape::Noisy,
            });
            let typed = SweepSummary::of("depth", curve);
            assert_eq!(stored(&typed), before.to_string(), "written as before");
            assert_eq!(serde_json::from_value::<SweepSummary>(before).unwrap(), typed, "read back whole");
        }
        assert_eq!(SweepSummary::of("depth", &knee).knee.as_deref(), Some("8"));
    }

    #[test]
    fn an_older_sweeps_summary_reads_as_it_was_stored() {
        // Before close calls (c688362) a summary had no `knee_range`.
        let before_ranges = r#"{"curve":[{"iops":10.0,"latency_mean_ns":5.0,"latency_p99_ns":9.0,"mb_per_sec":1.0,"runs":2,"value":"8"}],"knee":"8","noisy":false,"param":"depth"}"#;
        let typed: SweepSummary = serde_json::from_str(before_ranges).unwrap();
        assert_eq!((typed.param.as_str(), typed.knee.as_deref(), typed.knee_range), ("depth", Some("8"), None));
        assert_eq!(typed.curve[0].runs, 2);
        let range = r#"{"curve":[],"knee":null,"knee_range":{"from":"32","to":null},"noisy":true,"param":"depth"}"#;
        let typed: SweepSummary = serde_json::from_str(range).unwrap();
        assert_eq!(typed.knee_range, Some(KneeBetween { from: "32".into(), to: None }));
        assert_eq!(stored(&typed), range, "byte for byte");
    }

    #[test]
    fn an_ab_summary_is_written_as_before_and_read_for_its_threshold() {
        let runs: Vec<RunRecord> = [("a", 100.0), ("b", 150.0), ("b", 160.0), ("a", 110.0)]
            .iter()
            .enumerate()
            .map(|(i, (side, rate))| {
                io_run(&[*rate], 1_000, &[(SIDE_LABEL, side), (ROUND_LABEL, &(1 + i / 2).to_string())])
            })
            .collect();
        let ids: Vec<(i64, &RunRecord)> = runs.iter().enumerate().map(|(i, r)| (i as i64 + 1, r)).collect();
        let comparison = compare_rounds(&ids, 7.5);
        let before = json!({"a": "a.toml", "b": "b.toml", "order": "A B B A", "comparison": comparison});
        let typed =
            AbSummary { a: "a.toml".into(), b: "b.toml".into(), order: "A B B A".into(), comparison: &comparison };
        assert_eq!(stored(&typed), before.to_string(), "written as before");
        let read: AbSummary = serde_json::from_value(before).unwrap();
        assert_eq!((read.a.as_str(), read.order.as_str(), read.comparison.threshold_pct), ("a.toml", "A B B A", 7.5));
    }

    #[test]
    fn an_ab_summary_without_a_threshold_was_judged_with_the_default() {
        let old: AbSummary = serde_json::from_str(r#"{"a":"x","b":"y","comparison":{"headline":"h"}}"#).unwrap();
        assert_eq!(
            (old.b.as_str(), old.order.as_str(), old.comparison.threshold_pct),
            ("y", "", DEFAULT_THRESHOLD_PCT)
        );
        let bare: AbSummary = serde_json::from_str("{}").unwrap();
        assert_eq!(bare.comparison.threshold_pct, DEFAULT_THRESHOLD_PCT);
    }
}
