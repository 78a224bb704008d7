//! Hammer's procedures on PostgreSQL: prepared calls of the SQL functions, each session on a
//! lean connection of its own (`lean`: a thousand of tokio-postgres's cost 20 MB). A session
//! whose connection drops reconnects on its next call, and the run goes on.

use super::lean::{Failure, LeanConn};
use super::{connect, sql_error};
use crate::session::{AsyncSession, Backoff, CallError, ConnectionRoom};
use crate::{DbError, DbUrl};

pub struct PgSession {
    url: DbUrl,
    conn: LeanConn,
    backoff: Backoff,
}

/// Rows loaded in the Hammer tables of the database at `url`.
pub async fn loaded_rows(url: &DbUrl) -> Result<u64, DbError> {
    let client = connect(url).await?;
    let ours = client
        .query_one(
            "SELECT to_regclass('testtransaction') IS NOT NULL AND to_regclass('spindle_hammer') IS NOT NULL",
            &[],
        )
        .await
        .map_err(|e| sql_error(url, e))?
        .get::<_, bool>(0);
    let primary_key = ours
        && client
            .query_one(
                "SELECT count(*) > 0 FROM pg_constraint WHERE conrelid = 'testtransaction'::regclass AND contype = 'p'",
                &[],
            )
            .await
            .map_err(|e| sql_error(url, e))?
            .get::<_, bool>(0);
    if !primary_key {
        return Err(DbError::NotLoaded { db: url.to_string() });
    }
    let rows: i64 =
        client.query_one("SELECT count(*) FROM testtransaction", &[]).await.map_err(|e| sql_error(url, e))?.get(0);
    Ok(rows.max(0) as u64)
}

impl PgSession {
    pub async fn connect(url: &DbUrl) -> Result<PgSession, DbError> {
        let mut conn = LeanConn::connect(url).await?;
        let statements = [(GET, "SELECT * FROM getaccount($1)"), (UPDATE, "SELECT updateaccount($1, $2)")];
        conn.prepare(&statements).await.map_err(|e| DbError::Server { db: url.to_string(), cause: cause_of(&e) })?;
        Ok(PgSession { url: url.clone(), conn, backoff: Backoff::default() })
    }

    /// After a call failed on a closed connection: connect again for the next call, after
    /// the backoff's wait (a fresh session starts with none).
    async fn reconnect_if_closed(&mut self) {
        if self.conn.is_closed() {
            self.backoff.wait().await;
            // Boxed: inline, the handshake's state would size every call's future, held by
            // each of thousands of sessions for the whole run.
            match Box::pin(PgSession::connect(&self.url)).await {
                Ok(fresh) => *self = fresh,
                Err(_) => self.backoff.failed(),
            }
        }
    }

    /// One call of a prepared statement: the rows it returned, or the failure counted (the
    /// connection made again first when the failure closed it).
    async fn call(&mut self, statement: &str, params: &[&[u8]]) -> Result<u64, CallError> {
        match self.conn.execute(statement, params).await {
            Ok(rows) => Ok(rows),
            Err(e) => {
                let err = call_error(&e, self.conn.is_closed());
                self.reconnect_if_closed().await;
                Err(err)
            }
        }
    }
}

/// The names the session's statements are prepared under.
const GET: &str = "getaccount";
const UPDATE: &str = "updateaccount";

/// The server's message alone, as the tokio-postgres path gives it.
fn cause_of(e: &Failure) -> String {
    match e {
        Failure::Server(s) => s.message.clone(),
        Failure::Lost(why) => why.clone(),
    }
}

/// A failed call's kind, by its SQLSTATE: what the run counts it as.
fn call_error(e: &Failure, closed: bool) -> CallError {
    let kind = match e {
        _ if closed => "connection",
        Failure::Lost(_) => "connection",
        Failure::Server(s) => match s.code.as_str() {
            "40P01" => "deadlock",             // deadlock_detected
            "40001" => "serialization",        // serialization_failure
            "57014" => "timeout",              // query_canceled
            "55P03" => "lock timeout",         // lock_not_available
            "57P01" | "57P02" => "connection", // admin_shutdown, crash_shutdown
            _ => "server",
        },
    };
    CallError { kind: kind.into(), message: e.to_string() }
}

impl AsyncSession for PgSession {
    async fn get_account(&mut self, card_no: &str) -> Result<(), CallError> {
        match self.call(GET, &[card_no.as_bytes()]).await? {
            0 => Err(CallError { kind: "no such row".into(), message: format!("no row with CardNo {card_no}") }),
            1 => Ok(()),
            n => Err(CallError { kind: "server".into(), message: format!("{n} rows with CardNo {card_no}") }),
        }
    }

    async fn update_account(&mut self, card_no: &str, amount: i64) -> Result<(), CallError> {
        let amount = amount.to_string();
        match self.call(UPDATE, &[card_no.as_bytes(), amount.as_bytes()]).await? {
            1 => Ok(()),
            n => Err(CallError { kind: "server".into(), message: format!("updateaccount returned {n} rows") }),
        }
    }
}

/// Connections the server can still accept for a non-superuser: max_connections less the
/// superuser reserve less those open now. Asked before a run, so too many sessions is an
/// error before anything starts.
pub async fn free_connections(url: &DbUrl) -> Result<ConnectionRoom, DbError> {
    let client = connect(url).await?;
    let row = client
        .query_one(
            "SELECT current_setting('max_connections')::bigint, current_setting('superuser_reserved_connections')::bigint, \
             (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')",
            &[],
        )
        .await
        .map_err(|e| sql_error(url, e))?;
    let (max, reserved, used): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    // This connection closes before the run; it is counted in `used`, so give it back.
    Ok(ConnectionRoom { max: max.max(0) as u64, reserved: reserved.max(0) as u64, in_use: (used - 1).max(0) as u64 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::postgres::lean::ServerError;

    fn server(severity: &str, code: &str) -> Failure {
        Failure::Server(ServerError { severity: severity.into(), code: code.into(), message: "m".into() })
    }

    #[test]
    fn a_failed_call_is_counted_by_its_sqlstate_or_as_a_lost_connection() {
        let kinds: Vec<String> = [
            (server("ERROR", "40P01"), false),
            (server("ERROR", "40001"), false),
            (server("ERROR", "57014"), false),
            (server("ERROR", "55P03"), false),
            (server("FATAL", "57P01"), true),
            (server("PANIC", "57P02"), true),
            (server("ERROR", "23505"), false),
            (server("ERROR", "23505"), true),
            (Failure::Lost("reset".into()), true),
        ]
        .iter()
        .map(|(e, closed)| call_error(e, *closed).kind)
        .collect();
        let want = [
            "deadlock",
            "serialization",
            "timeout",
            "lock timeout",
            "connection",
            "connection",
            "server",
            "connection",
            "connection",
        ];
        assert_eq!(kinds, want);
        assert_eq!(call_error(&server("ERROR", "40P01"), false).message, "db error: ERROR: m (SQLSTATE 40P01)");
    }
}
