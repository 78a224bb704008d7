//! Hammer's procedures on PostgreSQL: prepared calls of the SQL functions. A session whose
//! connection drops reconnects on its next call, and the run goes on.

use super::{connect, sql_error};
use crate::session::{AsyncSession, Backoff, CallError, ConnectionRoom};
use crate::{DbError, DbUrl};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Statement};

pub struct PgSession {
    url: DbUrl,
    client: Client,
    get: Statement,
    update: Statement,
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
        let client = connect(url).await?;
        let get = client.prepare("SELECT * FROM getaccount($1)").await.map_err(|e| sql_error(url, e))?;
        let update = client.prepare("SELECT updateaccount($1, $2)").await.map_err(|e| sql_error(url, e))?;
        Ok(PgSession { url: url.clone(), client, get, update, backoff: Backoff::default() })
    }

    /// After a call failed on a closed connection: connect again for the next call, after
    /// the backoff's wait (a fresh session starts with none).
    async fn reconnect_if_closed(&mut self) {
        if self.client.is_closed() {
            self.backoff.wait().await;
            // Boxed: inline, the handshake's state would size every call's future, held by
            // each of thousands of sessions for the whole run.
            match Box::pin(PgSession::connect(&self.url)).await {
                Ok(fresh) => *self = fresh,
                Err(_) => self.backoff.failed(),
            }
        }
    }
}

fn call_error(e: &tokio_postgres::Error, closed: bool) -> CallError {
    let kind = if closed {
        "connection"
    } else {
        match e.code() {
            Some(c) if *c == SqlState::T_R_DEADLOCK_DETECTED => "deadlock",
            Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE => "serialization",
            Some(c) if *c == SqlState::QUERY_CANCELED => "timeout",
            Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE => "lock timeout",
            Some(c) if *c == SqlState::ADMIN_SHUTDOWN || *c == SqlState::CRASH_SHUTDOWN => "connection",
            _ => "server",
        }
    };
    CallError { kind: kind.into(), message: e.to_string() }
}

impl AsyncSession for PgSession {
    async fn get_account(&mut self, card_no: &str) -> Result<(), CallError> {
        let result = self.client.query_opt(&self.get, &[&card_no]).await;
        match result {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err(CallError { kind: "no such row".into(), message: format!("no row with CardNo {card_no}") }),
            Err(e) => {
                let err = call_error(&e, self.client.is_closed());
                self.reconnect_if_closed().await;
                Err(err)
            }
        }
    }

    async fn update_account(&mut self, card_no: &str, amount: i64) -> Result<(), CallError> {
        let result = self.client.query_one(&self.update, &[&card_no, &amount]).await;
        match result {
            Ok(_) => Ok(()),
            Err(e) => {
                let err = call_error(&e, self.client.is_closed());
                self.reconnect_if_closed().await;
                Err(err)
            }
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
