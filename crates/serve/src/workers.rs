//! A few threads, each with its own connection to the store, answer one request per
//! connection. A thread whose connection no longer reaches the store (a PostgreSQL server
//! restarted, an SQLite file replaced) opens it again, so serve outlives both.

use crate::http::{self, Request, Response};
use spindle_store::Store;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// Threads answering requests: enough that a slow download does not hold up the runs page.
pub const WORKERS: usize = 4;
/// A client that sends its request slower than this is dropped, so it cannot hold a thread.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);

/// The pages: what answers a request.
pub trait Site: Send + Sync + 'static {
    /// The answer to a request read whole, from `store`.
    fn respond(&self, store: &Store, req: &Request) -> Response;
    /// The page of a request refused before it was read whole.
    fn refused(&self, status: u16, why: &'static str) -> Response;
}

/// Answers every connection `listener` accepts, each on one of `stores`' threads, until the
/// listener fails.
pub fn serve(listener: TcpListener, stores: Vec<Store>, site: Arc<impl Site>) {
    one_malloc_arena();
    let (send, receive) = mpsc::sync_channel::<TcpStream>(stores.len() * 16);
    let receive = Arc::new(Mutex::new(receive));
    for mut store in stores {
        let (site, receive) = (Arc::clone(&site), Arc::clone(&receive));
        std::thread::spawn(move || {
            loop {
                let next = receive.lock().map(|r| r.recv());
                let Ok(Ok(stream)) = next else { return };
                answer(&*site, &mut store, stream);
            }
        });
    }
    for stream in listener.incoming().flatten() {
        if send.send(stream).is_err() {
            break;
        }
    }
}

/// glibc gives each thread that allocates its own arena and keeps what a request freed there
/// for that thread: over a large store, four workers each holding a listing's worth made the
/// server's resident memory four listings. One arena reuses it across threads.
fn one_malloc_arena() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets an allocator parameter; called before the workers start.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// One connection: one request read and answered. A panic while answering (a bug, never an
/// input) answers 500 and leaves the server running.
fn answer(site: &impl Site, store: &mut Store, mut stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let (response, head_only) = match http::read_request(&mut stream) {
        Ok(None) => return,
        Ok(Some(req)) => (respond_afresh(site, store, &req), req.method == "HEAD"),
        Err(refused) => (site.refused(refused.status, refused.why), false),
    };
    let _ = http::write_response(&mut stream, store, response, head_only);
}

/// The answer from the store as it is now. A replaced file is seen before answering; a
/// server connection that ended is seen only when a statement fails on it, so a request the
/// store could not answer (503) is answered again on a new connection: requests only read.
fn respond_afresh(site: &impl Site, store: &mut Store, req: &Request) -> Response {
    if store.is_gone() && !reopen(store) {
        return site.refused(503, GONE);
    }
    let response = respond(site, store, req);
    match response.status == 503 && store.is_gone() {
        false => response,
        true if reopen(store) => respond(site, store, req),
        true => site.refused(503, GONE),
    }
}

/// Why nothing is answered while the store cannot be opened again.
const GONE: &str = "The results store is not where serve opened it (moved, replaced by something else, or its \
                    server down); pages come back once it is there again.";

fn respond(site: &impl Site, store: &Store, req: &Request) -> Response {
    let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| site.respond(store, req)));
    answered.unwrap_or_else(|_| Response::new(500, "text/plain", "internal error\n"))
}

/// Opens the store at `store`'s location again; whether it could. The old handle is kept
/// when not, and serve answers 503 until the store is back.
fn reopen(store: &mut Store) -> bool {
    match Store::open_existing(store.location().clone()) {
        Ok(Some(fresh)) => {
            *store = fresh;
            true
        }
        _ => false,
    }
}
