//! Reading the store: selecting runs by label, kind, status, time, group or id; listing their
//! summaries (without reading the records); loading full records; removing runs.

use crate::backend::Value;
use crate::{GroupKind, Store, StoreError};
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
    pub(crate) fn where_clause(&self) -> (String, Vec<Value>) {
        let mut conds = Vec::new();
        let mut args: Vec<Value> = Vec::new();
        for (k, v) in &self.labels {
            conds.push("id IN (SELECT run_id FROM labels WHERE key = ? AND value = ?)".to_string());
            args.extend([k.as_str().into(), v.as_str().into()]);
        }
        let mut text = |cond: &str, v: &Option<String>| {
            if let Some(v) = v {
                conds.push(cond.to_string());
                args.push(v.as_str().into());
            }
        };
        text("kind = ?", &self.kind);
        text("status = ?", &self.status);
        text("started_at >= ?", &self.since);
        text("started_at <= ?", &self.until);
        if let Some(g) = self.group {
            conds.push("group_id = ?".into());
            args.push(g.into());
        }
        if !self.ids.is_empty() {
            conds.push(ids_condition("id", &self.ids));
        }
        let clause = if conds.is_empty() { String::new() } else { format!("WHERE {}", conds.join(" AND ")) };
        (clause, args)
    }
}

/// The runs in any of `ids`' ranges, as SQL: the ranges merged, single ids in one `IN` list
/// and the spans joined by `OR` in a balanced tree. A chain of a thousand `OR`s passed SQLite's
/// limit on an expression's depth (1,000), and as many parameters can pass its limit on those;
/// the ids are numbers this program parsed, so they are written into the text.
pub(crate) fn ids_condition(column: &str, ids: &[(i64, i64)]) -> String {
    let mut ranges: Vec<(i64, i64)> = ids.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    ranges.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for (a, b) in ranges {
        match merged.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let singles: Vec<String> = merged.iter().filter(|(a, b)| a == b).map(|(a, _)| a.to_string()).collect();
    let mut parts: Vec<String> =
        merged.iter().filter(|(a, b)| a != b).map(|(a, b)| format!("{column} BETWEEN {a} AND {b}")).collect();
    if !singles.is_empty() {
        parts.push(format!("{column} IN ({})", singles.join(",")));
    }
    any_of(&parts)
}

/// `parts` joined by `OR`, nested as a balanced tree (depth log2 of their number).
fn any_of(parts: &[String]) -> String {
    match parts {
        [] => "FALSE".into(),
        [one] => one.clone(),
        _ => {
            let (left, right) = parts.split_at(parts.len() / 2);
            format!("({} OR {})", any_of(left), any_of(right))
        }
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
    /// `None` (null in JSON) where the run's tool did not record it (an imported run).
    pub latency_mean_ns: Option<f64>,
    pub latency_p99_ns: Option<u64>,
    pub errors: u64,
    /// The run's commits' mean and p99, where it committed (not in `runs list --json`'s
    /// summary fields: the listing adds the lead latency, `lead_latency`, beside them).
    #[serde(skip)]
    pub commit_latency_ns: Option<(f64, u64)>,
}

impl RunSummary {
    /// The latency every view leads with, as `IoStats::lead_latency` decides it for the
    /// record: the commits' mean and p99 where the run committed, else each I/O's.
    pub fn lead_latency(&self) -> (spindle_model::record::LatencyOf, Option<f64>, Option<u64>) {
        use spindle_model::record::LatencyOf;
        match self.commit_latency_ns {
            Some((mean, p99)) => (LatencyOf::Commit, Some(mean), Some(p99)),
            None => (LatencyOf::Io, self.latency_mean_ns, self.latency_p99_ns),
        }
    }

    /// The run's rate of what it counts, or `None` where a rate means nothing: a large
    /// operation's checkpoint processes no rows (and is never a rate of I/Os). As
    /// `RunRecord::rate`, from the summary's kind and point.
    pub fn rate(&self) -> Option<f64> {
        let checkpoint = self.kind == spindle_model::RunKind::LargeOps.name()
            && self
                .point
                .as_ref()
                .and_then(|p| p.as_sweep())
                .is_some_and(|p| p.param == "op" && p.value == "checkpoint");
        (!checkpoint).then_some(self.iops)
    }
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
     measured_seconds, iops, bytes_per_sec, latency_mean_ns, latency_p99_ns, errors, commit_count, commit_mean_ns, \
     commit_p99_ns";

impl Store {
    /// Summaries of the matching runs, oldest first (the newest `limit` when limited).
    pub fn list(&self, filter: &Filter) -> Result<Vec<RunSummary>, StoreError> {
        let (clause, mut args) = filter.where_clause();
        let limit = match filter.limit {
            Some(n) => {
                args.push(Value::Int(n.min(i64::MAX as u64) as i64));
                "LIMIT ?"
            }
            None => "",
        };
        let mut runs = self.summaries(&format!("{clause} ORDER BY id DESC {limit}"), &args)?;
        runs.reverse();
        Ok(runs)
    }

    /// The summaries, with their labels, of the runs `tail` selects and orders (a `WHERE`
    /// clause, `ORDER BY`, `LIMIT`, written against the `runs` table), in its order.
    pub(crate) fn summaries(&self, tail: &str, args: &[Value]) -> Result<Vec<RunSummary>, StoreError> {
        // What an imported run's tool did not record is in its record's origin; only imported
        // runs (made on no host spindle knows) are looked up, so a listing reads no other record.
        let absent = self.conn.dialect().json_text("records.json", &["details", "origin", "absent"]);
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS}, CASE WHEN hostname = '' THEN \
             (SELECT {absent} FROM records WHERE records.run_id = runs.id) END, ios \
             FROM runs {tail}"
        );
        let mut runs: Vec<RunSummary> = self.conn.query(&sql, args, |r| {
            let absent: Vec<String> = r.opt_text(18)?.and_then(|a| serde_json::from_str(&a).ok()).unwrap_or_default();
            // As `RunRecord::recorded` says: a load or a large operation has no latencies of
            // its own, and a run stopped before any operation completed timed none.
            let mut recorded =
                spindle_model::Recorded::from_absent(&absent).of_count(r.int(19)?.max(r.int(15)?).max(0) as u64);
            if spindle_model::RunKind::parse(&r.text(2)?).is_some_and(|k| !k.times_operations()) {
                recorded = recorded.without_latency();
            }
            Ok(RunSummary {
                id: r.int(0)?,
                started_at: r.text(1)?,
                kind: r.text(2)?,
                status: r.text(3)?,
                workload: r.text(4)?,
                labels: BTreeMap::new(),
                group: r.opt_int(5)?,
                point: r.opt_text(6)?.map(|p| Point::parse(&p)),
                repeat: r.int(7)?.clamp(0, u32::MAX.into()) as u32,
                hostname: r.text(8)?,
                measured_seconds: r.real(9)?,
                iops: r.real(10)?,
                mb_per_sec: r.real(11)? / 1e6,
                latency_mean_ns: Some(r.real(12)?).filter(|_| recorded.latency),
                latency_p99_ns: Some(r.int(13)?.max(0) as u64).filter(|_| recorded.percentiles),
                errors: r.int(14)?.max(0) as u64,
                commit_latency_ns: (r.int(15)? > 0).then(|| Ok((r.real(16)?, r.int(17)?.max(0) as u64))).transpose()?,
            })
        })?;
        self.attach_labels(&mut runs)?;
        Ok(runs)
    }

    /// How many runs match (ignoring `limit`).
    pub fn count(&self, filter: &Filter) -> Result<u64, StoreError> {
        let (clause, args) = filter.where_clause();
        let sql = format!("SELECT count(*) FROM runs {clause}");
        let n = self.conn.query_first(&sql, &args, |r| r.int(0))?.unwrap_or(0);
        Ok(n.max(0) as u64)
    }

    /// The labels of `runs`, in whatever order they are, read in one statement.
    fn attach_labels(&self, runs: &mut [RunSummary]) -> Result<(), StoreError> {
        if runs.is_empty() {
            return Ok(());
        }
        let ids: Vec<(i64, i64)> = runs.iter().map(|r| (r.id, r.id)).collect();
        let sql = format!("SELECT run_id, key, value FROM labels WHERE {}", ids_condition("run_id", &ids));
        let rows = self.conn.query(&sql, &[], |r| Ok((r.int(0)?, r.text(1)?, r.text(2)?)))?;
        let at: std::collections::HashMap<i64, usize> = runs.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
        for (id, key, value) in rows {
            if let Some(&i) = at.get(&id) {
                runs[i].labels.insert(key, value);
            }
        }
        Ok(())
    }

    /// One group's own row; its runs are `load_all` with `Filter::group`.
    pub fn group(&self, id: i64) -> Result<StoredGroup, StoreError> {
        let row = self.conn.query_first(
            "SELECT kind, name, created_at, summary FROM groups WHERE id = ?1",
            &[id.into()],
            |r| Ok((r.text(0)?, r.text(1)?, r.text(2)?, r.opt_text(3)?)),
        )?;
        let (kind, name, created_at, summary) = row.ok_or(StoreError::NoSuchGroup(id))?;
        Ok(StoredGroup {
            id,
            kind: GroupKind::parse(&kind).ok_or(StoreError::UnknownGroupKind { id, kind })?,
            name,
            created_at,
            summary: summary.and_then(|s| serde_json::from_str(&s).ok()),
        })
    }

    /// Up to `limit` groups of `kind` named `name` made before group `before` that ended (have
    /// a summary), newest first: the earlier checks of a place, which `spindle check` holds a
    /// new check of it against.
    pub fn previous_groups(
        &self,
        kind: GroupKind,
        name: &str,
        before: i64,
        limit: usize,
    ) -> Result<Vec<StoredGroup>, StoreError> {
        let ids = self.conn.query(
            "SELECT id FROM groups WHERE kind = ?1 AND name = ?2 AND id < ?3 AND summary IS NOT NULL
             ORDER BY id DESC LIMIT ?4",
            &[kind.name().into(), name.into(), before.into(), (limit as i64).into()],
            |r| r.int(0),
        )?;
        ids.into_iter().map(|id| self.group(id)).collect()
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
    pub(crate) fn with_record(&self, summary: RunSummary) -> Result<StoredRun, StoreError> {
        let id = summary.id;
        let json = self.conn.query_first("SELECT json FROM records WHERE run_id = ?1", &[id.into()], |r| r.text(0))?;
        Ok(StoredRun { summary, record: crate::each_run::record_of(id, json)? })
    }

    /// Removes runs; all or nothing: an id not in the store removes none.
    pub fn remove(&mut self, ids: &[i64]) -> Result<(), StoreError> {
        let conn = &self.conn;
        conn.write(|| {
            for &id in ids {
                if conn.execute("DELETE FROM runs WHERE id = ?1", &[id.into()])? == 0 {
                    return Err(StoreError::NoSuchRun(id));
                }
            }
            Ok(())
        })
    }
}
