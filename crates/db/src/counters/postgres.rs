//! PostgreSQL's statistics views as counters.

use super::{Kind, RawStats, ServerCounters, Spec};
use crate::{DbError, DbUrl};
use std::collections::HashMap;

/// PostgreSQL's statistics views for the run's database.
pub type PgCounters = ServerCounters<PgStats>;

/// The connection the views are read on.
pub struct PgStats {
    client: tokio_postgres::Client,
}

const PG_SPECS: &[Spec] = &[
    Spec { name: "Commits/sec", raw: "xact_commit", kind: Kind::Rate },
    Spec { name: "Rollbacks/sec", raw: "xact_rollback", kind: Kind::Rate },
    Spec { name: "Deadlocks", raw: "deadlocks", kind: Kind::Delta },
    Spec { name: "Lock waits (current)", raw: "lock_waits", kind: Kind::Gauge },
    Spec { name: "WAL bytes/sec", raw: "wal_bytes", kind: Kind::Rate },
    Spec { name: "Checkpoints", raw: "checkpoints", kind: Kind::Delta },
    // What the database's sessions wait on, sampled from pg_stat_activity at each reading: a
    // mean of these over a run is seconds of waiting per second (SQL Server's lock wait time
    // and latch waits, which "Database Hammer" read beside the disk queue).
    Spec { name: "Sessions waiting on locks", raw: "waiting_lock", kind: Kind::Gauge },
    Spec { name: "Sessions waiting on latches (LWLock)", raw: "waiting_lwlock", kind: Kind::Gauge },
    Spec { name: "Sessions waiting on I/O", raw: "waiting_io", kind: Kind::Gauge },
];
/// Raw statistics in the order `PG_QUERY` returns them.
const PG_COLUMNS: [&str; 11] = [
    "blks_hit",
    "blks_read",
    "xact_commit",
    "xact_rollback",
    "deadlocks",
    "lock_waits",
    "wal_bytes",
    "checkpoints",
    "waiting_lock",
    "waiting_lwlock",
    "waiting_io",
];

const PG_QUERY: &str = "SELECT d.blks_hit::float8, d.blks_read::float8, d.xact_commit::float8, d.xact_rollback::float8, \
     d.deadlocks::float8, (SELECT count(*) FROM pg_locks WHERE NOT granted)::float8, \
     (SELECT wal_bytes FROM pg_stat_wal)::float8, \
     (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter)::float8, \
     w.lock, w.lwlock, w.io \
     FROM pg_stat_database d, LATERAL (SELECT \
       count(*) FILTER (WHERE a.wait_event_type = 'Lock')::float8 AS lock, \
       count(*) FILTER (WHERE a.wait_event_type = 'LWLock')::float8 AS lwlock, \
       count(*) FILTER (WHERE a.wait_event_type = 'IO')::float8 AS io \
       FROM pg_stat_activity a WHERE a.datname = current_database() AND a.state = 'active' \
       AND a.pid <> pg_backend_pid()) w \
     WHERE d.datname = current_database()";

impl PgCounters {
    pub fn connect(url: &DbUrl) -> Result<PgCounters, DbError> {
        let rt = crate::conn::runtime("counter runtime")?;
        let client = rt.block_on(crate::postgres::connect(url))?;
        // Named, so the server's count of sessions (a run of agents' tally) leaves it out.
        let name = format!("SET application_name = '{}'", crate::hammer::tally::COUNTERS_APPLICATION);
        rt.block_on(client.batch_execute(&name)).map_err(|e| crate::postgres::sql_error(url, e))?;
        Ok(ServerCounters::new(rt, PgStats { client }, "PostgreSQL", PG_SPECS, ("blks_hit", "blks_read")))
    }
}

impl RawStats for PgStats {
    fn read_raw(&mut self, rt: &tokio::runtime::Runtime) -> Option<HashMap<String, f64>> {
        let row = rt.block_on(self.client.query_one(PG_QUERY, &[])).ok()?;
        Some(
            PG_COLUMNS
                .iter()
                .enumerate()
                .filter_map(|(i, n)| Some((n.to_string(), row.try_get::<_, Option<f64>>(i).ok()??)))
                .collect(),
        )
    }
}
