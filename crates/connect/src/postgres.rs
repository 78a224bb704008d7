//! The PostgreSQL connection both the database layer's drivers and the results store open:
//! tokio-postgres, over TLS when the URL asks, with the URL's connect timeout, and a failure
//! said with its cause and what to change.

use crate::{ConnectError, DbUrl, TlsMode};
use std::future::Future;
use std::pin::Pin;
#[cfg(feature = "tls")]
use tokio_postgres::config::SslMode;
use tokio_postgres::{Client, Config, NoTls};

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
///
/// A boxed future, not an `async fn`: an async fn's body is compiled in every crate (and
/// codegen unit) that awaits it, and this one holds tokio-postgres's whole handshake, TLS
/// included; boxed, it is compiled once, here, for the cost of one allocation a connection.
pub fn connect(url: &DbUrl) -> Pin<Box<dyn Future<Output = Result<Client, ConnectError>> + Send + '_>> {
    Box::pin(async move {
        let config = config(url);
        if url.tls == TlsMode::Disable {
            let (client, connection) = config.connect(NoTls).await.map_err(|e| connect_error(url, e))?;
            tokio::spawn(connection);
            return Ok(client);
        }
        connect_tls(url, config).await
    })
}

#[cfg(feature = "tls")]
async fn connect_tls(url: &DbUrl, mut config: Config) -> Result<Client, ConnectError> {
    config.ssl_mode(if url.tls == TlsMode::Prefer { SslMode::Prefer } else { SslMode::Require });
    let tls = tokio_postgres_rustls::MakeRustlsConnect::new(crate::tls::client_config(url)?);
    let (client, connection) = config.connect(tls).await.map_err(|e| connect_error(url, e))?;
    tokio::spawn(connection);
    Ok(client)
}

/// A build without TLS: the database layer's `built::check` refused the URL before it came
/// here; the store says so here.
#[cfg(not(feature = "tls"))]
async fn connect_tls(url: &DbUrl, _: Config) -> Result<Client, ConnectError> {
    Err(ConnectError::NotBuilt { db: url.to_string(), what: "TLS", feature: "tls" })
}

/// A failed connection, said with the cause and what to change (the URL masked).
fn connect_error(url: &DbUrl, e: tokio_postgres::Error) -> ConnectError {
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
pub fn refused(url: &DbUrl, cause: String, code: Option<&str>) -> ConnectError {
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
    ConnectError::Refused { db: url.to_string(), cause, hint: hint.to_string() }
}
