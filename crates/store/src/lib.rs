//! spindle's results store: every measured run, kept with its labels, spec, environment,
//! summary, time series and histograms, so runs can be listed, shown, removed and compared
//! later. A store is one SQLite file (the default), or a PostgreSQL database that a team
//! shares between hosts; both have the same layout and migrations (see `backend`). The run
//! record (spindle-model) is the only thing stored; the summary columns are copies of its
//! fields, for fast listing and selection.

pub mod agents;
mod backend;
mod commit_columns;
mod each_run;
mod error;
mod location;
pub mod private;
pub mod progress;
mod query;
mod reading;
#[cfg(test)]
mod reading_tests;
mod records_v2;
mod save;
mod schema;
pub mod selection;
#[cfg(test)]
mod tests;
#[cfg(all(test, feature = "postgres"))]
mod tests_postgres;
#[cfg(test)]
mod v1_store_tests;

pub use error::StoreError;
pub use location::{Location, data_dir, store_location};
pub use query::{Filter, RunSummary, StoredGroup, StoredRun, TimeBound};
pub use reading::{PageQuery, SortKey};
pub use save::Placement;
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use spindle_model::group::{GroupKind, Point};

use backend::Conn;
use schema::Found;

pub struct Store {
    conn: Conn,
    location: Location,
}

impl Store {
    /// Opens the store at `at` (a path, or a `Location`) for saving, creating it when
    /// missing: an SQLite file with its directory, or spindle's tables in an empty PostgreSQL
    /// database (the database itself is its owner's to make). A file or database that is not
    /// a spindle store, or one from a newer spindle, is refused untouched.
    pub fn open(at: impl Into<Location>) -> Result<Store, StoreError> {
        let location = at.into();
        let conn = Conn::open(&location, true)?.ok_or_else(|| StoreError::Database {
            store: location.to_string(),
            cause: "it could not be created".into(),
        })?;
        let from = match schema::inspect(&conn)? {
            Found::Store(v) => v,
            Found::Empty => 0,
        };
        schema::migrate(&conn, from)?;
        // Set once the database is known to be ours.
        conn.opened()?;
        Ok(Store { conn, location })
    }

    /// Opens an existing store for reading and removing. `None` when there is no store yet
    /// (no file, an empty one, a database without spindle's tables): there are no runs.
    /// Never creates anything.
    pub fn open_existing(at: impl Into<Location>) -> Result<Option<Store>, StoreError> {
        let location = at.into();
        let Some(conn) = Conn::open(&location, false)? else { return Ok(None) };
        match schema::inspect(&conn)? {
            Found::Empty => Ok(None),
            Found::Store(v) => {
                schema::migrate(&conn, v)?;
                Ok(Some(Store { conn, location }))
            }
        }
    }

    /// Whether this handle no longer reads the store at its location: the SQLite file was
    /// replaced, renamed or removed, or the server connection ended. A long-lived reader
    /// (serve) opens the store again when so.
    pub fn is_gone(&self) -> bool {
        self.conn.gone()
    }

    /// Where the store is (`Display` masks a URL's password).
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// An error when nothing could be saved in the store for a reason known before trying (a
    /// file of it made immutable), so a command says it before it measures.
    pub fn writable(&self) -> Result<(), StoreError> {
        self.conn.writable()
    }
}
