//! What the database layer (spindle-db) and the results store (spindle-store) share to reach a
//! database: its URL, parsed and shown with any password masked, and, with `postgres`, the
//! PostgreSQL connection (TLS as the URL's `sslmode` asks, with `tls`). Here so the store reaches
//! its PostgreSQL database without depending on the drivers and workloads of spindle-db.

mod error;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "tls")]
pub mod tls;
pub mod url;

pub use error::ConnectError;
pub use url::{DbUrl, Engine, TlsMode, parse_url};
