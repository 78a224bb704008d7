//! A store in a PostgreSQL database that many hosts share. The connection is spindle-connect's
//! (the same URL forms, TLS and connect timeout as `--db`), driven by a runtime of its own.
//! The database is marked as a store by a one-row table, `spindle_store`, holding spindle's
//! application id and the schema version; migrations hold a transaction-scoped advisory lock,
//! so spindles on many hosts opening a new store at once apply each step once.

use super::{Identity, Row, Value};
use crate::StoreError;
use crate::schema::APPLICATION_ID;
use bytes::BytesMut;
use spindle_connect::{ConnectError, DbUrl};
use std::cell::RefCell;
use std::collections::HashMap;
use std::error::Error;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Client, Statement};

pub(crate) struct PgConn {
    rt: tokio::runtime::Runtime,
    client: Client,
    /// Statements prepared on this connection, by their text.
    prepared: RefCell<HashMap<String, Statement>>,
    pub shown: String,
}

/// The marker table: created by the first migration, in its transaction.
const MARKER: &str = "spindle_store";

impl PgConn {
    pub fn open(url: &DbUrl) -> Result<PgConn, StoreError> {
        let shown = url.to_string();
        let unreachable = |cause: String| StoreError::Unreachable { store: shown.clone(), cause };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| unreachable(format!("cannot start the connection's runtime: {e}")))?;
        let client =
            rt.block_on(spindle_connect::postgres::connect(url)).map_err(|e| unreachable(cause_of(&e, &shown)))?;
        Ok(PgConn { rt, client, prepared: RefCell::new(HashMap::new()), shown })
    }

    /// Whether the connection has ended (the server restarted or went away): tokio-postgres
    /// notices it at the first statement that fails on it.
    pub fn gone(&self) -> bool {
        self.client.is_closed()
    }

    fn error(&self, e: tokio_postgres::Error) -> StoreError {
        let cause = match e.as_db_error() {
            Some(db) => db.message().to_string(),
            None => e.to_string(),
        };
        StoreError::Database { store: self.shown.clone(), cause }
    }

    fn statement(&self, sql: &str) -> Result<Statement, StoreError> {
        if let Some(s) = self.prepared.borrow().get(sql) {
            return Ok(s.clone());
        }
        let s = self.rt.block_on(self.client.prepare(sql)).map_err(|e| self.error(e))?;
        self.prepared.borrow_mut().insert(sql.to_string(), s.clone());
        Ok(s)
    }

    pub fn execute(&self, sql: &str, args: &[Value]) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as &(dyn ToSql + Sync)).collect();
        self.rt.block_on(self.client.execute(&statement, &params)).map_err(|e| self.error(e))
    }

    pub fn batch(&self, sql: &str) -> Result<(), StoreError> {
        self.rt.block_on(self.client.batch_execute(sql)).map_err(|e| self.error(e))
    }

    pub fn query(&self, sql: &str, args: &[Value]) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as &(dyn ToSql + Sync)).collect();
        let rows = self.rt.block_on(self.client.query(&statement, &params)).map_err(|e| self.error(e))?;
        rows.iter()
            .map(|r| (0..r.len()).map(|i| value(r, i)).collect::<Result<_, _>>().map(Row))
            .collect::<Result<_, _>>()
            .map_err(|e| self.error(e))
    }

    /// The marker's row where there is one, and the tables in the database's own schemas
    /// (the marker aside), counted in the same statement: from one snapshot.
    pub fn identity(&self) -> Result<Identity, StoreError> {
        let sql = format!(
            "SELECT to_regclass('{MARKER}') IS NOT NULL, \
                    (SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
                     WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relname <> '{MARKER}' \
                       AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%')"
        );
        let row = self.rt.block_on(self.client.query_one(&sql, &[])).map_err(|e| self.error(e))?;
        let (marked, tables): (bool, i64) = (row.get(0), row.get(1));
        if !marked {
            return Ok(Identity { application_id: 0, version: 0, tables });
        }
        let marker = format!("SELECT application_id, schema_version FROM {MARKER}");
        let row = self.rt.block_on(self.client.query_opt(&marker, &[])).map_err(|e| self.error(e))?;
        let (application_id, version) = row
            .map(|r| (r.try_get::<_, i64>(0), r.try_get::<_, i64>(1)))
            .map(|(a, v)| Ok::<_, tokio_postgres::Error>((a?, v?)))
            .transpose()
            .map_err(|e| self.error(e))?
            // A marker table without its row, or of another shape: not spindle's.
            .unwrap_or((-1, 0));
        Ok(Identity { application_id, version, tables })
    }

    /// Waits for any other spindle doing `what` in this database; released when the
    /// transaction ends.
    pub fn serialize(&self, what: super::Serial) -> Result<(), StoreError> {
        let key = APPLICATION_ID + what as i64;
        self.batch(&format!("SELECT pg_advisory_xact_lock({key})"))
    }

    pub fn mark(&self, version: i64) -> Result<(), StoreError> {
        self.batch(&format!(
            "CREATE TABLE IF NOT EXISTS {MARKER} (application_id BIGINT NOT NULL, schema_version BIGINT NOT NULL);
             DELETE FROM {MARKER};
             INSERT INTO {MARKER} (application_id, schema_version) VALUES ({APPLICATION_ID}, {version});"
        ))
    }
}

/// A connection's failure in words, without the URL the connection puts first (the store error
/// names it) and with the flag to change being `--store`.
fn cause_of(e: &ConnectError, shown: &str) -> String {
    let text = match e {
        ConnectError::Refused { cause, hint, .. } => {
            format!("cannot connect: {cause}; {}", hint.replace("--db", "--store"))
        }
        other => other.to_string(),
    };
    text.strip_prefix(&format!("{shown}: ")).map(str::to_string).unwrap_or(text)
}

/// Column `i` of `row` as a `Value`, by its type in PostgreSQL.
fn value(row: &tokio_postgres::Row, i: usize) -> Result<Value, tokio_postgres::Error> {
    let ty = row.columns()[i].type_();
    Ok(match *ty {
        Type::INT8 => row.try_get::<_, Option<i64>>(i)?.map(Value::Int),
        Type::INT4 => row.try_get::<_, Option<i32>>(i)?.map(|v| Value::Int(v.into())),
        Type::INT2 => row.try_get::<_, Option<i16>>(i)?.map(|v| Value::Int(v.into())),
        Type::BOOL => row.try_get::<_, Option<bool>>(i)?.map(|v| Value::Int(v.into())),
        Type::FLOAT8 => row.try_get::<_, Option<f64>>(i)?.map(Value::Real),
        Type::FLOAT4 => row.try_get::<_, Option<f32>>(i)?.map(|v| Value::Real(v.into())),
        _ => row.try_get::<_, Option<String>>(i)?.map(Value::Text),
    }
    .unwrap_or(Value::Null))
}

impl ToSql for Value {
    /// Integers as whichever integer type the statement wants (or a double), reals as a
    /// double, text as text, NULL as anything; any other pairing is an error, never bytes
    /// of one type sent as another.
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) if *ty == Type::INT8 => i.to_sql(ty, out),
            Value::Int(i) if *ty == Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
            Value::Int(i) if *ty == Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
            Value::Int(i) if *ty == Type::FLOAT8 => (*i as f64).to_sql(ty, out),
            Value::Real(r) if *ty == Type::FLOAT8 => r.to_sql(ty, out),
            Value::Text(t) if <&str as ToSql>::accepts(ty) => t.to_sql(ty, out),
            other => Err(format!("{other:?} cannot be sent as {ty}").into()),
        }
    }

    fn accepts(ty: &Type) -> bool {
        [Type::INT8, Type::INT4, Type::INT2, Type::FLOAT8].contains(ty) || <&str as ToSql>::accepts(ty)
    }

    to_sql_checked!();
}
