//! The PostgreSQL driver: tokio-postgres, and for Hammer's sessions a lean connection of
//! their own (`lean`, see there why). Hammer's procedures are SQL functions,
//! `getaccount` and `updateaccount`; the load is binary COPY over parallel connections with
//! the primary key built afterwards, as `pgbench -i -I dtgp` does.

mod conn;
mod lean;
mod load;
mod session;

pub use conn::PgConn;
pub use load::load;
pub use session::{PgSession, free_connections, loaded_rows};

use crate::{DbError, DbUrl};
/// The connection is spindle-connect's, which the results store opens too.
pub use spindle_connect::postgres::connect;

/// Hammer's table. `char(15)` as the original, collated "C": card numbers are digits, so byte
/// order is their order, and the primary key builds without locale-aware comparisons (16 s
/// to 11.8 s for 10M rows here). ChargeDate a timestamp; Amount a bigint of 1/10000 units
/// (money's scale), exact and cheap to COPY.
const CREATE_TABLE: &str = "CREATE TABLE IF NOT EXISTS testtransaction (
    cardno char(15) COLLATE \"C\" NOT NULL,
    chargedate timestamp NOT NULL,
    amount bigint NOT NULL
)";

/// Marks the tables as spindle's, and records which load chunks are complete.
const CREATE_MARKER: &str = "CREATE TABLE IF NOT EXISTS spindle_hammer (key text PRIMARY KEY, value text NOT NULL)";

const CREATE_FUNCTIONS: &str = "
CREATE OR REPLACE FUNCTION getaccount(p_cardno char(15)) RETURNS TABLE (chargedate timestamp, amount bigint)
    LANGUAGE sql STABLE AS $$ SELECT chargedate, amount FROM testtransaction WHERE cardno = p_cardno $$;
CREATE OR REPLACE FUNCTION updateaccount(p_cardno char(15), p_amount bigint) RETURNS void
    LANGUAGE sql AS $$ UPDATE testtransaction SET amount = amount + p_amount, chargedate = now() WHERE cardno = p_cardno $$;";

/// A refused connection of Hammer's lean sessions, said as tokio-postgres's are.
pub(crate) fn refused(url: &DbUrl, cause: String, code: Option<&str>) -> DbError {
    spindle_connect::postgres::refused(url, cause, code).into()
}

pub(crate) fn sql_error(url: &DbUrl, e: tokio_postgres::Error) -> DbError {
    let cause = e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_string());
    DbError::Server { db: url.to_string(), cause }
}
