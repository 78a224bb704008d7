//! What a directory's check group keeps (`spindle-check/1`, docs/check.md): the guidance its
//! figures were held against, the evidence, the findings and what moved since the place's
//! earlier checks; and what a reader takes back of it. Kept as the JSON of its fields, as
//! before it had a type, so stores need no migration.

use crate::findings::{DirEvidence, Guidance};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A check summary as the check keeps it: `F` a finding and `S` what moved since, as the
/// check has them.
#[derive(Serialize)]
pub struct CheckSummary<'a, F, S> {
    pub schema: &'a str,
    pub budget: &'a str,
    pub guidance: Guidance,
    pub evidence: &'a DirEvidence,
    pub findings: &'a [F],
    pub since: &'a S,
}

/// What a reader takes back of a kept check summary, with `F` the findings as the reader
/// wants them. Each part is read on its own, as it was before the summary had a type, so a
/// part an older spindle wrote otherwise leaves the others readable.
pub struct KeptCheck<F> {
    pub guidance: Option<Guidance>,
    pub evidence: Option<DirEvidence>,
    pub findings: Vec<F>,
}

impl<F: DeserializeOwned> KeptCheck<F> {
    pub fn of(summary: &serde_json::Value) -> KeptCheck<F> {
        let (guidance, evidence) = guidance_and_evidence(summary);
        KeptCheck {
            guidance,
            evidence,
            findings: serde_json::from_value(part(summary, "findings")).unwrap_or_default(),
        }
    }
}

/// The parts every reader takes alike. Apart from the generic [`KeptCheck::of`], so the
/// evidence's deserializer is compiled once, here, not again in each crate that reads a check.
fn guidance_and_evidence(summary: &serde_json::Value) -> (Option<Guidance>, Option<DirEvidence>) {
    (serde_json::from_value(part(summary, "guidance")).ok(), serde_json::from_value(part(summary, "evidence")).ok())
}

fn part(summary: &serde_json::Value, key: &str) -> serde_json::Value {
    summary.get(key).cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;

    #[test]
    fn a_kept_summary_reads_back_part_by_part() {
        let evidence = DirEvidence { dir: "/data".into(), ..DirEvidence::default() };
        let kept = serde_json::to_value(CheckSummary {
            schema: "spindle-check/1",
            budget: "quick",
            guidance: Guidance::SqlServer,
            evidence: &evidence,
            findings: &["a finding"],
            since: &None::<u8>,
        })
        .unwrap();
        let keys: Vec<&str> = kept.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["budget", "evidence", "findings", "guidance", "schema", "since"]);
        let read = KeptCheck::<String>::of(&kept);
        assert_eq!(
            (read.guidance, read.evidence, read.findings),
            (Some(Guidance::SqlServer), Some(evidence), vec!["a finding".to_string()])
        );
        // Evidence an older spindle wrote otherwise leaves the findings and guidance readable.
        let mut older = kept.clone();
        older["evidence"] = serde_json::json!({"dir": 7});
        let read = KeptCheck::<IgnoredAny>::of(&older);
        assert_eq!((read.guidance, read.evidence.is_none(), read.findings.len()), (Some(Guidance::SqlServer), true, 1));
    }
}
