//! Schema 2 of the store: every stored record rewritten in the current record schema, in the
//! migration's one transaction. Rewriting once, rather than converting each time a record is
//! read, leaves one shape in the store for every later reader, JSON path queries included
//! (the `details.origin.sha256` that finds a file imported before).

use crate::StoreError;
use crate::backend::Conn;
use spindle_model::RunRecord;
use spindle_model::record::SCHEMA_ID;

/// Rewrites each record of an earlier schema as the current one. A record that does not read
/// (damaged, or of a shape no spindle wrote) is left as it is: reading that run later fails
/// with an error naming it, and `runs remove` can take it away, where failing here would lock
/// every other run of the store out with it.
pub(crate) fn rewrite(conn: &Conn) -> Result<(), StoreError> {
    let old = conn.query("SELECT run_id, json FROM records WHERE schema <> ?1", &[SCHEMA_ID.into()], |r| {
        Ok((r.int(0)?, r.text(1)?))
    })?;
    for (id, json) in old {
        let Ok(record) = serde_json::from_str::<RunRecord>(&json) else { continue };
        conn.execute(
            "UPDATE records SET schema = ?1, json = ?2 WHERE run_id = ?3",
            &[SCHEMA_ID.into(), crate::save::record_json(&record).into(), id.into()],
        )?;
    }
    Ok(())
}
