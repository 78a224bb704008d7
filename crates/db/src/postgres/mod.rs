//! The PostgreSQL driver: tokio-postgres, and for Hammer's sessions a lean connection of
//! their own (`lean`, see there why). Hammer's procedures are SQL functions,
//! `getaccount` and `updateaccount`; the load is binary COPY over parallel connections with
//! the primary key built afterwards, as `pgbench -i -I dtgp` does.

mod conn;
mod lean;
mod load;
mod session;

pub use conn::PgConn;
pub use load::load;
pub use session::{PgSession, free_connections, loaded_rows};

use crate::{DbError, DbUrl, TlsMode};
#[cfg(feature = "tls")]
use tokio_postgres::config::SslMode;
use tokio_postgres::{Client, Config, NoTls};

/// Hammer's table. `char(15)` as the original, collated "C": card numbers are digits, so byte
/// order is their order, and the primary key builds without locale-aware comparisons (16 s
/// to 11.8 s for 10M rows here). ChargeDate a timestamp; Amount a bigint of 1/10000 units
/// (money's scale), exact and cheap to COPY.
const CREATE_TABLE: &str = "CREATE TABLE IF NOT EXISTS testtransaction (
    cardno char(15) COLLATE \"C\" NOT NULL,
    chargedate timestamp NOT NULL,
    amount bigint NOT NULL
)";

/// Marks the tables as spindle's, and records which load chunks are complete.
const CREATE_MARKER: &str = "CREATE TABLE IF NOT EXISTS spindle_hammer (key text PRIMARY KEY, value text NOT NULL)";

const CREATE_FUNCTIONS: &str = "
CREATE OR REPLACE FUNCTION getaccount(p_cardno char(15)) RETURNS TABLE (chargedate timestamp, amount bigint)
    LANGUAGE sql STABLE AS $$ SELECT chargedate, amount FROM testtransaction WHERE cardno = p_cardno $$;
CREATE OR REPLACE FUNCTION updateaccount(p_cardno char(15), p_amount bigint) RETURNS void
    LANGUAGE sql AS $$ UPDATE testtransaction SET amount = amount + p_amount, chargedate = now() WHERE cardno = p_cardno $$;";

fn config(url: &DbUrl) -> Config {
    let mut c = Config::new();
    c.host(url.host.as_deref().unwrap_or("localhost"));
    if let Some(p) = url.port {
        c.port(p);
    }
    if let Some(u) = &url.user {
        c.user(u);
    }
    if let Some(p) = &url.password {
        c.password(p);
    }
    if let Some(d) = &url.database {
        c.dbname(d);
    }
    c.application_name("spindle");
    c.connect_timeout(url.connect_timeout());
    c
}

/// Connects (over TLS when the URL asks), running the connection's I/O on the current
/// runtime. The connection ends when the client is dropped or the server goes away; sessions
/// see the latter as a closed client and reconnect.
pub async fn connect(url: &DbUrl) -> Result<Client, DbError> {
    let config = config(url);
    if url.tls == TlsMode::Disable {
        let (client, connection) = config.connect(NoTls).await.map_err(|e| connect_error(url, e))?;
        tokio::spawn(connection);
        return Ok(client);
    }
    connect_tls(url, config).await
}

#[cfg(feature = "tls")]
async fn connect_tls(url: &DbUrl, mut config: tokio_postgres::Config) -> Result<Client, DbError> {
    config.ssl_mode(if url.tls == TlsMode::Prefer { SslMode::Prefer } else { SslMode::Require });
    let tls = tokio_postgres_rustls::MakeRustlsConnect::new(crate::tls::client_config(url)?);
    let (client, connection) = config.connect(tls).await.map_err(|e| connect_error(url, e))?;
    tokio::spawn(connection);
    Ok(client)
}

/// A build without TLS: `built::check` refused the URL before it came here.
#[cfg(not(feature = "tls"))]
async fn connect_tls(url: &DbUrl, _: tokio_postgres::Config) -> Result<Client, DbError> {
    Err(DbError::NotBuilt { db: url.to_string(), what: "TLS", feature: "tls" })
}

/// A failed connection, said with the cause and what to change (the URL masked).
fn connect_error(url: &DbUrl, e: tokio_postgres::Error) -> DbError {
    let cause = match e.as_db_error() {
        Some(db) => db.message().to_string(),
        // With its causes: "error performing TLS handshake" alone does not say what failed.
        None => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                text = format!("{text}: {s}");
                source = s.source();
            }
            text
        }
    };
    refused(url, cause, e.code().map(tokio_postgres::error::SqlState::code))
}

/// A refused or failed connection of either path (tokio-postgres, or Hammer's lean sessions),
/// with the hint its SQLSTATE (`code`, when the server sent one) or its cause calls for.
pub(crate) fn refused(url: &DbUrl, cause: String, code: Option<&str>) -> DbError {
    // invalid_password, invalid_authorization_specification, invalid_catalog_name,
    // too_many_connections.
    let hint = match code {
        Some("28P01") => "check the user and password in --db",
        Some("28000") => "check the user in --db and the server's pg_hba.conf",
        Some("3D000") => "create the database, or name another in --db",
        Some("53300") => "the server's max_connections is reached: use fewer --sessions, or raise it",
        _ if cause.contains("does not support TLS") => {
            "the server does not offer TLS: turn ssl on in its postgresql.conf, or use sslmode=prefer or disable"
        }
        _ if cause.contains("not valid for name") => {
            "the certificate was issued for another host name: connect by the name it names, or use \
             sslmode=verify-ca to check only its authority"
        }
        _ if cause.contains("certificate") => {
            "the server's certificate is not trusted: name its authority with sslrootcert=FILE, or use \
             sslmode=require to encrypt without checking it"
        }
        _ => "is the server running and reachable at that host and port?",
    };
    DbError::Connect { db: url.to_string(), cause, hint: hint.to_string() }
}

pub(crate) fn sql_error(url: &DbUrl, e: tokio_postgres::Error) -> DbError {
    let cause = e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_string());
    DbError::Server { db: url.to_string(), cause }
}
