//! The server's own count of Hammer's work, read at the edges of a measured window, as
//! HammerDB's primary snapshots it around a run of many clients: the transactions it
//! committed or rolled back (PostgreSQL's `pg_stat_database`, every call is a transaction
//! there) or committed (MariaDB's `Com_commit`: only UpdateAccount commits; GetAccount's
//! select takes none), and the sessions connected to the database. Set beside the sum of the
//! agents' own counts, it shows that no client's calls were lost or counted twice.

use crate::conn::Conn;
use crate::{DbError, Engine};

/// The application name of the connection an engine's counters are read on (PostgreSQL): the
/// sessions counted at a run's start leave it out. MariaDB's counters connection is left out
/// by joining no database (`counters::MySqlCounters::connect`): its sessions are counted by
/// their database.
pub const COUNTERS_APPLICATION: &str = "spindle counters";

/// What the server counts, and which of Hammer's calls that covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    /// The counter, named as the server names it.
    pub counter: &'static str,
    /// Whether GetAccount's calls are in it (UpdateAccount's always are).
    pub reads: bool,
}

/// The server's counter for `engine`; `None` where there is no server (SQLite).
pub fn counted(engine: Engine) -> Option<Counted> {
    match engine {
        Engine::Postgres => Some(Counted { counter: "pg_stat_database xact_commit + xact_rollback", reads: true }),
        Engine::MySql => Some(Counted { counter: "Com_commit", reads: false }),
        Engine::Sqlite => None,
    }
}

/// The counter's value and the sessions connected to the database now (this one aside).
pub fn read(conn: &mut dyn Conn) -> Result<(u64, u64), DbError> {
    let sql = match conn.engine() {
        Engine::Postgres => format!(
            "SELECT (xact_commit + xact_rollback)::text || ' ' || (SELECT count(*) FROM pg_stat_activity \
             WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() \
             AND application_name <> '{COUNTERS_APPLICATION}')::text \
             FROM pg_stat_database WHERE datname = current_database()"
        ),
        Engine::MySql => "SELECT CONCAT((SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'COM_COMMIT'), \
             ' ', (SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()))"
            .to_string(),
        Engine::Sqlite => return Ok((0, 0)),
    };
    let text = conn.query_text(&sql)?.unwrap_or_default();
    let mut numbers = text.split_whitespace().map(str::parse::<u64>);
    match (numbers.next(), numbers.next()) {
        (Some(Ok(count)), Some(Ok(sessions))) => Ok((count, sessions)),
        _ => Err(DbError::Server {
            db: conn.shown(),
            cause: format!("its count of transactions and sessions read as {text:?}"),
        }),
    }
}
