//! The MariaDB/MySQL driver (mysql_async). Hammer's procedures are stored procedures,
//! `GetAccount` and `UpdateAccount`; the load is `LOAD DATA LOCAL INFILE` streamed from
//! memory over parallel connections, rows in key order so InnoDB's clustered index appends.

mod conn;
mod load;
mod session;

pub use conn::MySqlConn;
pub use load::load;
pub use session::{MySqlSession, free_connections, loaded_rows};

use crate::{DbError, DbUrl};
use mysql_async::{Conn, Opts, OptsBuilder};

/// Hammer's table: InnoDB clusters it on CardNo as the original's clustered key; CardNo is
/// ASCII with binary collation (digits compare as bytes); Amount a bigint of 1/10000 units,
/// as on the other engines.
const CREATE_TABLE: &str = "CREATE TABLE IF NOT EXISTS TestTransaction (
    CardNo CHAR(15) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
    ChargeDate DATETIME NOT NULL,
    Amount BIGINT NOT NULL
) ENGINE = InnoDB";

const CREATE_MARKER: &str =
    "CREATE TABLE IF NOT EXISTS spindle_hammer (`key` VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL) ENGINE = InnoDB";

/// The parameters carry the column's character set and collation: with the server's default
/// (utf8mb4) the comparison converts every row and scans the table (0.45 s a call at 2M rows
/// instead of a key lookup).
const CREATE_PROCEDURES: [&str; 4] = [
    "DROP PROCEDURE IF EXISTS GetAccount",
    "CREATE PROCEDURE GetAccount(IN p_cardno CHAR(15) CHARACTER SET ascii COLLATE ascii_bin)
        SELECT ChargeDate, Amount FROM TestTransaction WHERE CardNo = p_cardno",
    "DROP PROCEDURE IF EXISTS UpdateAccount",
    "CREATE PROCEDURE UpdateAccount(IN p_cardno CHAR(15) CHARACTER SET ascii COLLATE ascii_bin, IN p_amount BIGINT)
     BEGIN
        START TRANSACTION;
        UPDATE TestTransaction SET Amount = Amount + p_amount, ChargeDate = NOW() WHERE CardNo = p_cardno;
        COMMIT;
     END",
];

fn opts(url: &DbUrl) -> Opts {
    OptsBuilder::default()
        .ip_or_hostname(url.host.clone().unwrap_or_else(|| "localhost".into()))
        .tcp_port(url.port.unwrap_or(3306))
        .user(url.user.clone())
        .pass(url.password.clone())
        .db_name(url.database.clone())
        .into()
}

pub(crate) async fn connect(url: &DbUrl) -> Result<Conn, DbError> {
    // mysql_async waits as long as the server does; a server that never answers the
    // handshake (another engine on the port) is given up after the URL's timeout.
    match tokio::time::timeout(url.connect_timeout(), Conn::new(opts(url))).await {
        Ok(connected) => connected.map_err(|e| connect_error(url, e)),
        Err(_) => Err(DbError::Connect {
            db: url.to_string(),
            cause: format!("no answer within {} s", url.connect_timeout().as_secs()),
            hint: "is a MySQL or MariaDB server listening at that host and port? (connect_timeout=N in the URL waits longer)".into(),
        }),
    }
}

/// A failed connection, said with the cause and what to change (the URL masked).
fn connect_error(url: &DbUrl, e: mysql_async::Error) -> DbError {
    let (cause, hint) = match &e {
        mysql_async::Error::Server(s) => (
            s.message.clone(),
            match s.code {
                1045 => "check the user and password in --db",
                1044 | 1049 => "create the database, or name another in --db",
                1040 => "the server's max_connections is reached: use fewer --sessions, or raise it",
                _ => "see the server's message",
            },
        ),
        other => (other.to_string(), "is the server running and reachable at that host and port?"),
    };
    DbError::Connect { db: url.to_string(), cause, hint: hint.to_string() }
}

pub(crate) fn sql_error(url: &DbUrl, e: mysql_async::Error) -> DbError {
    let cause = match &e {
        mysql_async::Error::Server(s) => s.message.clone(),
        other => other.to_string(),
    };
    DbError::Server { db: url.to_string(), cause }
}
