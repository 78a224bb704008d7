//! The socket under a lean connection: TCP (no Nagle delay: every call is one small write
//! waiting for its reply) or the server's Unix socket when the host is a directory, then TLS
//! as `sslmode` asks, with the same meaning and the same rustls setup as the tokio-postgres
//! path (`crate::tls`): `prefer` falls back to plaintext when the server declines, every
//! other mode needs TLS.

use crate::{DbError, DbUrl, TlsMode};
use tokio::io::{AsyncRead, AsyncWrite};

/// A stream either way, boxed once a connection.
pub(super) trait Io: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}
pub(super) type Stream = Box<dyn Io>;

/// PostgreSQL's port when the URL names none.
const DEFAULT_PORT: u16 = 5432;

/// The connected socket, TLS spoken if asked.
pub(super) async fn open(url: &DbUrl) -> Result<Stream, DbError> {
    let host = url.host.as_deref().unwrap_or("localhost");
    let port = url.port.unwrap_or(DEFAULT_PORT);
    let unreached = |e: std::io::Error| super::super::refused(url, format!("error connecting to server: {e}"), None);
    // The URL's connect_timeout bounds reaching the socket, as on the tokio-postgres path: a
    // thousand sessions' handshakes queue at the server for longer than one connection takes.
    let connecting = async {
        let stream: Stream = if host.starts_with('/') {
            Box::new(tokio::net::UnixStream::connect(format!("{host}/.s.PGSQL.{port}")).await?)
        } else {
            let tcp = tokio::net::TcpStream::connect((host, port)).await?;
            tcp.set_nodelay(true)?;
            Box::new(tcp)
        };
        Ok(stream)
    };
    let stream = tokio::time::timeout(url.connect_timeout(), connecting)
        .await
        .map_err(|_| unreached(std::io::Error::new(std::io::ErrorKind::TimedOut, "timed out")))?
        .map_err(unreached)?;
    if url.tls == TlsMode::Disable {
        return Ok(stream);
    }
    tls(url, host, stream).await
}

/// SSLRequest, then the handshake when the server answers `S`.
#[cfg(feature = "tls")]
async fn tls(url: &DbUrl, host: &str, mut stream: Stream) -> Result<Stream, DbError> {
    use rustls::pki_types::ServerName;
    use std::sync::Arc;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let failed = |why: String| super::super::refused(url, format!("error performing TLS handshake: {why}"), None);
    let mut request = bytes::BytesMut::new();
    postgres_protocol::message::frontend::ssl_request(&mut request);
    stream.write_all(&request).await.map_err(|e| failed(e.to_string()))?;
    let mut answer = [0u8];
    stream.read_exact(&mut answer).await.map_err(|e| failed(e.to_string()))?;
    if answer[0] != b'S' {
        return match url.tls {
            TlsMode::Prefer => Ok(stream),
            _ => Err(failed("server does not support TLS".into())),
        };
    }
    let name = ServerName::try_from(host.to_string()).map_err(|e| failed(e.to_string()))?;
    let connector = tokio_rustls::TlsConnector::from(Arc::new(spindle_connect::tls::client_config(url)?));
    let tls = connector.connect(name, stream).await.map_err(|e| failed(e.to_string()))?;
    Ok(Box::new(tls))
}

/// A build without TLS: `built::check` refused the URL before it came here.
#[cfg(not(feature = "tls"))]
async fn tls(url: &DbUrl, _: &str, _: Stream) -> Result<Stream, DbError> {
    Err(DbError::NotBuilt { db: url.to_string(), what: "TLS", feature: "tls" })
}
