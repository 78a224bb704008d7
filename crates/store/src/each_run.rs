//! Reading many runs' records without holding them: the records of the matching runs are read
//! a batch at a time, without the parts a run's summary figures do not need, and each is handed over parsed and dropped before the next batch is
//! read, so a command over thousands of runs (compare) holds one batch, whatever the number
//! that match. Batches rather than one statement stepped to its end: the PostgreSQL client
//! receives a statement's every row before it returns, and a batch of ids is the same
//! statement on both backends.

use crate::backend::{Dialect, Value};
use crate::{Filter, GroupKind, Store, StoreError, StoredRun};
use std::collections::HashMap;

/// Records read by one statement: a few MB of JSON at most (a record with its histograms and
/// series is tens of KB).
const BATCH: usize = 64;

impl Store {
    /// Every matching run, oldest first, handed to `each` one at a time, its record without
    /// the per-target and per-thread results and the counters (left empty: four fifths of a
    /// record, which SQLite drops before they are read): what a run's summary figures,
    /// spec, environment and labels are read from. At most one batch of records is held at
    /// once. Stops at the first error `each` returns.
    pub fn each_run_summarized<E: From<StoreError>>(
        &self,
        filter: &Filter,
        mut each: impl FnMut(StoredRun) -> Result<(), E>,
    ) -> Result<(), E> {
        let summarized = match self.conn.dialect() {
            Dialect::Sqlite => {
                "json_remove(json_set(json, '$.targets', json('[]'), '$.threads', json('[]')), '$.counters')"
            }
            // Dropping them there parses each record as jsonb, which took longer than sending
            // them whole (12.4 s against 10.3 s for 10,000 records, at the lower load of the
            // two): they are dropped here.
            Dialect::Postgres => "json",
        };
        let mut summaries = self.list(filter)?.into_iter().peekable();
        while summaries.peek().is_some() {
            let batch: Vec<_> = summaries.by_ref().take(BATCH).collect();
            let ids: Vec<String> = batch.iter().map(|s| s.id.to_string()).collect();
            // The ids are numbers read from the store, so they are written into the text.
            let sql = format!("SELECT run_id, {summarized} FROM records WHERE run_id IN ({})", ids.join(","));
            let mut texts: HashMap<i64, String> =
                self.conn.query(&sql, &[], |r| Ok((r.int(0)?, r.text(1)?)))?.into_iter().collect();
            for summary in batch {
                let mut record = record_of(summary.id, texts.remove(&summary.id))?;
                (record.targets, record.threads, record.counters) = (Vec::new(), Vec::new(), None);
                each(StoredRun { summary, record })?;
            }
        }
        Ok(())
    }

    /// The ids of every group of `kind` that holds a run on `hostname` of one of `workloads`
    /// (the workload in words, as `runs list` shows it), oldest first: the groups a comparison
    /// reads to estimate how much this host drifts between groups.
    pub fn group_ids_like(
        &self,
        kind: GroupKind,
        hostname: &str,
        workloads: &[String],
    ) -> Result<Vec<i64>, StoreError> {
        if workloads.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; workloads.len()].join(", ");
        let sql = format!(
            "SELECT DISTINCT r.group_id FROM runs r JOIN groups g ON g.id = r.group_id
             WHERE g.kind = ? AND r.hostname = ? AND r.workload IN ({marks}) ORDER BY r.group_id"
        );
        let mut args: Vec<Value> = vec![kind.name().into(), hostname.into()];
        args.extend(workloads.iter().map(|w| w.as_str().into()));
        self.conn.query(&sql, &args, |r| r.int(0))
    }
}

/// Run `id`'s record parsed from its stored JSON text (`None`: the record's row is missing).
pub(crate) fn record_of(id: i64, json: Option<String>) -> Result<spindle_model::RunRecord, StoreError> {
    let json = json.ok_or(StoreError::Corrupt { id, why: "its record is missing".into() })?;
    serde_json::from_str(&json).map_err(|e| StoreError::Corrupt { id, why: e.to_string() })
}

#[cfg(test)]
mod tests {
    use crate::tests::each_backend;
    use crate::*;
    use spindle_model::fixtures::io_run;

    #[test]
    fn each_run_summarized_hands_over_the_runs_load_all_loads_a_batch_at_a_time() {
        for scratch in each_backend() {
            each_run_in(Store::open(&scratch.at).unwrap());
        }
    }

    fn each_run_in(mut store: Store) {
        let g = store.new_group(GroupKind::Repeat, "raid 5", "2026-11-23T10:00:00Z").unwrap();
        // More runs than a batch holds, two of every three of one label.
        let runs: Vec<_> = (0..(2 * super::BATCH + 7))
            .map(|i| {
                let raid = if i % 3 == 0 { "10" } else { "5" };
                io_run(&[100.0 + i as f64], 200_000, &[("raid", raid)])
            })
            .collect();
        let place = Placement { group: Some(g), point: None, repeat: 1 };
        let placed: Vec<_> = runs.iter().map(|r| (r, place.clone())).collect();
        store.save_all(&placed).unwrap();
        let raid5 = Filter { labels: vec![("raid".into(), "5".into())], ..Filter::default() };
        let loaded = store.load_all(&raid5).unwrap();
        let mut handed = Vec::new();
        store
            .each_run_summarized(&raid5, |r| {
                handed.push((r.summary, r.record));
                Ok::<_, StoreError>(())
            })
            .unwrap();
        assert!(loaded.len() > super::BATCH);
        let summarized = |mut r: StoredRun| {
            assert!(!r.record.targets.is_empty() && !r.record.threads.is_empty());
            (r.record.targets, r.record.threads, r.record.counters) = (Vec::new(), Vec::new(), None);
            (r.summary, r.record)
        };
        assert_eq!(handed, loaded.into_iter().map(summarized).collect::<Vec<_>>());
        // What `each` refuses stops the reading.
        let mut seen = 0;
        let stopped = store.each_run_summarized(&raid5, |_| {
            seen += 1;
            if seen == 3 { Err(StoreError::NoSuchRun(0)) } else { Ok(()) }
        });
        assert!(matches!(stopped, Err(StoreError::NoSuchRun(0))) && seen == 3);
        let host = &handed[0].0.hostname;
        assert_eq!(store.group_ids_like(GroupKind::Repeat, host, &[handed[0].0.workload.clone()]).unwrap(), [g]);
        assert!(store.group_ids_like(GroupKind::Sweep, host, &[handed[0].0.workload.clone()]).unwrap().is_empty());
    }
}
