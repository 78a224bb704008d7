//! spindle's database layer: connection URLs (spindle-connect's: passwords masked
//! everywhere), the drivers, and Microsoft's Database Hammer workload on top of them. SQLite is the embedded default and
//! always built; the PostgreSQL and MariaDB drivers (features `postgres`, `mysql`) and TLS
//! (`tls`) join behind the same calls. What a build lacks is said by `built::check` where a
//! URL first meets a driver, naming the feature to build with; callers see no `cfg`.

// A build with neither server driver leaves the helpers only they use (making a managed
// instance, placeholders, chunked loads) unused; the default build uses every one.
#![cfg_attr(not(feature = "net"), allow(dead_code))]

mod built;
pub mod conn;
pub mod counters;
pub mod durability;
mod error;
pub mod file_stats;
pub mod hammer;
#[cfg(feature = "net")]
mod join;
pub mod keys;
pub mod largeops;
pub mod load;
pub mod logtest;
pub mod managed;
#[cfg(feature = "mysql")]
pub mod mysql;
pub mod orders;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "net")]
mod precise;
pub mod session;
pub mod sqlite;
/// URLs are spindle-connect's, which the results store parses too.
pub use spindle_connect::url;

pub use built::check as check_built;
pub use conn::{Conn, EngineFiles, Param, open};
pub use error::DbError;
pub use file_stats::{FileIo, FileStats};
pub use session::{AsyncSession, CallError, ConnectionRoom, Session};
pub use url::{DbUrl, Engine, TlsMode, parse_url};
