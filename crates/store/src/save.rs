//! Saving runs and the groups they belong to. Each run is saved in one transaction as soon as
//! its job finishes, so an interrupted suite keeps every run before the interruption.

use crate::{Store, StoreError};
use rusqlite::params;
use spindle_model::RunRecord;
use spindle_model::group::{GroupKind, Point};

/// Where a run sits among runs made together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placement {
    pub group: Option<i64>,
    /// The sweep point or suite member, e.g. `depth=8` or `page-read` (stored as that text).
    pub point: Option<Point>,
    /// 1-based repeat number.
    pub repeat: u32,
}

impl Store {
    /// Starts a group; its runs are saved with `Placement::group` set to the returned id.
    pub fn new_group(&self, kind: GroupKind, name: &str, created_at: &str) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO groups (kind, name, created_at) VALUES (?1, ?2, ?3)",
                params![kind.name(), name, created_at],
            )
            .map_err(|e| self.sql(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Attaches what was learnt from the whole group (a sweep's knee, a suite's table).
    pub fn set_group_summary(&self, group: i64, summary: &serde_json::Value) -> Result<(), StoreError> {
        self.conn
            .execute("UPDATE groups SET summary = ?1 WHERE id = ?2", params![summary.to_string(), group])
            .map_err(|e| self.sql(e))?;
        Ok(())
    }

    /// Saves one run with its labels and full record; returns its id. Ids are never reused,
    /// so a removed run's id never comes to mean another run.
    pub fn save(&mut self, record: &RunRecord, place: &Placement) -> Result<i64, StoreError> {
        Ok(self.save_all(&[(record, place.clone())])?[0])
    }

    /// Saves several runs in one transaction: all of them or none (an import of a file's
    /// runs); returns their ids in order.
    pub fn save_all(&mut self, runs: &[(&RunRecord, Placement)]) -> Result<Vec<i64>, StoreError> {
        let path = self.path.clone();
        let sql = |source| crate::sqlite(&path, source);
        let tx = self.conn.transaction().map_err(sql)?;
        let ids =
            runs.iter().map(|(record, place)| insert(&tx, record, place).map_err(sql)).collect::<Result<_, _>>()?;
        tx.commit().map_err(sql)?;
        Ok(ids)
    }

    /// Stored runs that are this run: the same start, host, workload and operation count (a
    /// spindle record imported twice).
    pub fn same_runs(&self, record: &RunRecord) -> Result<Vec<i64>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id FROM runs WHERE started_at = ?1 AND hostname = ?2 AND workload = ?3 AND ios = ?4 ORDER BY id",
            )
            .map_err(|e| self.sql(e))?;
        let ids = stmt
            .query_map(
                params![record.started_at, record.environment.hostname, workload_of(record), record.summary.ios as i64],
                |r| r.get(0),
            )
            .map_err(|e| self.sql(e))?
            .collect::<Result<Vec<i64>, _>>()
            .map_err(|e| self.sql(e))?;
        Ok(ids)
    }

    /// Runs imported from a file with these bytes (by its SHA-256), so the same file is not
    /// imported twice by mistake.
    pub fn imported_from(&self, sha256: &str) -> Result<Vec<i64>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT run_id FROM records WHERE json_extract(json, '$.details.origin.sha256') = ?1 ORDER BY run_id",
            )
            .map_err(|e| self.sql(e))?;
        let ids = stmt
            .query_map([sha256], |r| r.get(0))
            .map_err(|e| self.sql(e))?
            .collect::<Result<Vec<i64>, _>>()
            .map_err(|e| self.sql(e))?;
        Ok(ids)
    }
}

fn insert(tx: &rusqlite::Transaction<'_>, record: &RunRecord, place: &Placement) -> Result<i64, rusqlite::Error> {
    let json = serde_json::to_string(record).expect("a run record always serializes");
    let s = &record.summary;
    let lat = &s.latency_ns;
    tx.execute(
        "INSERT INTO runs (kind, status, started_at, measured_seconds, hostname, spindle_version, workload,
            group_id, point, repeat, ios, iops, bytes_per_sec, latency_mean_ns, latency_p50_ns,
            latency_p99_ns, latency_p99_9_ns, latency_max_ns, cpu_us_per_io, errors)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
        params![
            record.kind().name(),
            record.status.name(),
            record.started_at,
            record.measured_seconds,
            record.environment.hostname,
            record.spindle_version,
            workload_of(record),
            place.group,
            place.point.as_ref().map(Point::to_string),
            place.repeat.max(1),
            s.ios as i64,
            s.iops,
            s.bytes_per_sec,
            lat.mean,
            lat.p50 as i64,
            lat.p99 as i64,
            lat.p99_9 as i64,
            lat.max as i64,
            s.cpu.us_per_io,
            record.errors.values().sum::<u64>() as i64,
        ],
    )?;
    let id = tx.last_insert_rowid();
    for (key, value) in &record.labels {
        tx.execute("INSERT INTO labels (run_id, key, value) VALUES (?1, ?2, ?3)", params![id, key, value])?;
    }
    tx.execute("INSERT INTO records (run_id, schema, json) VALUES (?1, ?2, ?3)", params![id, record.schema, json])?;
    Ok(id)
}

/// One line saying what ran: `data.dat: 8KiB random read, 4 threads x 8 outstanding`.
fn workload_of(record: &RunRecord) -> String {
    let one = record.targets.len() == 1;
    record
        .targets
        .iter()
        .map(|t| if one { t.workload.clone() } else { format!("{}: {}", t.path, t.workload) })
        .collect::<Vec<_>>()
        .join("; ")
}
