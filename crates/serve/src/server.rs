//! The server: connections accepted on a tokio runtime, each read and answered by hyper; a
//! request's page is made on the blocking pool with one of a few opened stores, lent for as
//! long as the page (and a streamed body) reads it. A connection costs a task, not a thread,
//! so clients that send slowly, or not at all, hold up no one else.

use crate::afresh::respond_afresh;
use crate::body::Outgoing;
use crate::http::{self, Body, Request, Response};
use crate::pool::{Lease, Pool};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use spindle_store::Store;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;
use tokio_io_timeout::TimeoutStream;

/// Stores opened, and so requests answered at once: enough that a slow download does not
/// hold up the runs page.
pub const WORKERS: usize = 4;
/// The longest a client may take to send a request's line and headers, from its first byte
/// (or from when it connected): past it the connection is closed, however steadily the bytes
/// come.
pub const HEAD_DEADLINE: Duration = Duration::from_secs(10);
/// A client that takes nothing of the response for this long is dropped, and a streamed body
/// being written for it stops. (Its unit test waits for it, so there it is short.)
const WRITE_DEADLINE: Duration = Duration::from_secs(if cfg!(test) { 2 } else { 60 });
/// The most a request's line and headers may take; more is answered 431.
const MAX_HEAD: usize = 16 * 1024;
/// How long to wait before accepting again when accepting failed (out of file descriptors).
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// The pages: what answers a request.
pub trait Site: Send + Sync + 'static {
    /// The answer to a request read whole, from `store`.
    fn respond(&self, store: &Store, req: &Request) -> Response;
    /// The page of a request refused before it reached `respond`.
    fn refused(&self, status: u16, why: &'static str) -> Response;
}

/// Answers every connection `listener` accepts, each request with one of `stores`. Returns
/// only when the server cannot start.
pub fn serve(listener: std::net::TcpListener, stores: Vec<Store>, site: Arc<impl Site>) -> std::io::Result<()> {
    one_malloc_arena();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .max_blocking_threads(stores.len().max(1))
        .build()?;
    listener.set_nonblocking(true)?;
    let shared = Arc::new(Shared { site, stores: Pool::new(stores), http: http1_settings() });
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    tokio::spawn(connection(stream, Arc::clone(&shared)));
                }
                Err(_) => tokio::time::sleep(ACCEPT_PAUSE).await,
            }
        }
    })
}

struct Shared<S> {
    site: Arc<S>,
    stores: Arc<Pool<Store>>,
    http: http1::Builder,
}

/// hyper's reading and writing: a deadline for the head and its size (16 KiB); one request
/// per connection, as the pages' clients expect the server to close once answered; header
/// names written as they are usually spelled.
fn http1_settings() -> http1::Builder {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEAD_DEADLINE)
        .max_buf_size(MAX_HEAD)
        .keep_alive(false)
        .title_case_headers(true);
    http
}

/// glibc gives each thread that allocates its own arena and keeps what a request freed there
/// for that thread: over a large store, four threads each holding a listing's worth made the
/// server's resident memory four listings. One arena reuses it across threads.
fn one_malloc_arena() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets an allocator parameter (under glibc's lock); called before the
    // runtime's threads start.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

async fn connection(stream: tokio::net::TcpStream, shared: Arc<Shared<impl Site>>) {
    let mut stream = TimeoutStream::new(stream);
    stream.set_write_timeout(Some(WRITE_DEADLINE));
    let io = TokioIo::new(Box::pin(stream));
    let answer = service_fn(|req| answer(req, Arc::clone(&shared)));
    // A connection that fails (reset, too slow, a malformed request hyper answered itself)
    // concerns that client only.
    let _ = shared.http.serve_connection(io, answer).await;
}

/// One request: refused here if no page can take it, else answered on the blocking pool with
/// a store once one is free.
async fn answer(
    req: hyper::Request<Incoming>,
    shared: Arc<Shared<impl Site>>,
) -> Result<hyper::Response<Outgoing>, Infallible> {
    let head_only = req.method() == hyper::Method::HEAD;
    let request = match http::request(&req) {
        Ok(request) => request,
        Err(refused) => {
            let (head, body) = shared.site.refused(refused.status, refused.why).split();
            return Ok(head.with_body(whole(body)));
        }
    };
    let store = shared.stores.take().await;
    let site = Arc::clone(&shared.site);
    let (send, response) = oneshot::channel();
    tokio::task::spawn_blocking(move || answer_from(&*site, store, &request, head_only, send));
    // No response: the page panicked outside the guard of `respond_afresh` (a streamed body's
    // writer does not, as its head is sent first).
    Ok(response.await.unwrap_or_else(|_| http::internal_error()))
}

/// On the blocking pool: the page made from `store`, its head sent to hyper through `send`;
/// a streamed body is then written here, with the store still held.
fn answer_from(
    site: &impl Site,
    mut store: Lease<Store>,
    req: &Request,
    head_only: bool,
    send: oneshot::Sender<hyper::Response<Outgoing>>,
) {
    let (head, body) = respond_afresh(site, &mut store, req).split();
    let write = match body {
        Body::Streamed(write) if !head_only => write,
        // hyper sends a HEAD answer's length, not its body.
        body => {
            let _ = send.send(head.with_body(whole(body)));
            return;
        }
    };
    let (mut pieces, body) = Outgoing::streamed();
    if send.send(head.with_body(body)).is_err() {
        return;
    }
    // An error (the client left, or read nothing for WRITE_DEADLINE) ends the body unfinished,
    // and the client sees it cut.
    if write(&store, &mut pieces).is_ok() {
        let _ = pieces.finish();
    }
}

/// A body made before the response; a streamed one (a HEAD answer) has none, and no length.
fn whole(body: Body) -> Outgoing {
    match body {
        Body::Whole(bytes) => Outgoing::whole(bytes),
        Body::Streamed(_) => Outgoing::none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// Pages whose bodies are written while they are sent: `/whole` 3 MiB and an end,
    /// `/cut` a chunk and then an error, `/endless` until writing fails, which it says on
    /// `ended`.
    struct Streaming {
        ended: std::sync::Mutex<std::sync::mpsc::Sender<std::io::ErrorKind>>,
    }

    const WHOLE: usize = 3 * 1024 * 1024;

    impl Site for Streaming {
        fn respond(&self, _: &Store, req: &Request) -> Response {
            let ended = self.ended.lock().unwrap().clone();
            let path = req.path.clone();
            Response::streamed("text/plain", move |_, out| match path.as_str() {
                "/endless" => {
                    let e = loop {
                        if let Err(e) = out.write_all(&[b'x'; 4096]) {
                            break e;
                        }
                    };
                    let _ = ended.send(e.kind());
                    Err(e)
                }
                "/cut" => {
                    out.write_all(&[b'x'; 100_000])?;
                    Err(std::io::Error::other("the store failed halfway"))
                }
                _ => out.write_all(&vec![b'x'; WHOLE]),
            })
        }

        fn refused(&self, status: u16, why: &'static str) -> Response {
            Response::new(status, "text/plain", why)
        }
    }

    /// A server of `Streaming` on a free port, until the test's process ends; and where the
    /// endless body's writer says it stopped.
    fn started() -> (std::net::SocketAddr, std::sync::mpsc::Receiver<std::io::ErrorKind>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("results.db")).unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (ended, stopped) = std::sync::mpsc::channel();
        let site = Arc::new(Streaming { ended: std::sync::Mutex::new(ended) });
        std::thread::spawn(move || serve(listener, vec![store], site));
        (addr, stopped, dir)
    }

    fn ask(addr: std::net::SocketAddr, method: &str, path: &str) -> String {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.write_all(format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
        let mut answer = Vec::new();
        // A cut body ends the connection, which may be a reset after the bytes that came.
        let _ = s.read_to_end(&mut answer);
        String::from_utf8(answer).unwrap()
    }

    #[test]
    fn a_streamed_body_is_sent_whole_or_visibly_cut() {
        let (addr, _, _dir) = started();

        let whole = ask(addr, "GET", "/whole");
        let (head, body) = whole.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 200 OK") && head.contains("Transfer-Encoding: chunked"), "{head}");
        assert!(body.ends_with("\r\n0\r\n\r\n"), "the last chunk says the body is whole");
        assert_eq!(body.matches('x').count(), WHOLE);

        let cut = ask(addr, "GET", "/cut");
        let (head, body) = cut.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
        assert!(!body.ends_with("\r\n0\r\n\r\n"), "no last chunk: the client sees the body cut");

        let head_only = ask(addr, "HEAD", "/whole");
        assert!(
            head_only.split_once("\r\n\r\n").is_some_and(|(_, body)| body.is_empty()),
            "no body for HEAD: {head_only}"
        );
        assert!(!head_only.contains("Content-Length"), "no length it does not know: {head_only}");
    }

    #[test]
    fn a_client_that_reads_nothing_is_dropped_and_its_writer_stops() {
        let (addr, stopped, _dir) = started();
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.write_all(format!("GET /endless HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
        // It never reads: once the socket's buffers are full the server can write nothing more,
        // and only the write deadline ends the writer, which would otherwise wait forever.
        let ended = stopped.recv_timeout(WRITE_DEADLINE + Duration::from_secs(60));
        assert_eq!(ended, Ok(std::io::ErrorKind::BrokenPipe), "the writer learned its client was dropped");
        drop(s);
    }
}
