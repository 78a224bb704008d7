//! The article's `customer` table on each engine (its appendix's DDL), as spindle's own
//! `spindle_customer`, with its two indexes: the clustered key (c_w_id, c_d_id, c_id) and
//! (c_w_id, c_d_id, c_last, c_first, c_id). The indexes are made before the load, as the
//! article's were, so the load maintains them as SQL Server's did.

use crate::{Conn, DbError, Engine};

pub const TABLE: &str = "spindle_customer";

/// Drops spindle's table if it is there, then creates it empty with its indexes.
pub fn create(conn: &mut dyn Conn) -> Result<(), DbError> {
    drop(conn)?;
    // MariaDB's CHAR stops at 255 characters: c_data is VARCHAR(500) there, in latin1, so a
    // row's bytes are its characters as on the other engines. SQLite keeps text as given.
    let (data, tail, charset) = match conn.engine() {
        Engine::Postgres => ("char(500)", "", ""),
        Engine::MySql => ("varchar(500)", " ENGINE = InnoDB", " CHARACTER SET latin1"),
        Engine::Sqlite => ("text", " WITHOUT ROWID", ""),
    };
    let (tiny, since) = match conn.engine() {
        Engine::Postgres => ("smallint", "timestamp"),
        _ => ("tinyint", "datetime"),
    };
    let ddl = format!(
        "CREATE TABLE {TABLE} (
            c_id int NOT NULL, c_d_id {tiny} NOT NULL, c_w_id int NOT NULL,
            c_first char(16), c_middle char(2), c_last char(16),
            c_street_1 char(20), c_street_2 char(20), c_city char(20), c_state char(2), c_zip char(9),
            c_phone char(16), c_since {since}, c_credit char(2), c_credit_lim numeric(12,2),
            c_discount numeric(4,4), c_balance numeric(12,2), c_ytd_payment numeric(12,2),
            c_payment_cnt smallint, c_delivery_cnt smallint, c_data {data},
            PRIMARY KEY (c_w_id, c_d_id, c_id)
        ){charset}{tail}"
    );
    if conn.engine() == Engine::Sqlite {
        // In WAL mode, as the servers: the update's pages wait in the log for the checkpoint.
        conn.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")?;
    }
    conn.execute(&ddl)?;
    conn.execute(&format!("CREATE UNIQUE INDEX {TABLE}_nc1 ON {TABLE} (c_w_id, c_d_id, c_last, c_first, c_id)"))
}

pub fn drop(conn: &mut dyn Conn) -> Result<(), DbError> {
    conn.execute(&format!("DROP TABLE IF EXISTS {TABLE}"))
}

/// The article's scan: an aggregate over a column no index holds.
pub const SCAN: &str = "SELECT avg(c_balance) FROM spindle_customer";

/// The article's full-table update, in each engine's string functions.
pub fn update(engine: Engine) -> &'static str {
    match engine {
        Engine::MySql => "UPDATE spindle_customer SET c_data = CONCAT('a', SUBSTRING(c_data, 2))",
        Engine::Postgres | Engine::Sqlite => "UPDATE spindle_customer SET c_data = 'a' || substr(c_data, 2)",
    }
}
