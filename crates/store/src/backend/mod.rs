//! The database under the store: an SQLite file, or a PostgreSQL database a team shares. The
//! store's queries are written once, in the SQL both speak, against `Conn`: statements with
//! `?` or `?N` placeholders and `Value` arguments, rows read by column index through `Row`,
//! and transactions. What differs between the two (placeholders, column types, the JSON
//! path syntax, how a database is marked as a spindle store, how creators are serialised) is
//! in this module and its two files, nowhere else.

#[cfg(feature = "postgres")]
mod postgres;
mod sqlite;

use crate::{Location, StoreError};

/// An argument of a statement, or a column's value in a row.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.into())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// A column that is not of the type its reader expects (a store changed by hand).
#[derive(Debug)]
pub(crate) struct ColumnError {
    column: usize,
    want: &'static str,
}

/// One row of a query's result.
pub(crate) struct Row(Vec<Value>);

impl Row {
    fn get(&self, column: usize, want: &'static str) -> Result<&Value, ColumnError> {
        self.0.get(column).ok_or(ColumnError { column, want })
    }

    pub fn int(&self, column: usize) -> Result<i64, ColumnError> {
        self.opt_int(column)?.ok_or(ColumnError { column, want: "an integer" })
    }

    pub fn opt_int(&self, column: usize) -> Result<Option<i64>, ColumnError> {
        match self.get(column, "an integer")? {
            Value::Int(v) => Ok(Some(*v)),
            Value::Null => Ok(None),
            _ => Err(ColumnError { column, want: "an integer" }),
        }
    }

    /// A real, or an integer read as one (SQLite keeps `2.0` in a REAL column as `2`).
    pub fn real(&self, column: usize) -> Result<f64, ColumnError> {
        match self.get(column, "a number")? {
            Value::Real(v) => Ok(*v),
            Value::Int(v) => Ok(*v as f64),
            _ => Err(ColumnError { column, want: "a number" }),
        }
    }

    pub fn text(&self, column: usize) -> Result<String, ColumnError> {
        self.opt_text(column)?.ok_or(ColumnError { column, want: "text" })
    }

    pub fn opt_text(&self, column: usize) -> Result<Option<String>, ColumnError> {
        match self.get(column, "text")? {
            Value::Text(v) => Ok(Some(v.clone())),
            Value::Null => Ok(None),
            _ => Err(ColumnError { column, want: "text" }),
        }
    }
}

/// How a database identified itself, read without changing it.
pub(crate) struct Identity {
    /// spindle's `APPLICATION_ID` in a store; 0 where nothing marks the database.
    pub application_id: i64,
    pub version: i64,
    /// Tables (and views) the database holds, the marker's aside.
    pub tables: i64,
}

/// A connection to the store's database.
pub(crate) enum Conn {
    Sqlite(sqlite::SqliteConn),
    #[cfg(feature = "postgres")]
    Postgres(postgres::PgConn),
}

/// What two spindles must not do in one store at the same moment.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Serial {
    /// Migrating its schema.
    Schema = 0,
    /// Importing files: each checks that its file is not stored yet, then saves it.
    Import = 1,
}

/// Which SQL dialect a statement is turned into.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    Sqlite,
    Postgres,
}

impl Conn {
    /// Connects to the store's database: an SQLite file (made, with its directory, when
    /// `create`; `None` when missing and not `create`), or a PostgreSQL database (never made:
    /// that is its owner's to do).
    pub fn open(at: &Location, create: bool) -> Result<Option<Conn>, StoreError> {
        match at {
            Location::File(path) => Ok(sqlite::SqliteConn::open(path, create)?.map(Conn::Sqlite)),
            #[cfg(feature = "postgres")]
            Location::Server(url) => Ok(Some(Conn::Postgres(postgres::PgConn::open(url)?))),
            #[cfg(not(feature = "postgres"))]
            Location::Server(_) => Err(StoreError::Unreachable {
                store: at.to_string(),
                cause: "this spindle was built without the PostgreSQL driver (cargo feature `postgres`); build it \
                        with `cargo build --release --features postgres`, or with the default features"
                    .into(),
            }),
        }
    }

    pub fn dialect(&self) -> Dialect {
        match self {
            Conn::Sqlite(_) => Dialect::Sqlite,
            #[cfg(feature = "postgres")]
            Conn::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Whether this connection no longer reaches the store it opened: a file replaced or
    /// removed, a server connection ended.
    pub fn gone(&self) -> bool {
        match self {
            Conn::Sqlite(c) => c.gone(),
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => c.gone(),
        }
    }

    /// The store as messages name it (any password masked).
    pub fn shown(&self) -> &str {
        match self {
            Conn::Sqlite(c) => &c.shown,
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => &c.shown,
        }
    }

    pub(crate) fn error(&self, cause: impl ToString) -> StoreError {
        StoreError::Database { store: self.shown().to_string(), cause: cause.to_string() }
    }

    fn column_error(&self, e: ColumnError) -> StoreError {
        self.error(format!("column {} of a row is not {} (was the store changed by hand?)", e.column + 1, e.want))
    }

    /// Runs one statement; returns how many rows it changed.
    pub fn execute(&self, sql: &str, args: &[Value]) -> Result<u64, StoreError> {
        match self {
            Conn::Sqlite(c) => {
                c.check_mapped()?;
                c.execute(sql, args).map_err(|e| self.error(e))
            }
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => c.execute(&numbered(sql), args),
        }
    }

    /// Runs statements without arguments, one after another.
    pub fn batch(&self, sql: &str) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(c) => {
                c.check_mapped()?;
                c.batch(sql).map_err(|e| self.error(e))
            }
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => c.batch(sql),
        }
    }

    /// Every row of a query, each read by `each`.
    pub fn query<T>(
        &self,
        sql: &str,
        args: &[Value],
        mut each: impl FnMut(&Row) -> Result<T, ColumnError>,
    ) -> Result<Vec<T>, StoreError> {
        let rows = match self {
            Conn::Sqlite(c) => {
                c.check_mapped()?;
                c.query(sql, args).map_err(|e| self.error(e))?
            }
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => c.query(&numbered(sql), args)?,
        };
        rows.iter().map(|r| each(r).map_err(|e| self.column_error(e))).collect()
    }

    /// The first row of a query, if any.
    pub fn query_first<T>(
        &self,
        sql: &str,
        args: &[Value],
        each: impl FnMut(&Row) -> Result<T, ColumnError>,
    ) -> Result<Option<T>, StoreError> {
        Ok(self.query(sql, args, each)?.into_iter().next())
    }

    /// Runs `work` in a transaction that writes: committed when it returns `Ok`, rolled back
    /// otherwise. SQLite takes the write lock at once (waiting for another writer), so what
    /// `work` reads first is still so when it writes.
    pub fn write<T>(&self, work: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
        self.write_unless(|| work().map(Ok::<T, std::convert::Infallible>)).map(|done| match done {
            Ok(done) => done,
        })
    }

    /// As `write`, and what `work` refuses (`Ok(Err(_))`, an import whose file broke half
    /// way) is rolled back too.
    pub fn write_unless<T, E>(
        &self,
        work: impl FnOnce() -> Result<Result<T, E>, StoreError>,
    ) -> Result<Result<T, E>, StoreError> {
        self.writable()?;
        self.batch(match self.dialect() {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN",
        })?;
        match work() {
            Ok(Ok(done)) => {
                self.batch("COMMIT")?;
                Ok(Ok(done))
            }
            Ok(Err(refused)) => {
                self.batch("ROLLBACK")?;
                Ok(Err(refused))
            }
            Err(e) => {
                // The error said is the first; a rollback on a broken connection fails too.
                let _ = self.batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// An error when the store cannot be written for a reason known before trying: an SQLite
    /// file (or its log or index) made immutable.
    pub fn writable(&self) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(c) => c.check_writable(),
            #[cfg(feature = "postgres")]
            Conn::Postgres(_) => Ok(()),
        }
    }

    /// What the database says it is, without changing it.
    pub fn identity(&self) -> Result<Identity, StoreError> {
        match self {
            Conn::Sqlite(c) => c.identity(),
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => c.identity(),
        }
    }

    /// Inside a write transaction, before anything is read: waits for any other spindle doing
    /// `what` in the same store (SQLite's write lock, which `write` takes, already serializes
    /// every writer; PostgreSQL's transactions need an advisory lock for it).
    #[cfg_attr(not(feature = "postgres"), allow(unused_variables))]
    pub fn serialize(&self, what: Serial) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(_) => Ok(()),
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => c.serialize(what),
        }
    }

    /// Marks the database as a spindle store at `version`, in the migration's transaction.
    pub fn mark(&self, version: i64) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(c) => c.mark(version).map_err(|e| self.error(e)),
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => c.mark(version),
        }
    }

    /// After a migration: what the backend turns on once the database is known to be a store.
    pub fn opened(&self) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(c) => c.use_wal(),
            #[cfg(feature = "postgres")]
            Conn::Postgres(_) => Ok(()),
        }
    }

    /// What a database that is not spindle's is, in words.
    pub fn foreign(&self, id: &Identity) -> String {
        match (self.dialect(), id.application_id) {
            (Dialect::Sqlite, 0) => "an SQLite database of another program".into(),
            (Dialect::Sqlite, app) => format!("an SQLite database of another program (application id {app:#x})"),
            (Dialect::Postgres, 0) => format!("a PostgreSQL database holding {} tables of another program", id.tables),
            (Dialect::Postgres, app) => format!("a PostgreSQL database marked by another program (id {app:#x})"),
        }
    }
}

impl Dialect {
    /// A statement of the store's layout with the types each database calls its own:
    /// `{id}` an ever-increasing key (never reused), `{int}` a 64-bit integer, `{real}` a
    /// double, `{without_rowid}` SQLite's clustered table.
    pub fn layout(self, sql: &str) -> String {
        let (id, int, real, without_rowid) = match self {
            Dialect::Sqlite => ("INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER", "REAL", " WITHOUT ROWID"),
            Dialect::Postgres => ("BIGSERIAL PRIMARY KEY", "BIGINT", "DOUBLE PRECISION", ""),
        };
        sql.replace("{id}", id).replace("{int}", int).replace("{real}", real).replace("{without_rowid}", without_rowid)
    }

    /// The text at `path` (dot-separated keys) in the JSON text of `column`, NULL where absent.
    pub fn json_text(self, column: &str, path: &[&str]) -> String {
        match self {
            Dialect::Sqlite => format!("json_extract({column}, '$.{}')", path.join(".")),
            Dialect::Postgres => format!("({column}::jsonb #>> '{{{}}}')", path.join(",")),
        }
    }
}

/// `?` and `?N` placeholders as PostgreSQL's `$N` (a bare `?` numbered after the one before
/// it, as SQLite does), leaving quoted text alone.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut chars = sql.chars().peekable();
    let (mut last, mut quoted) = (0u32, false);
    while let Some(c) = chars.next() {
        if c == '\'' {
            quoted = !quoted;
        }
        if c != '?' || quoted {
            out.push(c);
            continue;
        }
        let mut digits = String::new();
        while let Some(d) = chars.next_if(char::is_ascii_digit) {
            digits.push(d);
        }
        last = digits.parse().unwrap_or(last + 1);
        out.push('$');
        out.push_str(&last.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_become_numbered_outside_quotes() {
        assert_eq!(numbered("a = ? AND b = ? LIMIT ?"), "a = $1 AND b = $2 LIMIT $3");
        assert_eq!(numbered("VALUES (?1, ?2, ?10)"), "VALUES ($1, $2, $10)");
        assert_eq!(numbered("x = '?' AND y = ?"), "x = '?' AND y = $1");
    }

    #[test]
    fn layout_and_json_paths_in_each_dialect() {
        let sql = "CREATE TABLE t (id {id}, n {int}, r {real}){without_rowid}";
        let sqlite = "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, n INTEGER, r REAL) WITHOUT ROWID";
        assert_eq!(Dialect::Sqlite.layout(sql), sqlite);
        let postgres = "CREATE TABLE t (id BIGSERIAL PRIMARY KEY, n BIGINT, r DOUBLE PRECISION)";
        assert_eq!(Dialect::Postgres.layout(sql), postgres);
        assert_eq!(Dialect::Sqlite.json_text("json", &["a", "b"]), "json_extract(json, '$.a.b')");
        assert_eq!(Dialect::Postgres.json_text("json", &["a", "b"]), "(json::jsonb #>> '{a,b}')");
    }
}
