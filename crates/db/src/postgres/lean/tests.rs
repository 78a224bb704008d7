//! The lean connection against a scripted server on the other end of an in-memory pipe: each
//! test writes the server's messages by hand, as the protocol documentation lays them out,
//! and checks what the client sent.

use super::wire::{KEEP, Wire};
use super::{Failure, LeanConn, auth};
use crate::{DbError, DbUrl};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

/// A backend message: its tag, its length (itself included), its body.
fn msg(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![tag];
    m.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
    m.extend_from_slice(body);
    m
}

fn auth_request(code: i32, rest: &[u8]) -> Vec<u8> {
    let mut body = code.to_be_bytes().to_vec();
    body.extend_from_slice(rest);
    msg(b'R', &body)
}

fn ready() -> Vec<u8> {
    msg(b'Z', b"I")
}

/// An ErrorResponse with a severity, a SQLSTATE and a message.
fn error(severity: &str, code: &str, message: &str) -> Vec<u8> {
    let mut body = Vec::new();
    for (t, v) in [(b'S', severity), (b'V', severity), (b'C', code), (b'M', message)] {
        body.push(t);
        body.extend_from_slice(v.as_bytes());
        body.push(0);
    }
    body.push(0);
    msg(b'E', &body)
}

/// The StartupMessage (no tag): its parameters.
async fn read_startup(server: &mut DuplexStream) -> Vec<(String, String)> {
    let len = server.read_i32().await.unwrap() as usize;
    let mut body = vec![0; len - 4];
    server.read_exact(&mut body).await.unwrap();
    assert_eq!(&body[..4], &196_608i32.to_be_bytes(), "protocol 3.0");
    let text = String::from_utf8(body[4..].to_vec()).unwrap();
    let words: Vec<&str> = text.split('\0').collect();
    words.chunks(2).filter(|p| p.len() == 2 && !p[0].is_empty()).map(|p| (p[0].into(), p[1].into())).collect()
}

/// A tagged frontend message.
async fn read_message(server: &mut DuplexStream) -> (u8, Vec<u8>) {
    let tag = server.read_u8().await.unwrap();
    let len = server.read_i32().await.unwrap() as usize;
    let mut body = vec![0; len - 4];
    server.read_exact(&mut body).await.unwrap();
    (tag, body)
}

fn url(text: &str) -> DbUrl {
    crate::parse_url(text).unwrap()
}

/// Runs the client's startup against `server`, a script of the server's side.
async fn startup<F, Fut>(url: &DbUrl, server: F) -> Result<(), DbError>
where
    F: FnOnce(DuplexStream) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (client, server_end) = tokio::io::duplex(4096);
    let script = tokio::spawn(server(server_end));
    let mut wire = Wire::new(Box::new(client));
    let r = auth::start(&mut wire, url).await;
    script.await.unwrap();
    r
}

#[tokio::test]
async fn trust_sends_the_user_database_and_application_and_waits_for_ready() {
    let u = url("postgres://spindle@127.0.0.1/bench");
    startup(&u, |mut s| async move {
        let params = read_startup(&mut s).await;
        for want in [("user", "spindle"), ("database", "bench"), ("application_name", "spindle")] {
            assert!(params.contains(&(want.0.into(), want.1.into())), "{params:?}");
        }
        let mut reply = auth_request(0, &[]);
        reply.extend(msg(b'S', b"server_version\x0015.4\x00"));
        reply.extend(msg(b'K', &[0, 0, 0, 7, 0, 0, 0, 9]));
        reply.extend(ready());
        s.write_all(&reply).await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn cleartext_and_md5_send_the_password_as_asked() {
    let u = url("postgres://spindle:hunter2@127.0.0.1/bench");
    startup(&u, |mut s| async move {
        read_startup(&mut s).await;
        s.write_all(&auth_request(3, &[])).await.unwrap();
        assert_eq!(read_message(&mut s).await, (b'p', b"hunter2\0".to_vec()));
        s.write_all(&[auth_request(0, &[]), ready()].concat()).await.unwrap();
    })
    .await
    .unwrap();
    startup(&u, |mut s| async move {
        read_startup(&mut s).await;
        s.write_all(&auth_request(5, &[1, 2, 3, 4])).await.unwrap();
        // md5(md5(password + user) in hex + salt), worked out apart from the client.
        assert_eq!(read_message(&mut s).await, (b'p', b"md53d95a1ff2cb2eb458911444366d96795\0".to_vec()));
        s.write_all(&[auth_request(0, &[]), ready()].concat()).await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn scram_starts_without_channel_binding_and_a_refusal_names_the_password() {
    let u = url("postgres://spindle:hunter2@127.0.0.1/bench");
    let err = startup(&u, |mut s| async move {
        read_startup(&mut s).await;
        s.write_all(&auth_request(10, b"SCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0\0")).await.unwrap();
        let (tag, body) = read_message(&mut s).await;
        assert_eq!(tag, b'p');
        let text = String::from_utf8_lossy(&body);
        assert!(text.starts_with("SCRAM-SHA-256\0"), "{text}");
        assert!(text.contains("n,,n=,r="), "the client-first message, no channel binding: {text}");
        s.write_all(&error("FATAL", "28P01", "password authentication failed for user \"spindle\"")).await.unwrap();
    })
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("password authentication failed") && text.contains("check the user and password"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
}

#[tokio::test]
async fn what_cannot_be_answered_is_refused_with_a_reason() {
    let no_password = url("postgres://spindle@127.0.0.1/bench");
    let err = startup(&no_password, |mut s| async move {
        read_startup(&mut s).await;
        s.write_all(&auth_request(3, &[])).await.unwrap();
    })
    .await
    .unwrap_err();
    assert!(err.to_string().contains("the URL has none"), "{err}");
    let u = url("postgres://spindle:hunter2@127.0.0.1/bench");
    let err = startup(&u, |mut s| async move {
        read_startup(&mut s).await;
        s.write_all(&auth_request(10, b"OAUTHBEARER\0\0")).await.unwrap();
    })
    .await
    .unwrap_err();
    assert!(err.to_string().contains("SCRAM-SHA-256"), "{err}");
    let err = startup(&u, |mut s| async move {
        read_startup(&mut s).await;
        s.write_all(&error("FATAL", "3D000", "database \"bench\" does not exist")).await.unwrap();
    })
    .await
    .unwrap_err();
    assert!(err.to_string().contains("create the database"), "{err}");
    let err = startup(&u, |mut s| async move {
        read_startup(&mut s).await;
        // Gone before answering.
        drop(s);
    })
    .await
    .unwrap_err();
    assert!(err.to_string().contains("connection lost during startup"), "{err}");
}

/// A connection past its startup, and the server's end of it.
fn connected() -> (LeanConn, DuplexStream) {
    let (client, server) = tokio::io::duplex(1 << 16);
    (LeanConn { wire: Wire::new(Box::new(client)), closed: false }, server)
}

#[tokio::test]
async fn a_call_binds_text_parameters_and_counts_its_rows() {
    let (mut conn, mut s) = connected();
    let server = tokio::spawn(async move {
        let (tag, body) = read_message(&mut s).await;
        assert_eq!(tag, b'B');
        // Portal "", statement "get", no format codes (text), 2 values, no result formats.
        let mut want = b"\0get\0\0\0\0\x02".to_vec();
        want.extend_from_slice(&[0, 0, 0, 3]);
        want.extend_from_slice(b"abc");
        want.extend_from_slice(&[0, 0, 0, 2]);
        want.extend_from_slice(b"42");
        want.extend_from_slice(&[0, 0]);
        assert_eq!(body, want);
        assert_eq!(read_message(&mut s).await, (b'E', b"\0\0\0\0\0".to_vec()));
        assert_eq!(read_message(&mut s).await, (b'S', vec![]));
        let row = msg(b'D', &[0, 1, 0, 0, 0, 1, b'7']);
        let reply = [msg(b'2', &[]), row.clone(), row, msg(b'C', b"SELECT 2\0"), ready()].concat();
        s.write_all(&reply).await.unwrap();
        s
    });
    assert_eq!(conn.execute("get", &[b"abc", b"42"]).await, Ok(2));
    assert!(!conn.is_closed());
    drop(server.await.unwrap());
}

#[tokio::test]
async fn a_server_error_keeps_the_connection_and_a_fatal_one_or_its_loss_closes_it() {
    let (mut conn, mut s) = connected();
    let server = tokio::spawn(async move {
        for _ in 0..3 {
            read_message(&mut s).await;
        }
        s.write_all(&[error("ERROR", "40P01", "deadlock detected"), ready()].concat()).await.unwrap();
        for _ in 0..3 {
            read_message(&mut s).await;
        }
        s.write_all(&error("FATAL", "57P01", "terminating connection due to administrator command")).await.unwrap();
        s
    });
    match conn.execute("get", &[b"1"]).await {
        Err(Failure::Server(e)) => assert_eq!((e.code.as_str(), e.severity.as_str()), ("40P01", "ERROR")),
        other => panic!("{other:?}"),
    }
    assert!(!conn.is_closed(), "an ERROR ends the statement, not the connection");
    match conn.execute("get", &[b"1"]).await {
        Err(Failure::Server(e)) => assert_eq!(e.code, "57P01"),
        other => panic!("{other:?}"),
    }
    assert!(conn.is_closed(), "the server ends the connection after a FATAL");
    drop(server.await.unwrap());

    let (mut conn, mut s) = connected();
    let server = tokio::spawn(async move {
        read_message(&mut s).await;
        drop(s);
    });
    assert!(matches!(conn.execute("get", &[b"1"]).await, Err(Failure::Lost(_))));
    assert!(conn.is_closed());
    assert!(matches!(conn.execute("get", &[b"1"]).await, Err(Failure::Lost(_))), "not written to again");
    server.await.unwrap();
}

#[tokio::test]
async fn a_large_message_grows_the_buffer_for_its_exchange_only() {
    let (mut conn, mut s) = connected();
    let start = conn.wire.capacities();
    let server = tokio::spawn(async move {
        for _ in 0..3 {
            read_message(&mut s).await;
        }
        let mut notice = b"SNOTICE\0M".to_vec();
        notice.extend(std::iter::repeat_n(b'x', 20_000));
        notice.extend_from_slice(b"\0\0");
        let reply = [msg(b'2', &[]), msg(b'N', &notice), msg(b'C', b"SELECT 0\0"), ready()].concat();
        s.write_all(&reply).await.unwrap();
        s
    });
    let long = vec![b'y'; 10_000];
    assert_eq!(conn.execute("get", &[&long]).await, Ok(0));
    let (read, write) = conn.wire.capacities();
    assert!(read <= KEEP && write <= KEEP, "{read} and {write} bytes kept after the exchange");
    assert!(start.0 <= KEEP && start.1 <= KEEP, "{start:?}");
    drop(server.await.unwrap());
}

#[test]
fn a_server_error_reads_its_fields_and_says_its_code() {
    let mut bytes = bytes::BytesMut::from(&error("ERROR", "40001", "could not serialize access")[..]);
    let Ok(Some(postgres_protocol::message::backend::Message::ErrorResponse(body))) =
        postgres_protocol::message::backend::Message::parse(&mut bytes)
    else {
        panic!("an ErrorResponse")
    };
    let e = super::ServerError::of(&body);
    assert_eq!((e.severity.as_str(), e.code.as_str()), ("ERROR", "40001"));
    assert_eq!(e.to_string(), "ERROR: could not serialize access (SQLSTATE 40001)");
}
