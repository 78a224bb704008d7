//! Reading many runs in bounded memory: the selected runs' records one at a time, in batches
//! read by id (so a download of ten thousand runs holds a few records, never all), and a page
//! of summaries in any order the runs page sorts by, sorted and cut by the database.

use crate::backend::Value;
use crate::query::ids_condition;
use crate::{Filter, RunSummary, Store, StoreError, StoredRun};
use spindle_model::RunKind;
use spindle_model::kind::Unrecorded;

/// Summaries read per statement while reading runs one at a time: a few hundred bytes each.
const BATCH: i64 = 100;

/// What the runs page sorts by: a summary column, its figures as `runs list` shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    Id,
    Started,
    Kind,
    Workload,
    Host,
    Status,
    /// IOPS (calls/s, rows/s: the rate of what the run counts).
    Rate,
    MbPerSec,
    /// Each I/O's mean latency; runs that recorded none sort before every other.
    Mean,
    /// Each I/O's p99 latency; runs that recorded none sort before every other.
    P99,
}

/// The selection of a page: which runs (a filter, and a host when one is named), in which order.
#[derive(Clone, Debug)]
pub struct PageQuery<'a> {
    pub filter: &'a Filter,
    pub hostname: Option<&'a str>,
    pub sort: SortKey,
    pub ascending: bool,
}

impl SortKey {
    /// The SQL this key orders by. A latency a run did not record (a kind that times no
    /// operation, a run that completed none, an imported run whose tool did not give it, as
    /// `RunSummary`'s reader decides) is NULL.
    fn expression(self, absent_list: &str) -> String {
        let unrecorded = |absent: &[Unrecorded]| {
            let untimed: Vec<String> =
                RunKind::ALL.into_iter().filter(|k| !k.times_operations()).map(|k| format!("'{}'", k.name())).collect();
            let lacks: Vec<String> = absent
                .iter()
                .map(|u| {
                    format!(
                        "(SELECT {absent_list} FROM records WHERE records.run_id = runs.id) LIKE '%\"{}\"%'",
                        u.words()
                    )
                })
                .collect();
            format!(
                "kind IN ({}) OR (ios <= 0 AND commit_count <= 0) OR (hostname = '' AND ({}))",
                untimed.join(", "),
                lacks.join(" OR ")
            )
        };
        match self {
            SortKey::Id => "id".into(),
            SortKey::Started => "started_at".into(),
            SortKey::Kind => "kind".into(),
            SortKey::Workload => "workload".into(),
            SortKey::Host => "hostname".into(),
            SortKey::Status => "status".into(),
            SortKey::Rate => "iops".into(),
            SortKey::MbPerSec => "bytes_per_sec".into(),
            SortKey::Mean => {
                format!("CASE WHEN {} THEN NULL ELSE latency_mean_ns END", unrecorded(&[Unrecorded::Latency]))
            }
            SortKey::P99 => format!(
                "CASE WHEN {} THEN NULL ELSE latency_p99_ns END",
                unrecorded(&[Unrecorded::Latency, Unrecorded::Percentiles])
            ),
        }
    }
}

impl PageQuery<'_> {
    fn where_clause(&self) -> (String, Vec<Value>) {
        let (mut clause, mut args) = self.filter.where_clause();
        if let Some(h) = self.hostname {
            clause = if clause.is_empty() { "WHERE hostname = ?".into() } else { format!("{clause} AND hostname = ?") };
            args.push(h.into());
        }
        (clause, args)
    }
}

impl Store {
    /// How many runs the page's selection holds (its filter's `limit` aside).
    pub fn count_page(&self, q: &PageQuery<'_>) -> Result<u64, StoreError> {
        let (clause, args) = q.where_clause();
        let n = self.conn.query_first(&format!("SELECT count(*) FROM runs {clause}"), &args, |r| r.int(0))?;
        Ok(n.unwrap_or(0).max(0) as u64)
    }

    /// Up to `limit` summaries of the selection in its order, after skipping `offset`: the
    /// database sorts and cuts, so a page reads its runs only. Ties go by id, in the same
    /// direction; unrecorded latencies come first ascending, last descending.
    pub fn page(&self, q: &PageQuery<'_>, offset: u64, limit: u64) -> Result<Vec<RunSummary>, StoreError> {
        let (clause, mut args) = q.where_clause();
        let dir = if q.ascending { "ASC" } else { "DESC" };
        let by = q.sort.expression(&self.conn.dialect().json_text("records.json", &["details", "origin", "absent"]));
        let order = match q.sort {
            // The key itself: the database reads the newest (or oldest) page off its index.
            SortKey::Id => format!("ORDER BY id {dir}"),
            // `(x IS NOT NULL)` first: NULLs sort the same way in SQLite and PostgreSQL.
            SortKey::Mean | SortKey::P99 => format!("ORDER BY ({by}) IS NOT NULL {dir}, {by} {dir}, id {dir}"),
            _ => format!("ORDER BY {by} {dir}, id {dir}"),
        };
        args.extend([Value::Int(limit.min(i64::MAX as u64) as i64), Value::Int(offset.min(i64::MAX as u64) as i64)]);
        // The page's ids first, then their summaries: sorting whole summary rows made
        // PostgreSQL take half a second over ten thousand runs, the ids alone milliseconds.
        let ids =
            self.conn.query(&format!("SELECT id FROM runs {clause} {order} LIMIT ? OFFSET ?"), &args, |r| r.int(0))?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ranges: Vec<(i64, i64)> = ids.iter().map(|&id| (id, id)).collect();
        let mut found = self.summaries(&format!("WHERE {}", ids_condition("id", &ranges)), &[])?;
        let at: std::collections::HashMap<i64, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        found.sort_by_key(|r| at.get(&r.id).copied().unwrap_or(usize::MAX));
        Ok(found)
    }

    /// How many runs match, and the lowest and highest of their ids (`None` when none do).
    pub fn id_span(&self, filter: &Filter) -> Result<(u64, Option<(i64, i64)>), StoreError> {
        let (clause, args) = filter.where_clause();
        let sql = format!("SELECT count(*), min(id), max(id) FROM runs {clause}");
        let row = self.conn.query_first(&sql, &args, |r| Ok((r.int(0)?, r.opt_int(1)?, r.opt_int(2)?)))?;
        let (n, low, high) = row.unwrap_or((0, None, None));
        Ok((n.max(0) as u64, low.zip(high)))
    }

    /// Every matching run with its full record, oldest first, given to `each` one at a time:
    /// read a few at a time by id, so what is held is a batch, whatever the selection (its
    /// `limit` is not applied). `each`'s error stops the reading and is returned.
    pub fn each_run<E: From<StoreError>>(
        &self,
        filter: &Filter,
        mut each: impl FnMut(StoredRun) -> Result<(), E>,
    ) -> Result<(), E> {
        let (clause, args) = filter.where_clause();
        let after = if clause.is_empty() { "WHERE id > ?" } else { " AND id > ?" };
        let mut last = 0;
        loop {
            let mut batch_args = args.clone();
            batch_args.extend([Value::Int(last), Value::Int(BATCH)]);
            let batch = self.summaries(&format!("{clause}{after} ORDER BY id LIMIT ?"), &batch_args)?;
            let Some(end) = batch.last().map(|r| r.id) else { return Ok(()) };
            for summary in batch {
                each(self.with_record(summary)?)?;
            }
            last = end;
        }
    }
}

impl Store {
    /// The groups the matching runs were made in, by id.
    pub fn group_ids(&self, filter: &Filter) -> Result<Vec<i64>, StoreError> {
        let (clause, args) = filter.where_clause();
        let cond = if clause.is_empty() { "WHERE group_id IS NOT NULL" } else { " AND group_id IS NOT NULL" };
        self.conn
            .query(&format!("SELECT DISTINCT group_id FROM runs {clause}{cond} ORDER BY group_id"), &args, |r| r.int(0))
    }
}
