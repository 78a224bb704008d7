//! The test's table on each engine: an ascending key and a payload of exactly the row's
//! width that the engine stores as it is (no compression, no out-of-line storage), so every
//! row costs the log its full width, as the original's `char(4000)` did.

use crate::{Conn, DbError, Engine};

const TABLE: &str = "spindle_logtest";

/// Creates the table (replacing spindle's own from an earlier run), with the engine set for
/// a durable commit: SQLite in WAL mode with `synchronous = FULL`.
pub fn create(conn: &mut dyn Conn, row_bytes: u64) -> Result<(), DbError> {
    drop(conn)?;
    let ddl = match conn.engine() {
        Engine::Postgres => format!(
            "CREATE TABLE {TABLE} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, somedata char({row_bytes}) NOT NULL); \
             ALTER TABLE {TABLE} ALTER COLUMN somedata SET STORAGE PLAIN"
        ),
        // CHAR stops at 255 characters in InnoDB; a latin1 VARCHAR filled to its width is
        // the same bytes.
        Engine::MySql => format!(
            "CREATE TABLE {TABLE} (id BIGINT AUTO_INCREMENT PRIMARY KEY, \
             somedata VARCHAR({row_bytes}) CHARACTER SET latin1 NOT NULL) ENGINE = InnoDB"
        ),
        Engine::Sqlite => format!(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
             CREATE TABLE {TABLE} (id INTEGER PRIMARY KEY, somedata TEXT NOT NULL)"
        ),
    };
    conn.execute(&ddl)
}

/// Drops spindle's table, if it is there.
pub fn drop(conn: &mut dyn Conn) -> Result<(), DbError> {
    conn.execute(&format!("DROP TABLE IF EXISTS {TABLE}"))
}

/// The insert each row makes.
pub(super) const INSERT: &str = "INSERT INTO spindle_logtest (somedata) VALUES (?)";

/// Row `i`'s payload: its number padded with spaces to the row's width, as the original's
/// `CAST(@i AS char(4000))`.
pub(super) fn payload(i: u64, row_bytes: u64, out: &mut String) {
    use std::fmt::Write;
    out.clear();
    let _ = write!(out, "{i}");
    let width = row_bytes as usize;
    if out.len() < width {
        out.extend(std::iter::repeat_n(' ', width - out.len()));
    }
    out.truncate(width);
}

#[cfg(test)]
mod tests {
    #[test]
    fn payloads_are_exactly_the_width() {
        let mut s = String::new();
        super::payload(42, 4000, &mut s);
        assert_eq!((s.len(), &s[..3]), (4000, "42 "));
        super::payload(123_456, 3, &mut s);
        assert_eq!(s, "123");
    }
}
