//! MariaDB's and MySQL's status counters.

use super::{Deltas, Kind, Spec, runtime};
use crate::{DbError, DbUrl};
use mysql_async::prelude::Queryable;
use spindle_counters::CounterSource;
use std::collections::HashMap;

/// MariaDB/MySQL's global status.
pub struct MySqlCounters {
    rt: tokio::runtime::Runtime,
    conn: mysql_async::Conn,
    deltas: Deltas,
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
        let rt = runtime()?;
        let mut conn = rt.block_on(crate::mysql::connect(url))?;
        let on: Option<i64> = rt.block_on(conn.query_first("SELECT @@performance_schema")).ok().flatten();
        Ok(MySqlCounters {
            rt,
            conn,
            performance_schema: on == Some(1),
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
        let latch_ms: Option<f64> = if self.performance_schema {
            self.rt.block_on(self.conn.query_first(LATCH_WAITS)).ok().flatten()
        } else {
            None
        };
        let raw = rows.map(|rows| {
            let mut raw: HashMap<String, f64> =
                rows.into_iter().filter_map(|(k, v)| Some((k, v.parse::<f64>().ok()?))).collect();
            if let (Some(req), Some(reads)) =
                (raw.get("Innodb_buffer_pool_read_requests"), raw.get("Innodb_buffer_pool_reads"))
            {
                let hits = req - reads;
                raw.insert("Innodb_buffer_pool_read_hits".into(), hits);
            }
            if let Some(ms) = latch_ms {
                raw.insert("latch_wait_ms".into(), ms);
            }
            raw
        });
        self.deltas.values(raw, secs)
    }
}
