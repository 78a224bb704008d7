//! `spindle serve`: a local web page over the results store, read-only. Pages are drawn on the
//! server by the report's own HTML renderer (charts as inline SVG from the view models), with
//! a little script of its own (assets/) embedded in the binary; spindle-serve reads the
//! requests, checks who may read, and answers each with one of a few opened stores.

mod assets;
mod pages;
mod routes;

use crate::Outcome;
use crate::args::ServeArgs;
use crate::store;
use crate::usage::UsageError;
use spindle_serve::access::{self, Access};
use spindle_serve::http::{Request, Response};
use spindle_serve::{Site, WORKERS};
use spindle_store::{Location, Store};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

const TOKEN_ENV: &str = "SPINDLE_SERVE_TOKEN";

/// What every request is answered from.
pub struct App {
    pub access: Access,
}

pub fn run(args: &ServeArgs) -> anyhow::Result<Outcome> {
    let addr = access::listen_address(args.listen.as_deref())?;
    let token = args.token.clone().or_else(|| std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()));
    let location = store::location(&args.store)?;
    // A few connections, one for each request read at once; opening them all first finds a
    // missing, foreign, corrupt or newer store before anything listens (exit 2, the file untouched).
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
    spindle_serve::serve(listener, stores, Arc::new(App { access }))
        .map_err(|e| anyhow::anyhow!("cannot start the server on {bound}: {e}"))?;
    Ok(Outcome::Success)
}

impl Site for App {
    fn respond(&self, store: &Store, req: &Request) -> Response {
        routes::respond(self, store, req)
    }

    fn refused(&self, status: u16, why: &'static str) -> Response {
        pages::frame::error_page(status, why)
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
