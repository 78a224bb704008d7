//! The web server under `spindle serve`: requests read and responses written (http.rs, by
//! hand: a read-only site of a few GET pages needs only a request line, headers and a
//! bounded head; the serve-and-agents issue moves this to a real HTTP stack), who may read
//! the pages (access.rs), and the workers that answer connections (workers.rs). Which page
//! answers a request is the caller's: it implements [`Site`].

pub mod access;
pub mod http;
mod workers;

pub use workers::{Site, WORKERS, serve};
