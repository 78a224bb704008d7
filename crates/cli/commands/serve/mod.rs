//! `spindle serve`: a local web page over the results store, read-only. Pages are drawn on the
//! server by the report's own HTML renderer (charts as inline SVG from the view models), with
//! a little script of its own (assets/) embedded in the binary. A few threads, each with its
//! own connection to the store, answer one request per connection.

mod access;
mod assets;
mod http;
mod pages;
mod routes;

use crate::Outcome;
use crate::args::ServeArgs;
use crate::store;
use crate::usage::UsageError;
use access::Access;
use spindle_store::{Location, Store};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// Threads answering requests: enough that a slow download does not hold up the runs page.
const WORKERS: usize = 4;
/// A client that sends its request slower than this is dropped, so it cannot hold a thread.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);
const TOKEN_ENV: &str = "SPINDLE_SERVE_TOKEN";

/// What every request is answered from.
pub struct App {
    pub access: Access,
}

pub fn run(args: &ServeArgs) -> anyhow::Result<Outcome> {
    let addr = access::listen_address(args.listen.as_deref())?;
    let token = args.token.clone().or_else(|| std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()));
    let location = store::location(&args.store)?;
    // Each worker gets its own connection; opening them all first finds a missing, foreign,
    // corrupt or newer store before anything listens (exit 2, the file untouched).
    let stores = (0..WORKERS).map(|_| open(&location)).collect::<anyhow::Result<Vec<Store>>>()?;
    let listener = TcpListener::bind(addr).map_err(|e| bind_error(addr, &e))?;
    let bound = listener.local_addr()?;
    let (access, generated) = Access::new(bound, token)?;
    // Nothing to save or remove: a Ctrl-C ends the server at once.
    if let Err(e) = ctrlc::set_handler(|| std::process::exit(130)) {
        eprintln!("spindle: warning: Ctrl-C may not stop the server at once: {e}");
    }
    let url = match (&access.token, generated) {
        (Some(t), true) => format!("http://{bound}/?token={t}"),
        _ => format!("http://{bound}/"),
    };
    if generated {
        eprintln!("spindle serve: {bound} is not loopback, so every request needs this token: {url}");
    }
    eprintln!("serving {url} (read-only, the store {location}; Ctrl-C to stop)");
    let app = Arc::new(App { access });
    one_malloc_arena();
    let (send, receive) = mpsc::sync_channel::<TcpStream>(WORKERS * 16);
    let receive = Arc::new(Mutex::new(receive));
    for store in stores {
        let (app, receive) = (Arc::clone(&app), Arc::clone(&receive));
        std::thread::spawn(move || {
            loop {
                let next = receive.lock().map(|r| r.recv());
                let Ok(Ok(stream)) = next else { return };
                answer(&app, &store, stream);
            }
        });
    }
    for stream in listener.incoming().flatten() {
        if send.send(stream).is_err() {
            break;
        }
    }
    Ok(Outcome::Success)
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

fn open(at: &Location) -> anyhow::Result<Store> {
    Store::open_existing(at.clone())?.ok_or_else(|| match at.file() {
        Some(path) => {
            UsageError::file(path, "there is no results store here yet: measure a run first, or pass --store").into()
        }
        None => anyhow::anyhow!("{at}: no spindle store in this database yet: measure a run into it first"),
    })
}

fn bind_error(addr: SocketAddr, e: &std::io::Error) -> UsageError {
    let why = match e.kind() {
        std::io::ErrorKind::AddrInUse => format!("port {} is in use; pick another with --listen", addr.port()),
        std::io::ErrorKind::AddrNotAvailable => "no interface of this machine has that address".to_string(),
        std::io::ErrorKind::PermissionDenied => format!("not allowed to listen on port {}", addr.port()),
        _ => e.to_string(),
    };
    UsageError::flag("--listen", addr.to_string(), why)
}

/// One connection: one request read and answered. A panic while answering (a bug, never an
/// input) answers 500 and leaves the server running.
fn answer(app: &App, store: &Store, mut stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let (response, head_only) = match http::read_request(&mut stream) {
        Ok(None) => return,
        Ok(Some(req)) => {
            let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| routes::respond(app, store, &req)));
            let response = answered.unwrap_or_else(|_| http::Response::new(500, "text/plain", "internal error\n"));
            (response, req.method == "HEAD")
        }
        Err(refused) => (pages::frame::error_page(refused.status, refused.why), false),
    };
    let _ = http::write_response(&mut stream, &response, head_only);
}
