//! Schema 2 of the store: every stored record rewritten in the current record schema, in the
//! migration's one transaction. Rewriting once, rather than converting each time a record is
//! read, leaves one shape in the store for every later reader, `json_extract` included (the
//! `details.origin.sha256` that finds a file imported before).

use rusqlite::{Transaction, params};
use spindle_model::RunRecord;
use spindle_model::record::SCHEMA_ID;

/// Rewrites each record of an earlier schema as the current one. A record that does not read
/// (damaged, or of a shape no spindle wrote) is left as it is: reading that run later fails
/// with an error naming it, and `runs remove` can take it away, where failing here would lock
/// every other run of the store out with it.
pub(crate) fn rewrite(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let old: Vec<(i64, String)> = tx
        .prepare("SELECT run_id, json FROM records WHERE schema <> ?1")?
        .query_map([SCHEMA_ID], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut update = tx.prepare("UPDATE records SET schema = ?1, json = ?2 WHERE run_id = ?3")?;
    for (id, json) in old {
        let Ok(record) = serde_json::from_str::<RunRecord>(&json) else { continue };
        let Ok(current) = serde_json::to_string(&record) else { continue };
        update.execute(params![SCHEMA_ID, current, id])?;
    }
    Ok(())
}
