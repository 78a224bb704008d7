//! Reading the store: selecting runs by label, kind, status, time, group or id; listing their
//! summaries (without reading the records); loading full records; removing runs.

use crate::{GroupKind, Store, StoreError};
use rusqlite::types::Value;
use serde::Serialize;
use spindle_model::RunRecord;
use spindle_model::group::Point;
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

/// Which runs a command is about. Every condition given must hold.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub labels: Vec<(String, String)>,
    pub kind: Option<String>,
    pub status: Option<String>,
    /// RFC 3339 UTC bounds, inclusive (see `TimeBound`).
    pub since: Option<String>,
    pub until: Option<String>,
    pub group: Option<i64>,
    /// Inclusive id ranges; a run matches if it is in any of them.
    pub ids: Vec<(i64, i64)>,
    /// Only the newest N of the matching runs.
    pub limit: Option<u64>,
}

impl Filter {
    fn where_clause(&self) -> (String, Vec<Value>) {
        let mut conds = Vec::new();
        let mut args: Vec<Value> = Vec::new();
        for (k, v) in &self.labels {
            conds.push("id IN (SELECT run_id FROM labels WHERE key = ? AND value = ?)".to_string());
            args.extend([Value::Text(k.clone()), Value::Text(v.clone())]);
        }
        let mut text = |cond: &str, v: &Option<String>| {
            if let Some(v) = v {
                conds.push(cond.to_string());
                args.push(Value::Text(v.clone()));
            }
        };
        text("kind = ?", &self.kind);
        text("status = ?", &self.status);
        text("started_at >= ?", &self.since);
        text("started_at <= ?", &self.until);
        if let Some(g) = self.group {
            conds.push("group_id = ?".into());
            args.push(Value::Integer(g));
        }
        if !self.ids.is_empty() {
            let ranges: Vec<&str> = self.ids.iter().map(|_| "id BETWEEN ? AND ?").collect();
            conds.push(format!("({})", ranges.join(" OR ")));
            for &(a, b) in &self.ids {
                args.extend([Value::Integer(a), Value::Integer(b)]);
            }
        }
        let clause = if conds.is_empty() { String::new() } else { format!("WHERE {}", conds.join(" AND ")) };
        (clause, args)
    }
}

/// Parsing of `--since` / `--until` values.
pub struct TimeBound;

impl TimeBound {
    /// `2026-11-22`, `2026-11-22T10:00:00Z`, or an age such as `90m`, `24h`, `7d` (that long
    /// before `now`), as the RFC 3339 UTC text runs are stamped with. A bare date as an upper
    /// bound means the end of that day.
    pub fn parse(text: &str, upper: bool, now: SystemTime) -> Result<String, String> {
        let t = text.trim();
        if let Some(age) = parse_age(t) {
            let at = now.checked_sub(age).ok_or_else(|| "reaches before 1970".to_string())?;
            return Ok(spindle_model::time::rfc3339_utc(at));
        }
        let b = t.as_bytes();
        let digits = |r: std::ops::Range<usize>| b.get(r.clone()).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
        let number = |r: std::ops::Range<usize>| t[r].parse::<u32>().unwrap_or(0);
        let date_ok = b.len() >= 10
            && digits(0..4)
            && b[4] == b'-'
            && digits(5..7)
            && b[7] == b'-'
            && digits(8..10)
            && (1..=12).contains(&number(5..7))
            && (1..=31).contains(&number(8..10));
        if date_ok && b.len() == 10 {
            return Ok(if upper { format!("{t}T23:59:59Z") } else { format!("{t}T00:00:00Z") });
        }
        let time_ok = b.len() == 20
            && b[10] == b'T'
            && digits(11..13)
            && b[13] == b':'
            && digits(14..16)
            && b[16] == b':'
            && digits(17..19)
            && b[19] == b'Z'
            && number(11..13) < 24
            && number(14..16) < 60
            && number(17..19) < 61;
        if date_ok && time_ok {
            return Ok(t.to_string());
        }
        Err("write a date (2026-11-22), a UTC time (2026-11-22T10:00:00Z) or an age (90m, 24h, 7d)".to_string())
    }
}

/// `90m`, `24h`, `7d`: a whole number of minutes, hours or days.
fn parse_age(t: &str) -> Option<Duration> {
    let unit = match t.chars().last()? {
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        _ => return None,
    };
    let n: u64 = t[..t.len() - 1].parse().ok()?;
    Some(Duration::from_secs(n.checked_mul(unit)?))
}

/// One stored run, as `runs list` shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSummary {
    pub id: i64,
    pub started_at: String,
    pub kind: String,
    pub status: String,
    pub workload: String,
    pub labels: BTreeMap<String, String>,
    pub group: Option<i64>,
    pub point: Option<Point>,
    pub repeat: u32,
    pub hostname: String,
    pub measured_seconds: f64,
    pub iops: f64,
    pub mb_per_sec: f64,
    pub latency_mean_ns: f64,
    pub latency_p99_ns: u64,
    pub errors: u64,
}

/// A group of runs made together, as stored.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoredGroup {
    pub id: i64,
    pub kind: GroupKind,
    /// How it was asked for (`--sweep depth=1,2,4`, `ab a.toml b.toml`).
    pub name: String,
    pub created_at: String,
    /// What was learnt from the whole group when it ended (a sweep's curve and knee, an A/B
    /// experiment's comparison).
    pub summary: Option<serde_json::Value>,
}

/// A run with its full record.
#[derive(Clone, Debug)]
pub struct StoredRun {
    pub summary: RunSummary,
    pub record: RunRecord,
}

const SUMMARY_COLUMNS: &str = "id, started_at, kind, status, workload, group_id, point, repeat, hostname, \
     measured_seconds, iops, bytes_per_sec, latency_mean_ns, latency_p99_ns, errors";

impl Store {
    /// Summaries of the matching runs, oldest first (the newest `limit` when limited).
    pub fn list(&self, filter: &Filter) -> Result<Vec<RunSummary>, StoreError> {
        let (clause, mut args) = filter.where_clause();
        let limit = match filter.limit {
            Some(n) => {
                args.push(Value::Integer(n.min(i64::MAX as u64) as i64));
                "LIMIT ?"
            }
            None => "",
        };
        let sql = format!("SELECT {SUMMARY_COLUMNS} FROM runs {clause} ORDER BY id DESC {limit}");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.sql(e))?;
        let mut runs: Vec<RunSummary> = stmt
            .query_map(rusqlite::params_from_iter(args), |r| {
                Ok(RunSummary {
                    id: r.get(0)?,
                    started_at: r.get(1)?,
                    kind: r.get(2)?,
                    status: r.get(3)?,
                    workload: r.get(4)?,
                    labels: BTreeMap::new(),
                    group: r.get(5)?,
                    point: r.get::<_, Option<String>>(6)?.map(|p| Point::parse(&p)),
                    repeat: r.get(7)?,
                    hostname: r.get(8)?,
                    measured_seconds: r.get(9)?,
                    iops: r.get(10)?,
                    mb_per_sec: r.get::<_, f64>(11)? / 1e6,
                    latency_mean_ns: r.get(12)?,
                    latency_p99_ns: r.get::<_, i64>(13)?.max(0) as u64,
                    errors: r.get::<_, i64>(14)?.max(0) as u64,
                })
            })
            .map_err(|e| self.sql(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.sql(e))?;
        runs.reverse();
        self.attach_labels(&mut runs)?;
        Ok(runs)
    }

    /// How many runs match (ignoring `limit`).
    pub fn count(&self, filter: &Filter) -> Result<u64, StoreError> {
        let (clause, args) = filter.where_clause();
        let sql = format!("SELECT count(*) FROM runs {clause}");
        let n: i64 =
            self.conn.query_row(&sql, rusqlite::params_from_iter(args), |r| r.get(0)).map_err(|e| self.sql(e))?;
        Ok(n.max(0) as u64)
    }

    fn attach_labels(&self, runs: &mut [RunSummary]) -> Result<(), StoreError> {
        let (Some(first), Some(last)) = (runs.first().map(|r| r.id), runs.last().map(|r| r.id)) else {
            return Ok(());
        };
        let mut stmt = self
            .conn
            .prepare_cached("SELECT run_id, key, value FROM labels WHERE run_id BETWEEN ?1 AND ?2")
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([first, last], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))
            .map_err(|e| self.sql(e))?;
        for row in rows {
            let (id, key, value) = row.map_err(|e| self.sql(e))?;
            // runs are sorted by id, so the owner is found by binary search.
            if let Ok(i) = runs.binary_search_by_key(&id, |r| r.id) {
                runs[i].labels.insert(key, value);
            }
        }
        Ok(())
    }

    /// One group's own row; its runs are `load_all` with `Filter::group`.
    pub fn group(&self, id: i64) -> Result<StoredGroup, StoreError> {
        let row = self.conn.query_row("SELECT kind, name, created_at, summary FROM groups WHERE id = ?1", [id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, Option<String>>(3)?))
        });
        match row {
            Ok((kind, name, created_at, summary)) => Ok(StoredGroup {
                id,
                kind: GroupKind::parse(&kind).ok_or(StoreError::UnknownGroupKind { id, kind })?,
                name,
                created_at,
                summary: summary.and_then(|s| serde_json::from_str(&s).ok()),
            }),
            Err(rusqlite::Error::QueryReturnedNoRows) => Err(StoreError::NoSuchGroup(id)),
            Err(e) => Err(self.sql(e)),
        }
    }

    /// The newest group of `kind` named `name` made before group `before`, among those that
    /// ended with a summary: what `spindle check` compares a new check of the same place with.
    pub fn previous_group(&self, kind: GroupKind, name: &str, before: i64) -> Result<Option<StoredGroup>, StoreError> {
        let id = self.conn.query_row(
            "SELECT id FROM groups WHERE kind = ?1 AND name = ?2 AND id < ?3 AND summary IS NOT NULL
             ORDER BY id DESC LIMIT 1",
            rusqlite::params![kind.name(), name, before],
            |r| r.get::<_, i64>(0),
        );
        match id {
            Ok(id) => self.group(id).map(Some),
            Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
            Err(e) => Err(self.sql(e)),
        }
    }

    /// One run with its full record.
    pub fn load(&self, id: i64) -> Result<StoredRun, StoreError> {
        let filter = Filter { ids: vec![(id, id)], ..Filter::default() };
        let summary = self.list(&filter)?.pop().ok_or(StoreError::NoSuchRun(id))?;
        self.with_record(summary)
    }

    /// Every matching run with its full record, oldest first.
    pub fn load_all(&self, filter: &Filter) -> Result<Vec<StoredRun>, StoreError> {
        self.list(filter)?.into_iter().map(|s| self.with_record(s)).collect()
    }

    /// A listed run with its record read and parsed.
    fn with_record(&self, summary: RunSummary) -> Result<StoredRun, StoreError> {
        let id = summary.id;
        let json: String = self
            .conn
            .query_row("SELECT json FROM records WHERE run_id = ?1", [id], |r| r.get(0))
            .map_err(|e| self.sql(e))?;
        let record = serde_json::from_str(&json).map_err(|e| StoreError::Corrupt { id, why: e.to_string() })?;
        Ok(StoredRun { summary, record })
    }

    /// The runs of every group of `kind` that holds a run on `hostname` of one of `workloads`
    /// (the workload in words, as `runs list` shows it), group by group, oldest first. What a
    /// comparison reads to estimate how much this host drifts between groups.
    pub fn groups_like(
        &self,
        kind: GroupKind,
        hostname: &str,
        workloads: &[String],
    ) -> Result<Vec<Vec<StoredRun>>, StoreError> {
        let marks = vec!["?"; workloads.len()].join(", ");
        let sql = format!(
            "SELECT DISTINCT r.group_id FROM runs r JOIN groups g ON g.id = r.group_id
             WHERE g.kind = ? AND r.hostname = ? AND r.workload IN ({marks}) ORDER BY r.group_id"
        );
        let mut args = vec![Value::Text(kind.name().into()), Value::Text(hostname.into())];
        args.extend(workloads.iter().map(|w| Value::Text(w.clone())));
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.sql(e))?;
        let groups: Vec<i64> = stmt
            .query_map(rusqlite::params_from_iter(args), |r| r.get(0))
            .map_err(|e| self.sql(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.sql(e))?;
        groups.into_iter().map(|g| self.load_all(&Filter { group: Some(g), ..Filter::default() })).collect()
    }

    /// Removes runs; all or nothing: an id not in the store removes none.
    pub fn remove(&mut self, ids: &[i64]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sql = |source| crate::sqlite(&path, source);
        let tx = self.conn.transaction().map_err(sql)?;
        for &id in ids {
            let n = tx.execute("DELETE FROM runs WHERE id = ?1", [id]).map_err(sql)?;
            if n == 0 {
                return Err(StoreError::NoSuchRun(id)); // dropping tx rolls back
            }
        }
        tx.commit().map_err(sql)
    }
}
