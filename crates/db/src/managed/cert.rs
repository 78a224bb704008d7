//! Each managed instance's TLS certificate: self-signed, for 127.0.0.1 and localhost (where
//! it listens), made when the instance is. A URL with `sslmode=verify-full` and `sslrootcert`
//! naming the certificate checks it fully; `sslmode=require` encrypts without checking.

use super::system::RunAs;
use crate::DbError;
#[cfg(feature = "tls")]
use std::io::Write;
#[cfg(feature = "tls")]
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The certificate (public) and its key (readable by the server's user alone) in `dir`.
pub(crate) struct Cert {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Where an instance whose files are in `data` keeps its certificate, when it has one (an
/// instance made by a spindle built without TLS serves without it).
pub fn cert_path(data: &Path) -> Option<PathBuf> {
    Some(data.join("server.crt")).filter(|p| p.is_file())
}

/// A build without TLS makes no certificate: the instance serves plaintext.
#[cfg(not(feature = "tls"))]
pub(crate) fn make(_: &Path, _: &RunAs) -> Result<Option<Cert>, DbError> {
    Ok(None)
}

/// Makes a new certificate and key in `dir`, owned by `owner`.
#[cfg(feature = "tls")]
pub(crate) fn make(dir: &Path, owner: &RunAs) -> Result<Option<Cert>, DbError> {
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".to_string()])
        .map_err(|e| DbError::Managed { what: "TLS certificate".into(), why: e.to_string() })?;
    let cert = dir.join("server.crt");
    let key = dir.join("server.key");
    write_new(&cert, made.cert.pem().as_bytes(), 0o644)?;
    // Both servers refuse a key others can read.
    write_new(&key, made.key_pair.serialize_pem().as_bytes(), 0o600)?;
    owner.own(&cert)?;
    owner.own(&key)?;
    Ok(Some(Cert { cert, key }))
}

#[cfg(feature = "tls")]
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<(), DbError> {
    std::fs::File::options()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| DbError::Io(path.to_path_buf(), e))
}
