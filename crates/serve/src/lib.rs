//! The web server under `spindle serve`, on hyper over a tokio runtime: connections are
//! tasks, so a client that sends slowly or not at all holds up no other; a request's head has
//! a deadline and a size limit, and a client that reads nothing of its answer is dropped
//! (server.rs). Pages are made on the blocking pool with one of a few opened stores (pool.rs),
//! opened again when the store went away (afresh.rs); a download is written while it is sent,
//! through a bounded channel (body.rs). Also: what a page sees of a request and answers
//! (http.rs), and who may read the pages (access.rs). Which page answers a request is the
//! caller's: it implements [`Site`].

pub mod access;
mod afresh;
mod body;
pub mod http;
mod pool;
mod server;

pub use server::{HEAD_DEADLINE, Site, WORKERS, serve};
