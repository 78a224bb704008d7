//! A lean PostgreSQL connection for Hammer's sessions, and for nothing else: a thousand
//! sessions hold a thousand of them for a whole run, so what one connection keeps is what
//! the run's memory grows by.
//!
//! Why not tokio-postgres here (measured 2026-11-26, 1,000 sessions, `bench/hammer-sessions.sh
//! 1000 10 2`): of spindle's 42-43 MB peak RSS, tokio-postgres 0.7's fixed 8 KB read and 8 KB
//! write buffers per connection made 16.4 MB (their size is not settable in 0.7), and its
//! other per-connection state (the client, the connection's own task and the channel between
//! them) about 4 MB more. A connection here lives inside its session's task: the socket, a
//! read and a write buffer that start at a few hundred bytes (a call's messages are tens of
//! bytes) and go back to that size after a message that grew them, and the names of the
//! statements the session prepared. It speaks the startup (TLS as `sslmode` asks; trust,
//! cleartext, md5 and SCRAM-SHA-256 authentication) and the extended query protocol with
//! text parameters, one call at a time. Loading, counters and the store keep tokio-postgres.

mod auth;
mod transport;
mod wire;

#[cfg(test)]
mod tests;

use crate::{DbError, DbUrl};
use postgres_protocol::IsNull;
use postgres_protocol::message::backend::{ErrorResponseBody, Message};
use postgres_protocol::message::frontend;
use std::fmt;
use wire::Wire;

/// One connection: its wire, and whether it can be used again.
pub struct LeanConn {
    wire: Wire,
    /// An I/O error, a fatal server error or a message out of turn ended it: the session
    /// connects anew.
    closed: bool,
}

/// What the server said of a failed statement: its SQLSTATE decides how the call is counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerError {
    /// `ERROR`, `FATAL` or `PANIC` (the non-localized field when the server sends it).
    pub severity: String,
    pub code: String,
    pub message: String,
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (SQLSTATE {})", self.severity, self.message, self.code)
    }
}

impl ServerError {
    pub(super) fn of(body: &ErrorResponseBody) -> ServerError {
        let mut e = ServerError { severity: String::new(), code: String::new(), message: String::new() };
        let mut localized = String::new();
        let mut fields = body.fields();
        // A malformed field list ends the reading; what was read so far is kept.
        while let Ok(Some(field)) = fallible_iterator::FallibleIterator::next(&mut fields) {
            // The server sends its client_encoding, UTF-8 here; a stray byte is replaced.
            let value = String::from_utf8_lossy(field.value_bytes()).into_owned();
            match field.type_() {
                b'V' => e.severity = value,
                b'S' => localized = value,
                b'C' => e.code = value,
                b'M' => e.message = value,
                _ => {}
            }
        }
        if e.severity.is_empty() {
            e.severity = localized;
        }
        e
    }

    /// The server ends the connection after a FATAL or PANIC error.
    fn ends_connection(&self) -> bool {
        matches!(self.severity.as_str(), "FATAL" | "PANIC")
    }
}

/// A call that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The server refused the statement.
    Server(ServerError),
    /// The connection failed under the call (I/O, the server gone, a message out of turn).
    Lost(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Server(e) => write!(f, "db error: {e}"),
            Failure::Lost(why) => write!(f, "connection lost: {why}"),
        }
    }
}

impl LeanConn {
    /// Connects and authenticates as the URL says (see `transport` and `auth`).
    pub async fn connect(url: &DbUrl) -> Result<LeanConn, DbError> {
        let mut wire = Wire::new(transport::open(url).await?);
        auth::start(&mut wire, url).await?;
        Ok(LeanConn { wire, closed: false })
    }

    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Prepares named statements, all in one round trip; their parameter types are the
    /// server's inference.
    pub async fn prepare(&mut self, statements: &[(&str, &str)]) -> Result<(), Failure> {
        let mut sent = Ok(());
        self.wire.compose(|buf| {
            sent = statements.iter().try_for_each(|(name, sql)| frontend::parse(name, sql, [], buf));
            frontend::sync(buf);
        });
        self.checked(sent.map_err(|e| Failure::Lost(e.to_string())))?;
        self.finish(|_| {}).await
    }

    /// Executes a prepared statement with text parameters: the rows it returned.
    pub async fn execute(&mut self, statement: &str, params: &[&[u8]]) -> Result<u64, Failure> {
        if self.closed {
            return Err(Failure::Lost("the connection is closed".into()));
        }
        let mut sent = Ok(());
        self.wire.compose(|buf| {
            sent = bind(statement, params, buf).and_then(|()| frontend::execute("", 0, buf));
            frontend::sync(buf);
        });
        self.checked(sent.map_err(|e| Failure::Lost(e.to_string())))?;
        let mut rows = 0;
        self.finish(|m| {
            if let Message::DataRow(_) = m {
                rows += 1;
            }
        })
        .await?;
        Ok(rows)
    }

    /// A failure that leaves the connection unusable closes it.
    fn checked<T>(&mut self, r: Result<T, Failure>) -> Result<T, Failure> {
        if let Err(Failure::Lost(_)) = &r {
            self.closed = true;
        }
        r
    }

    /// Sends what was composed and reads to the ReadyForQuery that ends the exchange, each
    /// reply through `each`; the first error the server sent is the result.
    async fn finish(&mut self, mut each: impl FnMut(&Message)) -> Result<(), Failure> {
        let r = async {
            self.wire.send().await.map_err(|e| Failure::Lost(e.to_string()))?;
            let mut refused = None;
            loop {
                let message = self.wire.receive().await.map_err(|e| Failure::Lost(e.to_string()))?;
                match &message {
                    Message::ReadyForQuery(_) => break,
                    Message::ErrorResponse(body) => {
                        let e = ServerError::of(body);
                        if e.ends_connection() {
                            return Err(Failure::Server(e));
                        }
                        refused.get_or_insert(e);
                    }
                    Message::ParseComplete
                    | Message::BindComplete
                    | Message::CommandComplete(_)
                    | Message::EmptyQueryResponse
                    | Message::NoData
                    | Message::NoticeResponse(_)
                    | Message::ParameterStatus(_)
                    | Message::NotificationResponse(_)
                    | Message::DataRow(_) => {}
                    _ => return Err(Failure::Lost("a message out of turn from the server".into())),
                }
                each(&message);
            }
            refused.map_or(Ok(()), |e| Err(Failure::Server(e)))
        }
        .await;
        self.wire.settle();
        match &r {
            Err(Failure::Lost(_)) => self.closed = true,
            Err(Failure::Server(e)) if e.ends_connection() => self.closed = true,
            _ => {}
        }
        r
    }
}

/// Bind of the unnamed portal to `statement`, parameters and results in text.
fn bind(statement: &str, params: &[&[u8]], buf: &mut bytes::BytesMut) -> std::io::Result<()> {
    let put = |v: &[u8], buf: &mut bytes::BytesMut| {
        buf.extend_from_slice(v);
        Ok::<_, Box<dyn std::error::Error + Sync + Send>>(IsNull::No)
    };
    frontend::bind("", statement, [], params.iter().copied(), put, [], buf).map_err(|e| match e {
        frontend::BindError::Serialization(io) => io,
        frontend::BindError::Conversion(c) => std::io::Error::other(c),
    })
}
