//! A lean connection's startup: the StartupMessage, then whichever authentication the server
//! asks for (trust, cleartext, md5 or SCRAM-SHA-256; SCRAM without channel binding, which the
//! server accepts from any client), then the server's parameters to ReadyForQuery. A refusal
//! keeps its SQLSTATE, so it is explained as the tokio-postgres path explains it
//! (`postgres::refused`). The password goes only to the server.

use super::ServerError;
use super::wire::Wire;
use crate::{DbError, DbUrl};
use postgres_protocol::authentication::md5_hash;
use postgres_protocol::authentication::sasl::{ChannelBinding, SCRAM_SHA_256, ScramSha256};
use postgres_protocol::message::backend::Message;
use postgres_protocol::message::frontend;

/// Starts the session on a connected stream, up to the server's first ReadyForQuery.
pub(super) async fn start(wire: &mut Wire, url: &DbUrl) -> Result<(), DbError> {
    let refused = |cause: String| super::super::refused(url, cause, None);
    // As libpq: without a user in the URL, the operating system's.
    let user = match &url.user {
        Some(u) => u.clone(),
        None => std::env::var("USER").map_err(|_| refused("no user in the URL, and $USER is not set".into()))?,
    };
    let mut params = vec![("user", user.as_str()), ("application_name", "spindle"), ("client_encoding", "UTF8")];
    if let Some(db) = &url.database {
        params.push(("database", db.as_str()));
    }
    let mut composed = Ok(());
    wire.compose(|buf| composed = frontend::startup_message(params.iter().copied(), buf));
    composed.map_err(|e| refused(e.to_string()))?;
    let lost = |e: std::io::Error| refused(format!("connection lost during startup: {e}"));
    wire.send().await.map_err(lost)?;
    let password = || {
        url.password.as_deref().map(str::as_bytes).ok_or_else(|| {
            super::super::refused(
                url,
                "the server asks for a password and the URL has none".into(),
                Some(PASSWORD_MISSING),
            )
        })
    };
    let mut scram: Option<ScramSha256> = None;
    loop {
        let mut composed = Ok(());
        match wire.receive().await.map_err(lost)? {
            Message::AuthenticationOk
            | Message::ParameterStatus(_)
            | Message::BackendKeyData(_)
            | Message::NoticeResponse(_) => continue,
            Message::ReadyForQuery(_) => break,
            Message::ErrorResponse(body) => {
                let e = ServerError::of(&body);
                return Err(super::super::refused(url, e.message, Some(&e.code)));
            }
            Message::AuthenticationCleartextPassword => {
                let p = password()?;
                wire.compose(|buf| composed = frontend::password_message(p, buf));
            }
            Message::AuthenticationMd5Password(body) => {
                let hash = md5_hash(user.as_bytes(), password()?, body.salt());
                wire.compose(|buf| composed = frontend::password_message(hash.as_bytes(), buf));
            }
            Message::AuthenticationSasl(body) => {
                let mut offered = body.mechanisms();
                let mut scram_offered = false;
                while let Ok(Some(m)) = fallible_iterator::FallibleIterator::next(&mut offered) {
                    scram_offered |= m == SCRAM_SHA_256;
                }
                if !scram_offered {
                    return Err(refused("the server offers no SASL mechanism spindle speaks (SCRAM-SHA-256)".into()));
                }
                let s = ScramSha256::new(password()?, ChannelBinding::unsupported());
                wire.compose(|buf| composed = frontend::sasl_initial_response(SCRAM_SHA_256, s.message(), buf));
                scram = Some(s);
            }
            Message::AuthenticationSaslContinue(body) => {
                let s = scram.as_mut().ok_or_else(|| refused("a SCRAM message before SCRAM began".into()))?;
                s.update(body.data()).map_err(|e| refused(format!("SCRAM: {e}")))?;
                wire.compose(|buf| composed = frontend::sasl_response(s.message(), buf));
            }
            Message::AuthenticationSaslFinal(body) => {
                let s = scram.as_mut().ok_or_else(|| refused("a SCRAM message before SCRAM began".into()))?;
                // The server's proof that it knows the password too.
                s.finish(body.data()).map_err(|e| refused(format!("SCRAM: the server's signature: {e}")))?;
                continue;
            }
            Message::AuthenticationGss
            | Message::AuthenticationKerberosV5
            | Message::AuthenticationScmCredential
            | Message::AuthenticationSspi
            | Message::AuthenticationGssContinue(_) => {
                return Err(refused("the server asks for an authentication method spindle does not speak".into()));
            }
            _ => return Err(refused("a message out of turn from the server during startup".into())),
        }
        composed.map_err(|e| refused(e.to_string()))?;
        wire.send().await.map_err(lost)?;
    }
    wire.settle();
    Ok(())
}

/// A missing password is explained as a wrong one is: invalid_password's SQLSTATE picks the hint.
const PASSWORD_MISSING: &str = "28P01";
