//! What a directory's check group keeps (`spindle-check/1`, docs/check.md): the guidance its
//! figures were held against, the evidence, the findings and what moved since the place's
//! earlier checks; and what a reader takes back of it. Kept as the JSON of its fields, as
//! before it had a type, so stores need no migration.

use crate::findings::{DirEvidence, Guidance};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

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
    /// Kept only when the check did not measure every step: its findings cover those it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StoppedEarly>,
}

/// A check that ended before its last step: why, and how many of its steps it measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoppedEarly {
    pub why: StopReason,
    /// Steps measured to their end.
    pub steps: usize,
    /// Steps the check had planned by then (a close-call knee adds two).
    pub of: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// Ctrl-C (or SIGTERM).
    Interrupted,
    /// The directory's filesystem filled up.
    DiskFull,
    /// A step could not go on (a statement failed, a server went away).
    Failed,
}

impl std::fmt::Display for StoppedEarly {
    /// `stopped early (interrupted): 3 of 13 steps measured`, as every view says it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = match self.why {
            StopReason::Interrupted => "interrupted",
            StopReason::DiskFull => "the disk filled up",
            StopReason::Failed => "a step failed",
        };
        write!(f, "stopped early ({why}): {} of {} steps measured", self.steps, self.of)
    }
}

/// What a reader takes back of a kept check summary, with `F` the findings as the reader
/// wants them. Each part is read on its own, as it was before the summary had a type, so a
/// part an older spindle wrote otherwise leaves the others readable.
pub struct KeptCheck<F> {
    pub guidance: Option<Guidance>,
    pub evidence: Option<DirEvidence>,
    pub findings: Vec<F>,
    /// `None` for a complete check, and for one an older spindle kept.
    pub stopped: Option<StoppedEarly>,
}

impl<F: DeserializeOwned> KeptCheck<F> {
    pub fn of(summary: &serde_json::Value) -> KeptCheck<F> {
        let (guidance, evidence) = guidance_and_evidence(summary);
        KeptCheck {
            guidance,
            evidence,
            findings: serde_json::from_value(part(summary, "findings")).unwrap_or_default(),
            stopped: stopped(summary),
        }
    }
}

/// The parts every reader takes alike. Apart from the generic [`KeptCheck::of`], so the
/// evidence's deserializer is compiled once, here, not again in each crate that reads a check.
fn guidance_and_evidence(summary: &serde_json::Value) -> (Option<Guidance>, Option<DirEvidence>) {
    (serde_json::from_value(part(summary, "guidance")).ok(), serde_json::from_value(part(summary, "evidence")).ok())
}

/// Not generic, for the reason `guidance_and_evidence` is not.
fn stopped(summary: &serde_json::Value) -> Option<StoppedEarly> {
    serde_json::from_value(part(summary, "stopped")).ok().flatten()
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
            stopped: None,
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

    #[test]
    fn a_check_that_stopped_early_keeps_why_and_how_far() {
        let evidence = DirEvidence::default();
        let stopped = StoppedEarly { why: StopReason::DiskFull, steps: 9, of: 14 };
        let kept = serde_json::to_value(CheckSummary {
            schema: "spindle-check/1",
            budget: "quick",
            guidance: Guidance::Generic,
            evidence: &evidence,
            findings: &[0u8; 0],
            since: &None::<u8>,
            stopped: Some(stopped),
        })
        .unwrap();
        assert_eq!(kept["stopped"], serde_json::json!({"why": "disk-full", "steps": 9, "of": 14}));
        assert_eq!(KeptCheck::<IgnoredAny>::of(&kept).stopped, Some(stopped));
        assert_eq!(stopped.to_string(), "stopped early (the disk filled up): 9 of 14 steps measured");
        // A summary kept before checks said so reads as complete.
        let mut older = kept;
        older.as_object_mut().unwrap().remove("stopped");
        assert_eq!(KeptCheck::<IgnoredAny>::of(&older).stopped, None);
    }
}
