//! Schema 6 of the store: the commit columns schema 5 added to `runs`, filled in from the
//! records of the runs saved before it, in the migration's one transaction. Runs that commit
//! nothing keep the columns' zeros, which is what they would have been given when saved.

use crate::StoreError;
use crate::backend::Conn;
use spindle_model::RunRecord;

/// Sets each committing run's commit count, mean and p99 from its record. A record that does
/// not read is left as it is (as in `records_v2`): reading that run later names it.
pub(crate) fn backfill(conn: &Conn) -> Result<(), StoreError> {
    let records = conn.query("SELECT run_id, json FROM records", &[], |r| Ok((r.int(0)?, r.text(1)?)))?;
    for (id, json) in records {
        let Ok(record) = serde_json::from_str::<RunRecord>(&json) else { continue };
        let commit = &record.summary.commit;
        if commit.count == 0 {
            continue;
        }
        conn.execute(
            "UPDATE runs SET commit_count = ?1, commit_mean_ns = ?2, commit_p99_ns = ?3 WHERE id = ?4",
            &[
                (commit.count as i64).into(),
                commit.latency_ns.mean.into(),
                (commit.latency_ns.p99 as i64).into(),
                id.into(),
            ],
        )?;
    }
    Ok(())
}
