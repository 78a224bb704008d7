//! A check of a place checked before is held against the last check there ("since
//! 2026-11-20: commit latency +40%, worse"), from the evidence that check kept in its group.

use serde::Serialize;
use spindle_analysis::findings::since::{Change, changes};
use spindle_analysis::findings::{DirEvidence, Guidance};
use spindle_store::{GroupKind, Store};

/// The last check of the same directory, and what moved since.
#[derive(Clone, Debug, Serialize)]
pub struct Since {
    pub group: i64,
    pub created_at: String,
    pub changes: Vec<Change>,
}

/// The check before group `now_id` of the place named `group_name`, for the same engine's
/// guidance (another page size or log pattern measures other things); `None` for a first check.
pub fn since(
    store: &Store,
    group_name: &str,
    now_id: i64,
    now: &DirEvidence,
    guidance: Guidance,
) -> anyhow::Result<Option<Since>> {
    let Some(before) = store.previous_group(GroupKind::Check, group_name, now_id)? else { return Ok(None) };
    let Some(summary) = before.summary else { return Ok(None) };
    let same_guidance = serde_json::from_value::<Guidance>(summary["guidance"].clone()).ok() == Some(guidance);
    let Ok(evidence) = serde_json::from_value::<DirEvidence>(summary["evidence"].clone()) else { return Ok(None) };
    if !same_guidance {
        return Ok(None);
    }
    Ok(Some(Since { group: before.id, created_at: before.created_at, changes: changes(&evidence, now) }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_analysis::findings::Commits;

    fn evidence(commit_ns: f64) -> DirEvidence {
        DirEvidence {
            dir: "/data".into(),
            commits: Some(Commits {
                write_bytes: 8192,
                count: 100,
                per_sec: 1e9 / commit_ns,
                mean_ns: commit_ns,
                p99_ns: commit_ns as u64,
                flush_median_ns: 0,
                flush_p99_ns: 0,
            }),
            ..DirEvidence::default()
        }
    }

    #[test]
    fn a_check_is_held_against_the_last_check_of_the_same_place_for_the_same_engine() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("results.db")).unwrap();
        let at = "2026-11-20T10:34:07Z";
        let keep = |guidance: Guidance, ns: f64| {
            let id = store.new_group(GroupKind::Check, "check /data", at).unwrap();
            let summary = serde_json::json!({"guidance": guidance, "evidence": evidence(ns)});
            store.set_group_summary(id, &summary).unwrap();
            id
        };
        let first = store.new_group(GroupKind::Check, "check /data", at).unwrap();
        assert!(
            since(&store, "check /data", first, &evidence(1e6), Guidance::Generic).unwrap().is_none(),
            "a first check"
        );
        keep(Guidance::Generic, 1e6);
        keep(Guidance::Mysql, 9e6);
        let now = store.new_group(GroupKind::Check, "check /data", at).unwrap();
        // The newest check is MySQL's: another engine's figures, so nothing to hold against.
        assert!(since(&store, "check /data", now, &evidence(2e6), Guidance::Generic).unwrap().is_none());
        let last = since(&store, "check /data", now, &evidence(2e6), Guidance::Mysql).unwrap().expect("MySQL's");
        assert!(last.changes.iter().all(|c| !c.worse), "9 ms -> 2 ms is better: {last:?}");
        let later = store.new_group(GroupKind::Check, "check /data", at).unwrap();
        let last = since(&store, "check /data", later, &evidence(1.5e6), Guidance::Mysql).unwrap().unwrap();
        assert_eq!(last.created_at, at);
        assert_eq!(last.changes[0].text, "commit latency 9 ms -> 1.5 ms (-83%, better)");
    }
}
