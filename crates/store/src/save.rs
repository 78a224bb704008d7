//! Saving runs and the groups they belong to. Each run is saved in one transaction as soon as
//! its job finishes, so an interrupted suite keeps every run before the interruption.

use crate::backend::{Conn, Serial};
use crate::{Store, StoreError};
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
        let ids = self.conn.query(
            "INSERT INTO groups (kind, name, created_at) VALUES (?1, ?2, ?3) RETURNING id",
            &[kind.name().into(), name.into(), created_at.into()],
            |r| r.int(0),
        )?;
        ids.first().copied().ok_or_else(|| self.conn.error("a new group was given no id"))
    }

    /// Names a group anew (one named by an id it learns only once it exists).
    pub fn rename_group(&self, group: i64, name: &str) -> Result<(), StoreError> {
        self.conn.execute("UPDATE groups SET name = ?1 WHERE id = ?2", &[name.into(), group.into()])?;
        Ok(())
    }

    /// Attaches what was learnt from the whole group (a sweep's knee, a suite's table).
    pub fn set_group_summary(&self, group: i64, summary: &serde_json::Value) -> Result<(), StoreError> {
        self.conn
            .execute("UPDATE groups SET summary = ?1 WHERE id = ?2", &[summary.to_string().into(), group.into()])?;
        Ok(())
    }

    /// Saves one run with its labels and full record; returns its id. Ids are never reused,
    /// so a removed run's id never comes to mean another run.
    pub fn save(&mut self, record: &RunRecord, place: &Placement) -> Result<i64, StoreError> {
        Ok(self.save_all(&[(record, place.clone())])?[0])
    }

    /// Saves several runs in one transaction: all of them or none (an import of a file's
    /// runs); returns their ids in order. Spindles saving in one store at once (on one host
    /// or many) each get their own ids.
    pub fn save_all(&mut self, runs: &[(&RunRecord, Placement)]) -> Result<Vec<i64>, StoreError> {
        let conn = &self.conn;
        conn.write(|| runs.iter().map(|(record, place)| insert(conn, record, place)).collect())
    }

    /// Saves an import's runs in one transaction, unless `stored`, asked inside it, finds
    /// them stored already: then it saves nothing and returns what `stored` found. The question
    /// and the save are one step for every spindle importing into this store (on any host), so
    /// ten importing one file at once save it once. `runs` saves each run as it comes to it
    /// with the function it is given (a file of thousands of runs is read as it is saved,
    /// never held whole), and may refuse the lot half way (`Ok(Err(_))`, a file that broke):
    /// then nothing is saved either. Returns the runs' ids in the order they were saved.
    pub fn save_new<E>(
        &mut self,
        stored: impl FnOnce(&Store) -> Result<Option<E>, StoreError>,
        runs: impl FnOnce(
            &mut dyn FnMut(&RunRecord, &Placement) -> Result<i64, StoreError>,
        ) -> Result<Result<(), E>, StoreError>,
    ) -> Result<Result<Vec<i64>, E>, StoreError> {
        let this: &Store = self;
        let conn = &this.conn;
        conn.write_unless(|| {
            conn.serialize(Serial::Import)?;
            if let Some(found) = stored(this)? {
                return Ok(Err(found));
            }
            let mut ids = Vec::new();
            let saved = runs(&mut |record, place| {
                let id = insert(conn, record, place)?;
                ids.push(id);
                Ok(id)
            })?;
            Ok(saved.map(|()| ids))
        })
    }

    /// Stored runs that are this run: the same start, host, workload and operation count (a
    /// spindle record imported twice).
    pub fn same_runs(&self, record: &RunRecord) -> Result<Vec<i64>, StoreError> {
        self.conn.query(
            "SELECT id FROM runs WHERE started_at = ?1 AND hostname = ?2 AND workload = ?3 AND ios = ?4 ORDER BY id",
            &[
                record.started_at.as_str().into(),
                record.environment.hostname.as_str().into(),
                workload_of(record).into(),
                (record.summary.ios as i64).into(),
            ],
            |r| r.int(0),
        )
    }

    /// Runs imported from a file with these bytes (by its SHA-256), so the same file is not
    /// imported twice by mistake.
    pub fn imported_from(&self, sha256: &str) -> Result<Vec<i64>, StoreError> {
        let hash = self.conn.dialect().json_text("json", &["details", "origin", "sha256"]);
        let sql = format!("SELECT run_id FROM records WHERE {hash} = ?1 ORDER BY run_id");
        self.conn.query(&sql, &[sha256.into()], |r| r.int(0))
    }
}

/// The record as JSON, in a buffer of exactly its length: a thousand sessions' record is
/// megabytes, and the spare part of a buffer grown by doubling (up to half of it) would sit on
/// the peak of a run's memory while the store saves it. Serializing twice costs milliseconds.
/// Both passes, and the migration's rewriting, write through `dyn Write`, so the record's
/// serializer is compiled once for the store rather than once per writer.
pub(crate) fn record_json(record: &RunRecord) -> String {
    /// Counts the bytes written to it.
    struct Length(usize);
    impl std::io::Write for Length {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut length = Length(0);
    let _ = serde_json::to_writer(&mut length as &mut dyn std::io::Write, record);
    let mut json = Vec::with_capacity(length.0);
    serde_json::to_writer(&mut json as &mut dyn std::io::Write, record).expect("a run record always serializes");
    String::from_utf8(json).expect("serde_json writes UTF-8 only")
}

fn insert(conn: &Conn, record: &RunRecord, place: &Placement) -> Result<i64, StoreError> {
    let json = record_json(record);
    let s = &record.summary;
    let lat = &s.latency_ns;
    let ids = conn.query(
        "INSERT INTO runs (kind, status, started_at, measured_seconds, hostname, spindle_version, workload,
            group_id, point, repeat, ios, iops, bytes_per_sec, latency_mean_ns, latency_p50_ns,
            latency_p99_ns, latency_p99_9_ns, latency_max_ns, cpu_us_per_io, errors, commit_count,
            commit_mean_ns, commit_p99_ns)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,
            ?22, ?23)
         RETURNING id",
        &[
            record.kind().name().into(),
            record.status.name().into(),
            record.started_at.as_str().into(),
            record.measured_seconds.into(),
            record.environment.hostname.as_str().into(),
            record.spindle_version.as_str().into(),
            workload_of(record).into(),
            place.group.into(),
            place.point.as_ref().map(Point::to_string).into(),
            i64::from(place.repeat.max(1)).into(),
            (s.ios as i64).into(),
            s.iops.into(),
            s.bytes_per_sec.into(),
            lat.mean.into(),
            (lat.p50 as i64).into(),
            (lat.p99 as i64).into(),
            (lat.p99_9 as i64).into(),
            (lat.max as i64).into(),
            s.cpu.us_per_io.into(),
            (record.errors.values().sum::<u64>() as i64).into(),
            (s.commit.count as i64).into(),
            s.commit.latency_ns.mean.into(),
            (s.commit.latency_ns.p99 as i64).into(),
        ],
        |r| r.int(0),
    )?;
    let id = ids.first().copied().ok_or_else(|| conn.error("a new run was given no id"))?;
    for (key, value) in &record.labels {
        conn.execute(
            "INSERT INTO labels (run_id, key, value) VALUES (?1, ?2, ?3)",
            &[id.into(), key.as_str().into(), value.as_str().into()],
        )?;
    }
    conn.execute(
        "INSERT INTO records (run_id, schema, json) VALUES (?1, ?2, ?3)",
        &[id.into(), record.schema.as_str().into(), json.into()],
    )?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_json_is_serde_jsons_in_a_buffer_of_its_length() {
        let record = spindle_model::fixtures::record();
        let json = record_json(&record);
        assert_eq!(json, serde_json::to_string(&record).unwrap());
        assert_eq!(json.capacity(), json.len(), "no spare part on the saving run's peak");
    }
}
