//! A check of a place checked before is held against the earlier checks there, from the
//! evidence each kept in its group: what moved, and whether beyond the place's own swing
//! (`findings::since`).

use serde::Serialize;
use serde::de::IgnoredAny;
use spindle_analysis::check_summary::KeptCheck;
use spindle_analysis::findings::since::{Change, HISTORY, changes};
use spindle_analysis::findings::{DirEvidence, Guidance};
use spindle_store::{GroupKind, Store};

/// The last check of the same directory, how many earlier checks the swing was read from, and
/// what moved.
#[derive(Clone, Debug, Serialize)]
pub struct Since {
    pub group: i64,
    pub created_at: String,
    /// Earlier checks of the place with the same guidance (at most `HISTORY`).
    pub checks: usize,
    pub changes: Vec<Change>,
}

/// The checks before group `now_id` of the place named `group_name`, for the same engine's
/// guidance (another page size or log pattern measures other things); `None` for a first check.
pub fn since(
    store: &Store,
    group_name: &str,
    now_id: i64,
    now: &DirEvidence,
    guidance: Guidance,
) -> anyhow::Result<Option<Since>> {
    let groups = store.previous_groups(GroupKind::Check, group_name, now_id, HISTORY)?;
    let earlier: Vec<(i64, String, DirEvidence)> = groups
        .into_iter()
        .filter_map(|g| {
            let kept = KeptCheck::<IgnoredAny>::of(&g.summary?);
            let same = kept.guidance == Some(guidance);
            same.then_some((g.id, g.created_at, kept.evidence?))
        })
        .collect();
    let Some((group, created_at, _)) = earlier.first() else { return Ok(None) };
    let evidence: Vec<DirEvidence> = earlier.iter().map(|(_, _, e)| e.clone()).collect();
    Ok(Some(Since {
        group: *group,
        created_at: created_at.clone(),
        checks: earlier.len(),
        changes: changes(&evidence, now),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_analysis::findings::Commits;
    use spindle_analysis::findings::since::Moved;

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
    fn a_check_is_held_against_the_earlier_checks_of_the_same_place_for_the_same_engine() {
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
        let mysql = keep(Guidance::Mysql, 9e6);
        let now = store.new_group(GroupKind::Check, "check /data", at).unwrap();
        // Only the generic check counts for a generic check, though MySQL's is newer.
        let last = since(&store, "check /data", now, &evidence(2e6), Guidance::Generic).unwrap().unwrap();
        assert_eq!((last.checks, last.changes[0].verdict), (1, Moved::Unjudged));
        assert_eq!(last.changes[0].text, "commit latency 1 ms -> 2 ms (+100%)");
        let last = since(&store, "check /data", now, &evidence(2e6), Guidance::Mysql).unwrap().expect("MySQL's");
        assert_eq!((last.group, last.checks, last.created_at.as_str()), (mysql, 1, at));
        // Three more MySQL checks of 9.0-9.4 ms: a swing to hold 2 ms against, and it is better.
        for ns in [9.2e6, 9.4e6, 9.1e6] {
            keep(Guidance::Mysql, ns);
        }
        let later = store.new_group(GroupKind::Check, "check /data", at).unwrap();
        let last = since(&store, "check /data", later, &evidence(2e6), Guidance::Mysql).unwrap().unwrap();
        assert_eq!(last.checks, 4);
        assert_eq!(last.changes[0].verdict, Moved::Better, "{:?}", last.changes);
    }
}
