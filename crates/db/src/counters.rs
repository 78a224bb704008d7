//! Database-side counters, sampled beside a Hammer run through the counter sampler: buffer
//! cache hit ratio, commits, lock waits, deadlocks, WAL/redo bytes and checkpoints, named as
//! perfmon names SQL Server's (`\spindle:PostgreSQL\Buffer cache hit ratio`). Each source has
//! its own connection and a small runtime of its own, driven from the sampler's thread.

use crate::{DbError, DbUrl};
use mysql_async::prelude::Queryable;
use spindle_counters::CounterSource;
use std::collections::HashMap;

/// How a raw statistic becomes a counter over one interval.
#[derive(Clone, Copy)]
enum Kind {
    /// Cumulative count: the increase per second.
    Rate,
    /// Cumulative count: the increase over the interval.
    Delta,
    /// A level at the moment of reading.
    Gauge,
}

/// A counter and the raw statistic it comes from.
struct Spec {
    name: &'static str,
    raw: &'static str,
    kind: Kind,
}

/// What turns successive readings of named raw statistics into counter values.
struct Deltas {
    object: &'static str,
    specs: &'static [Spec],
    /// Raw names of (hits, misses) for the buffer cache hit ratio.
    hit_ratio: (&'static str, &'static str),
    previous: Option<HashMap<String, f64>>,
}

impl Deltas {
    fn paths(&self) -> Vec<String> {
        std::iter::once(format!("\\spindle:{}\\Buffer cache hit ratio", self.object))
            .chain(self.specs.iter().map(|s| format!("\\spindle:{}\\{}", self.object, s.name)))
            .collect()
    }

    /// The interval's values from this reading (`None` everywhere when it failed).
    fn values(&mut self, raw: Option<HashMap<String, f64>>, secs: f64) -> Vec<Option<f64>> {
        let n = self.specs.len() + 1;
        let Some(now) = raw else {
            self.previous = None;
            return vec![None; n];
        };
        let out = match &self.previous {
            None => vec![None; n],
            Some(before) => {
                let delta = |k: &str| Some(now.get(k)? - before.get(k)?).filter(|d| *d >= 0.0);
                let (hits, misses) = (delta(self.hit_ratio.0), delta(self.hit_ratio.1));
                let ratio = match (hits, misses) {
                    (Some(h), Some(m)) if h + m > 0.0 => Some(100.0 * h / (h + m)),
                    _ => None,
                };
                std::iter::once(ratio)
                    .chain(self.specs.iter().map(|s| match s.kind {
                        Kind::Rate => delta(s.raw).filter(|_| secs > 0.0).map(|d| d / secs),
                        Kind::Delta => delta(s.raw),
                        Kind::Gauge => now.get(s.raw).copied(),
                    }))
                    .collect()
            }
        };
        self.previous = Some(now);
        out
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, DbError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| DbError::Io("counter runtime".into(), e))
}

/// PostgreSQL's statistics views for the run's database.
pub struct PgCounters {
    rt: tokio::runtime::Runtime,
    client: tokio_postgres::Client,
    deltas: Deltas,
}

const PG_SPECS: &[Spec] = &[
    Spec { name: "Commits/sec", raw: "xact_commit", kind: Kind::Rate },
    Spec { name: "Rollbacks/sec", raw: "xact_rollback", kind: Kind::Rate },
    Spec { name: "Deadlocks", raw: "deadlocks", kind: Kind::Delta },
    Spec { name: "Lock waits (current)", raw: "lock_waits", kind: Kind::Gauge },
    Spec { name: "WAL bytes/sec", raw: "wal_bytes", kind: Kind::Rate },
    Spec { name: "Checkpoints", raw: "checkpoints", kind: Kind::Delta },
];

const PG_QUERY: &str = "SELECT d.blks_hit::float8, d.blks_read::float8, d.xact_commit::float8, d.xact_rollback::float8, \
     d.deadlocks::float8, (SELECT count(*) FROM pg_locks WHERE NOT granted)::float8, \
     (SELECT wal_bytes FROM pg_stat_wal)::float8, \
     (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter)::float8 \
     FROM pg_stat_database d WHERE d.datname = current_database()";

impl PgCounters {
    pub fn connect(url: &DbUrl) -> Result<PgCounters, DbError> {
        let rt = runtime()?;
        let client = rt.block_on(crate::postgres::connect(url))?;
        Ok(PgCounters {
            rt,
            client,
            deltas: Deltas {
                object: "PostgreSQL",
                specs: PG_SPECS,
                hit_ratio: ("blks_hit", "blks_read"),
                previous: None,
            },
        })
    }
}

impl CounterSource for PgCounters {
    fn paths(&self) -> Vec<String> {
        self.deltas.paths()
    }

    fn read(&mut self, secs: f64) -> Vec<Option<f64>> {
        let row = self.rt.block_on(self.client.query_one(PG_QUERY, &[])).ok();
        let raw = row.map(|r| {
            let names = [
                "blks_hit",
                "blks_read",
                "xact_commit",
                "xact_rollback",
                "deadlocks",
                "lock_waits",
                "wal_bytes",
                "checkpoints",
            ];
            names.iter().enumerate().filter_map(|(i, n)| Some((n.to_string(), r.get::<_, Option<f64>>(i)?))).collect()
        });
        self.deltas.values(raw, secs)
    }
}

/// MariaDB/MySQL's global status.
pub struct MySqlCounters {
    rt: tokio::runtime::Runtime,
    conn: mysql_async::Conn,
    deltas: Deltas,
}

const MYSQL_SPECS: &[Spec] = &[
    Spec { name: "Commits/sec", raw: "Handler_commit", kind: Kind::Rate },
    Spec { name: "Rollbacks/sec", raw: "Handler_rollback", kind: Kind::Rate },
    Spec { name: "Deadlocks", raw: "Innodb_deadlocks", kind: Kind::Delta },
    Spec { name: "Lock waits/sec", raw: "Innodb_row_lock_waits", kind: Kind::Rate },
    Spec { name: "Lock waits (current)", raw: "Innodb_row_lock_current_waits", kind: Kind::Gauge },
    Spec { name: "Redo bytes/sec", raw: "Innodb_os_log_written", kind: Kind::Rate },
    Spec { name: "Checkpoint age bytes", raw: "Innodb_checkpoint_age", kind: Kind::Gauge },
];

impl MySqlCounters {
    pub fn connect(url: &DbUrl) -> Result<MySqlCounters, DbError> {
        let rt = runtime()?;
        let conn = rt.block_on(crate::mysql::connect(url))?;
        Ok(MySqlCounters {
            rt,
            conn,
            deltas: Deltas {
                object: "MariaDB",
                specs: MYSQL_SPECS,
                // Requests served from the pool are the read requests less the disk reads.
                hit_ratio: ("Innodb_buffer_pool_read_hits", "Innodb_buffer_pool_reads"),
                previous: None,
            },
        })
    }
}

impl CounterSource for MySqlCounters {
    fn paths(&self) -> Vec<String> {
        self.deltas.paths()
    }

    fn read(&mut self, secs: f64) -> Vec<Option<f64>> {
        let rows: Option<Vec<(String, String)>> = self.rt.block_on(self.conn.query("SHOW GLOBAL STATUS")).ok();
        let raw = rows.map(|rows| {
            let mut raw: HashMap<String, f64> =
                rows.into_iter().filter_map(|(k, v)| Some((k, v.parse::<f64>().ok()?))).collect();
            if let (Some(req), Some(reads)) =
                (raw.get("Innodb_buffer_pool_read_requests"), raw.get("Innodb_buffer_pool_reads"))
            {
                let hits = req - reads;
                raw.insert("Innodb_buffer_pool_read_hits".into(), hits);
            }
            raw
        });
        self.deltas.values(raw, secs)
    }
}

/// SQLite's figures: lock-wait retries of the run's sessions, and the WAL file's size.
pub struct SqliteCounters {
    wal: std::path::PathBuf,
    previous: Option<u64>,
}

impl SqliteCounters {
    pub fn new(path: &std::path::Path) -> SqliteCounters {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        SqliteCounters { wal: wal.into(), previous: None }
    }
}

impl CounterSource for SqliteCounters {
    fn paths(&self) -> Vec<String> {
        vec!["\\spindle:SQLite\\Busy retries/sec".into(), "\\spindle:SQLite\\WAL file bytes".into()]
    }

    fn read(&mut self, secs: f64) -> Vec<Option<f64>> {
        let now = crate::sqlite::busy_retries();
        let rate = self.previous.filter(|_| secs > 0.0).map(|p| now.saturating_sub(p) as f64 / secs);
        self.previous = Some(now);
        vec![rate, std::fs::metadata(&self.wal).ok().map(|m| m.len() as f64)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_deltas_gauges_and_the_hit_ratio() {
        const SPECS: &[Spec] = &[
            Spec { name: "Commits/sec", raw: "c", kind: Kind::Rate },
            Spec { name: "Deadlocks", raw: "d", kind: Kind::Delta },
            Spec { name: "Waits", raw: "w", kind: Kind::Gauge },
        ];
        let mut d = Deltas { object: "Test", specs: SPECS, hit_ratio: ("h", "m"), previous: None };
        assert_eq!(d.paths()[0], "\\spindle:Test\\Buffer cache hit ratio");
        let raw = |h: f64, m: f64, c: f64, dl: f64, w: f64| {
            Some(
                [("h", h), ("m", m), ("c", c), ("d", dl), ("w", w)]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            )
        };
        assert_eq!(d.values(raw(100.0, 10.0, 50.0, 0.0, 1.0), 1.0), vec![None; 4], "the first reading is a baseline");
        assert_eq!(
            d.values(raw(190.0, 20.0, 150.0, 2.0, 3.0), 2.0),
            vec![Some(90.0), Some(50.0), Some(2.0), Some(3.0)]
        );
        assert_eq!(d.values(None, 1.0), vec![None; 4], "a failed reading");
        assert_eq!(d.values(raw(0.0, 0.0, 0.0, 0.0, 0.0), 1.0), vec![None; 4], "after a failure, a new baseline");
    }
}
