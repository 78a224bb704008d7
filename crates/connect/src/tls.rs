//! TLS for the server drivers, as the URL's `sslmode` asks: rustls (ring) for PostgreSQL, and
//! the same roots and checks handed to mysql_async's own rustls. `require` encrypts without
//! checking the certificate (libpq's meaning); `verify-ca` checks that it chains to the
//! `sslrootcert` authority (or a public one); `verify-full` also that it names the host.

use crate::ConnectError;
use crate::url::{DbUrl, TlsMode};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::sync::Arc;

/// The certificates of the URL's `sslrootcert` file, or the public web roots.
fn roots(url: &DbUrl) -> Result<RootCertStore, ConnectError> {
    let mut store = RootCertStore::empty();
    match &url.tls_root {
        Some(path) => {
            let bad = |why: String| ConnectError::Refused {
                db: url.to_string(),
                cause: format!("sslrootcert {}: {why}", path.display()),
                hint: "name a PEM file of the certificate authority that signed the server's certificate".into(),
            };
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .map_err(|e| bad(e.to_string()))?
                .collect::<Result<_, _>>()
                .map_err(|e| bad(e.to_string()))?;
            if certs.is_empty() {
                return Err(bad("no certificate in it".into()));
            }
            for cert in certs {
                store.add(cert).map_err(|e| bad(e.to_string()))?;
            }
        }
        None => store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    Ok(store)
}

/// The client configuration for a PostgreSQL connection in `url.tls` mode (tokio-postgres's,
/// and Hammer's lean sessions' in spindle-db).
pub fn client_config(url: &DbUrl) -> Result<ClientConfig, ConnectError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| ConnectError::Refused { db: url.to_string(), cause: e.to_string(), hint: String::new() })?;
    let config = match url.tls {
        TlsMode::VerifyFull => builder.with_root_certificates(roots(url)?).with_no_client_auth(),
        TlsMode::VerifyCa | TlsMode::Require | TlsMode::Prefer | TlsMode::Disable => {
            let webpki =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots(url)?), provider.clone()).build().map_err(
                    |e| ConnectError::Refused { db: url.to_string(), cause: e.to_string(), hint: String::new() },
                )?;
            let verifier = Lenient { chain: url.tls == TlsMode::VerifyCa, webpki, provider };
            builder.dangerous().with_custom_certificate_verifier(Arc::new(verifier)).with_no_client_auth()
        }
    };
    Ok(config)
}

/// `require` (and `prefer`): any certificate, but the handshake's signatures still checked, so
/// the session is encrypted to whoever holds the certificate's key. `verify-ca`: the chain
/// checked, the host name not.
#[derive(Debug)]
struct Lenient {
    chain: bool,
    webpki: Arc<WebPkiServerVerifier>,
    provider: Arc<rustls::crypto::CryptoProvider>,
}

impl ServerCertVerifier for Lenient {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if !self.chain {
            return Ok(ServerCertVerified::assertion());
        }
        match self.webpki.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForNameContext { .. })) => {
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}
