//! spindle's database layer: connection URLs (passwords masked everywhere), the drivers, and
//! Microsoft's Database Hammer workload (seed 000) on top of them. SQLite is the embedded
//! default; PostgreSQL and MariaDB drivers join behind the same calls.

pub mod conn;
pub mod counters;
pub mod durability;
mod error;
pub mod file_stats;
pub mod hammer;
mod join;
pub mod keys;
pub mod largeops;
pub mod load;
pub mod logtest;
pub mod managed;
pub mod mysql;
pub mod postgres;
mod precise;
pub mod session;
pub mod sqlite;
mod tls;
pub mod url;

pub use conn::{Conn, EngineFiles, Param, open};
pub use error::DbError;
pub use file_stats::{FileIo, FileStats};
pub use session::{AsyncSession, CallError, ConnectionRoom, Session};
pub use url::{DbUrl, Engine, TlsMode, parse_url};
