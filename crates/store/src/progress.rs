//! Runs in progress, published to the store so `spindle serve` can show them as they measure:
//! a row per measuring step with its per-second points, written by the running spindle off
//! its hot path (a thread of its own, about once a second). When the step ends unsaved its row
//! goes; when it is saved, the row keeps the saved run's id (for a day), so the address of the
//! run in progress leads to the saved run. A row whose writer died stops being updated, and
//! readers tell it by its age (`updated_ms`), never show it as running forever.
//!
//! The table is the schema's (version 3), on SQLite and PostgreSQL alike: a team's shared
//! store shows every host's runs in progress.

use crate::{Store, StoreError};
use serde::Serialize;

/// One run in progress, as readers see it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveRun {
    /// The live row's own id (not a run id: the run has none until it is saved).
    pub id: i64,
    pub pid: i64,
    pub hostname: String,
    /// What the step measures, in words (`8KiB random read, depth 8`).
    pub what: String,
    /// The step's time zero, RFC 3339 UTC to the millisecond (`2026-11-26T10:00:00.250Z`):
    /// each point was measured at this instant plus its first number.
    pub started_at: String,
    /// When its writer last published, milliseconds since 1970 (UTC).
    pub updated_ms: i64,
    /// Per-second points: `[seconds since time zero (to the millisecond), operations/s, MB/s,
    /// mean latency ns]`.
    pub points: Vec<[f64; 4]>,
    /// The run it was saved as, once it ended and was saved.
    pub run_id: Option<i64>,
}

/// How long a saved run's live row is kept, milliseconds: long enough for a page left open.
const SAVED_KEPT_MS: i64 = 24 * 3600 * 1000;

const COLUMNS: &str = "id, pid, hostname, what, started_at, updated_ms, points, run_id";

impl Store {
    /// Starts publishing a step: its row, with no points yet. Returns the row's id.
    pub fn live_start(
        &self,
        pid: i64,
        hostname: &str,
        what: &str,
        started_at: &str,
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        self.conn.execute(
            "DELETE FROM live_runs WHERE run_id IS NOT NULL AND updated_ms < ?1",
            &[(now_ms - SAVED_KEPT_MS).into()],
        )?;
        let id = self.conn.query_first(
            "INSERT INTO live_runs (pid, hostname, what, started_at, updated_ms, points) \
             VALUES (?1, ?2, ?3, ?4, ?5, '[]') RETURNING id",
            &[pid.into(), hostname.into(), what.into(), started_at.into(), now_ms.into()],
            |r| r.int(0),
        )?;
        id.ok_or_else(|| self.conn.error("a live run was given no id"))
    }

    /// The step's points so far (all of them: a step of an hour is 3,600 small points).
    pub fn live_update(&self, id: i64, points: &[[f64; 4]], now_ms: i64) -> Result<(), StoreError> {
        let json = serde_json::to_string(points).map_err(|e| StoreError::Corrupt { id, why: e.to_string() })?;
        self.conn.execute(
            "UPDATE live_runs SET points = ?2, updated_ms = ?3 WHERE id = ?1",
            &[id.into(), json.into(), now_ms.into()],
        )?;
        Ok(())
    }

    /// The step ended (saved, or not): its row goes.
    pub fn live_end(&self, id: i64) -> Result<(), StoreError> {
        self.conn.execute("DELETE FROM live_runs WHERE id = ?1", &[id.into()])?;
        Ok(())
    }

    /// The step ended and was saved as run `run_id`: its row says so (and is no longer in
    /// progress).
    pub fn live_saved(&self, id: i64, run_id: i64, now_ms: i64) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE live_runs SET run_id = ?2, updated_ms = ?3 WHERE id = ?1",
            &[id.into(), run_id.into(), now_ms.into()],
        )?;
        Ok(())
    }

    /// Every published step still in progress (or stopped without finishing), oldest first.
    pub fn live_runs(&self) -> Result<Vec<LiveRun>, StoreError> {
        self.conn.query(&format!("SELECT {COLUMNS} FROM live_runs WHERE run_id IS NULL ORDER BY id"), &[], live_run)
    }

    /// One published step, in progress or saved.
    pub fn live_run(&self, id: i64) -> Result<Option<LiveRun>, StoreError> {
        let rows =
            self.conn.query(&format!("SELECT {COLUMNS} FROM live_runs WHERE id = ?1"), &[id.into()], live_run)?;
        Ok(rows.into_iter().next())
    }
}

fn live_run(r: &crate::backend::Row) -> Result<LiveRun, crate::backend::ColumnError> {
    Ok(LiveRun {
        id: r.int(0)?,
        pid: r.int(1)?,
        hostname: r.text(2)?,
        what: r.text(3)?,
        started_at: r.text(4)?,
        updated_ms: r.int(5)?,
        // A row cut short by a writer that died mid-write shows no points.
        points: serde_json::from_str(&r.text(6)?).unwrap_or_default(),
        run_id: r.opt_int(7)?,
    })
}

#[cfg(test)]
mod tests {
    use crate::Store;

    #[test]
    fn a_live_run_is_published_updated_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("s.db")).unwrap();
        assert!(store.live_runs().unwrap().is_empty(), "a new store has no live runs");
        let id = store.live_start(42, "h", "8KiB random read", "2026-11-26T10:00:00Z", 1_000).unwrap();
        store.live_update(id, &[[1.0, 100.0, 0.8, 5e5], [2.0, 110.0, 0.9, 4e5]], 3_000).unwrap();
        let live = store.live_runs().unwrap();
        assert_eq!(live.len(), 1);
        assert_eq!(live[0].points.len(), 2);
        assert_eq!(live[0].updated_ms, 3_000);
        store.live_end(id).unwrap();
        assert!(store.live_runs().unwrap().is_empty());
        assert_eq!(store.live_run(id).unwrap(), None);
    }

    #[test]
    fn a_saved_live_run_keeps_its_run_id_for_a_day() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("s.db")).unwrap();
        let id = store.live_start(42, "h", "8KiB random read", "2026-11-26T10:00:00Z", 1_000).unwrap();
        store.live_saved(id, 7, 2_000).unwrap();
        assert!(store.live_runs().unwrap().is_empty(), "no longer in progress");
        assert_eq!(store.live_run(id).unwrap().and_then(|r| r.run_id), Some(7));
        // A day on, the next run's start clears it.
        store.live_start(43, "h", "again", "2026-11-27T10:00:00Z", 2_000 + 24 * 3600 * 1000 + 1).unwrap();
        assert_eq!(store.live_run(id).unwrap(), None);
    }
}
