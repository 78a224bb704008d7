//! Hammer's procedures on MariaDB/MySQL: prepared `CALL`s. A session whose connection drops
//! reconnects on its next call, and the run goes on.

use super::{connect, sql_error};
use crate::session::{AsyncSession, Backoff, CallError, ConnectionRoom};
use crate::{DbError, DbUrl};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Statement};

pub struct MySqlSession {
    url: DbUrl,
    conn: Option<Conn>,
    get: Statement,
    update: Statement,
    backoff: Backoff,
}

/// Rows loaded in the Hammer tables of the database at `url`.
pub async fn loaded_rows(url: &DbUrl) -> Result<u64, DbError> {
    let mut conn = connect(url).await?;
    let sql = |e| sql_error(url, e);
    let tables: Option<i64> = conn
        .query_first(
            "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() \
             AND TABLE_NAME IN ('TestTransaction', 'spindle_hammer')",
        )
        .await
        .map_err(sql)?;
    let complete: Option<i64> = if tables == Some(2) {
        conn.query_first("SELECT COUNT(*) FROM spindle_hammer WHERE `key` = 'complete'").await.map_err(sql)?
    } else {
        None
    };
    if complete != Some(1) {
        return Err(DbError::NotLoaded { db: url.to_string() });
    }
    let rows: Option<i64> = conn.query_first("SELECT COUNT(*) FROM TestTransaction").await.map_err(sql)?;
    Ok(rows.unwrap_or(0).max(0) as u64)
}

/// Connections the server can still accept: max_connections less those open now (MariaDB
/// keeps one more for SUPER on top, outside max_connections).
pub async fn free_connections(url: &DbUrl) -> Result<ConnectionRoom, DbError> {
    let mut conn = connect(url).await?;
    let row: Option<(i64, i64)> = conn
        .query_first("SELECT @@max_connections, (SELECT COUNT(*) FROM information_schema.PROCESSLIST)")
        .await
        .map_err(|e| sql_error(url, e))?;
    let (max, used) = row.unwrap_or((0, 0));
    // This connection closes before the run.
    Ok(ConnectionRoom { max: max.max(0) as u64, reserved: 0, in_use: (used - 1).max(0) as u64 })
}

impl MySqlSession {
    pub async fn connect(url: &DbUrl) -> Result<MySqlSession, DbError> {
        let mut conn = connect(url).await?;
        let get = conn.prep("CALL GetAccount(?)").await.map_err(|e| sql_error(url, e))?;
        let update = conn.prep("CALL UpdateAccount(?, ?)").await.map_err(|e| sql_error(url, e))?;
        Ok(MySqlSession { url: url.clone(), conn: Some(conn), get, update, backoff: Backoff::default() })
    }

    /// After a call failed on a broken connection: connect again for the next call, after
    /// the backoff's wait (a fresh session starts with none).
    async fn reconnect(&mut self) {
        self.backoff.wait().await;
        // Boxed: inline, the handshake's state would size every call's future, held by each
        // of thousands of sessions for the whole run.
        match Box::pin(MySqlSession::connect(&self.url)).await {
            Ok(fresh) => *self = fresh,
            Err(_) => self.backoff.failed(),
        }
    }

    async fn fail(&mut self, e: mysql_async::Error) -> CallError {
        let kind = match &e {
            mysql_async::Error::Server(s) => match s.code {
                1213 => "deadlock",
                1205 => "lock timeout",
                1317 | 3024 => "timeout",
                _ => "server",
            },
            _ => "connection",
        };
        if kind == "connection" {
            self.conn = None;
            self.reconnect().await;
        }
        CallError { kind: kind.into(), message: e.to_string() }
    }
}

fn no_connection() -> CallError {
    CallError { kind: "connection".into(), message: "not connected (reconnecting failed)".into() }
}

impl AsyncSession for MySqlSession {
    async fn get_account(&mut self, card_no: &str) -> Result<(), CallError> {
        let Some(conn) = self.conn.as_mut() else {
            self.reconnect().await;
            return Err(no_connection());
        };
        let result: Result<Option<(mysql_async::Value, i64)>, _> = conn.exec_first(&self.get, (card_no,)).await;
        match result {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err(CallError { kind: "no such row".into(), message: format!("no row with CardNo {card_no}") }),
            Err(e) => Err(self.fail(e).await),
        }
    }

    async fn update_account(&mut self, card_no: &str, amount: i64) -> Result<(), CallError> {
        let Some(conn) = self.conn.as_mut() else {
            self.reconnect().await;
            return Err(no_connection());
        };
        match conn.exec_drop(&self.update, (card_no, amount)).await {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(e).await),
        }
    }
}
