//! MariaDB's and MySQL's status counters.

use super::{Kind, RawStats, ServerCounters, Spec};
use crate::{DbError, DbUrl};
use mysql_async::prelude::Queryable;
use std::collections::HashMap;

/// MariaDB/MySQL's global status.
pub type MySqlCounters = ServerCounters<MySqlStats>;

/// The connection the status is read on.
pub struct MySqlStats {
    conn: mysql_async::Conn,
    /// Whether performance_schema is on (its wait timers then say how long latches held).
    performance_schema: bool,
}

/// Every mutex and rwlock wait performance_schema has timed, in milliseconds (its timers
/// count picoseconds).
const LATCH_WAITS: &str = "SELECT CAST(COALESCE(SUM(SUM_TIMER_WAIT), 0) / 1e9 AS DOUBLE) \
     FROM performance_schema.events_waits_summary_global_by_event_name WHERE EVENT_NAME LIKE 'wait/synch/%'";

const MYSQL_SPECS: &[Spec] = &[
    Spec { name: "Commits/sec", raw: "Handler_commit", kind: Kind::Rate },
    Spec { name: "Rollbacks/sec", raw: "Handler_rollback", kind: Kind::Rate },
    Spec { name: "Deadlocks", raw: "Innodb_deadlocks", kind: Kind::Delta },
    Spec { name: "Lock waits/sec", raw: "Innodb_row_lock_waits", kind: Kind::Rate },
    Spec { name: "Lock waits (current)", raw: "Innodb_row_lock_current_waits", kind: Kind::Gauge },
    // Milliseconds spent waiting for row locks, a second: SQL Server's lock wait time.
    Spec { name: "Row lock wait ms/sec", raw: "Innodb_row_lock_time", kind: Kind::Rate },
    // Milliseconds spent in mutex and rwlock waits, a second (performance_schema's
    // wait/synch events; absent when performance_schema is off): SQL Server's latch waits.
    Spec { name: "Latch wait ms/sec", raw: "latch_wait_ms", kind: Kind::Rate },
    Spec { name: "Redo bytes/sec", raw: "Innodb_os_log_written", kind: Kind::Rate },
    Spec { name: "Checkpoint age bytes", raw: "Innodb_checkpoint_age", kind: Kind::Gauge },
];

impl MySqlCounters {
    pub fn connect(url: &DbUrl) -> Result<MySqlCounters, DbError> {
        let rt = crate::conn::runtime("counter runtime")?;
        // It reads the server's global status only, so it joins no database: the sessions a
        // run of agents' tally counts are those of the run's database (PROCESSLIST's DB), and a
        // connection of no database is none of them. MariaDB has no connection name the server
        // shows without performance_schema (off by default), so this is its mark.
        let serverwide = DbUrl { database: None, ..url.clone() };
        let mut conn = rt.block_on(crate::mysql::connect(&serverwide))?;
        let on: Option<i64> = rt.block_on(conn.query_first("SELECT @@performance_schema")).ok().flatten();
        let stats = MySqlStats { conn, performance_schema: on == Some(1) };
        // Requests served from the pool are the read requests less the disk reads.
        let hit_ratio = ("Innodb_buffer_pool_read_hits", "Innodb_buffer_pool_reads");
        Ok(ServerCounters::new(rt, stats, "MariaDB", MYSQL_SPECS, hit_ratio))
    }
}

impl RawStats for MySqlStats {
    fn read_raw(&mut self, rt: &tokio::runtime::Runtime) -> Option<HashMap<String, f64>> {
        let rows: Option<Vec<(String, String)>> = rt.block_on(self.conn.query("SHOW GLOBAL STATUS")).ok();
        let latch_ms: Option<f64> =
            if self.performance_schema { rt.block_on(self.conn.query_first(LATCH_WAITS)).ok().flatten() } else { None };
        let mut raw: HashMap<String, f64> =
            rows?.into_iter().filter_map(|(k, v)| Some((k, v.parse::<f64>().ok()?))).collect();
        if let (Some(req), Some(reads)) =
            (raw.get("Innodb_buffer_pool_read_requests"), raw.get("Innodb_buffer_pool_reads"))
        {
            let hits = req - reads;
            raw.insert("Innodb_buffer_pool_read_hits".into(), hits);
        }
        if let Some(ms) = latch_ms {
            raw.insert("latch_wait_ms".into(), ms);
        }
        Some(raw)
    }
}
