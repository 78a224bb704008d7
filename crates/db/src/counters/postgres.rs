//! PostgreSQL's statistics views as counters.

use super::{Deltas, Kind, Spec, runtime};
use crate::{DbError, DbUrl};
use spindle_counters::CounterSource;

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
