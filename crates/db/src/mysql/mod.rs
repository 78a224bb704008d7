//! The MariaDB/MySQL driver (mysql_async). Hammer's procedures are stored procedures,
//! `GetAccount` and `UpdateAccount`; the load is `LOAD DATA LOCAL INFILE` streamed from
//! memory over parallel connections, rows in key order so InnoDB's clustered index appends.

mod conn;
mod load;
mod session;

pub use conn::MySqlConn;
pub use load::load;
pub use session::{MySqlSession, free_connections, loaded_rows};

use crate::{DbError, DbUrl, TlsMode};
use mysql_async::{Conn, Opts, OptsBuilder, SslOpts};

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

fn opts(url: &DbUrl, tls: bool) -> Opts {
    let builder = OptsBuilder::default()
        .ip_or_hostname(url.host.clone().unwrap_or_else(|| "localhost".into()))
        .tcp_port(url.port.unwrap_or(3306))
        .user(url.user.clone())
        .pass(url.password.clone())
        .db_name(url.database.clone());
    if !tls {
        return builder.into();
    }
    // The URL's checks on mysql_async's own rustls; and no switch to the server's Unix socket,
    // which would leave TLS behind.
    let mut ssl = SslOpts::default()
        .with_danger_accept_invalid_certs(matches!(url.tls, TlsMode::Prefer | TlsMode::Require))
        .with_danger_skip_domain_validation(url.tls != TlsMode::VerifyFull);
    if let Some(root) = &url.tls_root {
        ssl = ssl.with_root_certs(vec![root.clone().into()]).with_disable_built_in_roots(true);
    }
    builder.prefer_socket(false).ssl_opts(ssl).into()
}

pub(crate) async fn connect(url: &DbUrl) -> Result<Conn, DbError> {
    let tls = url.tls != TlsMode::Disable;
    match connect_with(url, tls).await? {
        // `prefer` falls back to plaintext only when the server offers no TLS.
        Err(mysql_async::Error::Driver(mysql_async::DriverError::NoClientSslFlagFromServer))
            if url.tls == TlsMode::Prefer =>
        {
            connect_with(url, false).await?.map_err(|e| connect_error(url, e))
        }
        other => other.map_err(|e| connect_error(url, e)),
    }
}

/// One attempt: the driver's own outcome, or an error when the server never answered.
async fn connect_with(url: &DbUrl, tls: bool) -> Result<Result<Conn, mysql_async::Error>, DbError> {
    // mysql_async waits as long as the server does; a server that never answers the
    // handshake (another engine on the port) is given up after the URL's timeout.
    match tokio::time::timeout(url.connect_timeout(), Conn::new(opts(url, tls))).await {
        Ok(connected) => Ok(connected),
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
        mysql_async::Error::Driver(mysql_async::DriverError::NoClientSslFlagFromServer) => (
            e.to_string(),
            "the server does not offer TLS: configure ssl_cert and ssl_key on it, or use ssl-mode=PREFERRED or DISABLED",
        ),
        other if other.to_string().contains("not valid for name") => (
            other.to_string(),
            "the certificate was issued for another host name: connect by the name it names, or use \
             ssl-mode=VERIFY_CA to check only its authority",
        ),
        other if other.to_string().contains("certificate") => (
            other.to_string(),
            "the server's certificate is not trusted: name its authority with ssl-ca=FILE, or use ssl-mode=REQUIRED \
             to encrypt without checking it",
        ),
        other => (other.to_string(), "is the server running and reachable at that host and port?"),
    };
    DbError::Connect { db: url.to_string(), cause, hint: hint.to_string() }
}

/// A LOAD DATA LOCAL that failed, said with what to change when the server refuses it.
pub(crate) fn load_data_error(url: &DbUrl, e: mysql_async::Error) -> DbError {
    match &e {
        mysql_async::Error::Server(s) if s.code == 1148 || s.code == 3948 => DbError::Server {
            db: url.to_string(),
            cause: format!("the server refuses LOAD DATA LOCAL ({}); set local_infile = ON on the server", s.message),
        },
        _ => sql_error(url, e),
    }
}

pub(crate) fn sql_error(url: &DbUrl, e: mysql_async::Error) -> DbError {
    let cause = match &e {
        mysql_async::Error::Server(s) => s.message.clone(),
        other => other.to_string(),
    };
    DbError::Server { db: url.to_string(), cause }
}
