//! What a group says once it ends, typed by the experiment that saved it. A summary is stored
//! as the JSON of its variant's fields alone (untagged), as summaries were before they were
//! typed, so stores need no migration; fields an older spindle did not write read as absent.
//! A sweep's and an A/B experiment's carry analysis's curve and comparison, so their types
//! are `spindle_analysis::group_summary`'s.

use serde::{Deserialize, Serialize};

/// The log test's conclusion (`spindle logtest`: a sweep of transaction sizes): the optimum
/// and why, or the largest size, its log MB/s still rising; the rule it was judged by, and
/// whose counters it was read from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LogTestSummary {
    Optimum {
        optimum_transaction_size: u64,
        #[serde(default)]
        rule: String,
        #[serde(default)]
        why: Option<String>,
        #[serde(default)]
        from: String,
    },
    StillRising {
        still_rising_at: u64,
        #[serde(default)]
        rule: String,
        #[serde(default)]
        why: String,
        #[serde(default)]
        from: String,
    },
}

impl LogTestSummary {
    /// The optimum transaction size, when there is one.
    pub fn optimum(&self) -> Option<u64> {
        match self {
            LogTestSummary::Optimum { optimum_transaction_size, .. } => Some(*optimum_transaction_size),
            LogTestSummary::StillRising { .. } => None,
        }
    }

    /// Why the optimum is where it is, or why there is none, in the rule's words.
    pub fn why(&self) -> Option<&str> {
        match self {
            LogTestSummary::Optimum { why, .. } => why.as_deref(),
            LogTestSummary::StillRising { why, .. } => Some(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_summary_is_the_json_the_store_held_before_it_was_typed() {
        let optimum = json!({"optimum_transaction_size": 64, "rule": "r", "why": "w", "from": "sdb"});
        let typed: LogTestSummary = serde_json::from_value(optimum.clone()).unwrap();
        assert_eq!((typed.optimum(), typed.why()), (Some(64), Some("w")));
        assert_eq!(serde_json::to_value(&typed).unwrap(), optimum);
        let rising = json!({"still_rising_at": 1024, "rule": "r", "why": "still rising", "from": "sdb"});
        let typed: LogTestSummary = serde_json::from_value(rising.clone()).unwrap();
        assert_eq!((typed.optimum(), typed.why()), (None, Some("still rising")));
        assert_eq!(serde_json::to_value(&typed).unwrap(), rising);
        let no_why = json!({"optimum_transaction_size": 64, "rule": "r", "why": null, "from": "sdb"});
        assert_eq!(
            serde_json::to_value(serde_json::from_value::<LogTestSummary>(no_why.clone()).unwrap()).unwrap(),
            no_why
        );
    }

    #[test]
    fn an_older_summary_reads_and_another_kind_is_not_a_log_tests() {
        let old: LogTestSummary = serde_json::from_value(json!({"optimum_transaction_size": 16})).unwrap();
        assert_eq!((old.optimum(), old.why()), (Some(16), None));
        let sweep = json!({"param": "depth", "curve": [], "knee": null, "noisy": false});
        assert!(serde_json::from_value::<LogTestSummary>(sweep).is_err());
    }
}
