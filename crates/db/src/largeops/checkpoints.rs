//! Automatic checkpoints pushed out for the large operations' run, as the article set the
//! recovery interval to its maximum, so the manual checkpoint after the update is timed alone.
//! spindle changes only a server it manages; on another it says so, with the settings that
//! apply. What it changed is put back at the end: the instance is the user's, and its next run
//! must not inherit a checkpoint interval it never asked for. Each engine's statements are its
//! `Conn::push_out_checkpoints`; what they share is here.

use crate::{Conn, DbError};

/// What pushing checkpoints out did: what the user should know, and the statements that put
/// the server's settings back as they were.
pub struct PushedOut {
    pub notes: Vec<String>,
    pub restore: Vec<String>,
}

/// A server spindle does not manage: nothing changed, and the `shown` settings that decide
/// its checkpoints said.
pub(crate) fn left_alone(conn: &mut dyn Conn, shown: &[&str]) -> Result<PushedOut, DbError> {
    let settings = conn.settings()?;
    let current: Vec<String> = shown.iter().filter_map(|k| settings.get(*k).map(|v| format!("{k} {v}"))).collect();
    let note = format!(
        "automatic checkpoints were not pushed out: spindle does not change a server it does not manage ({}); \
         use an instance from spindle db up --defer-checkpoints",
        current.join(", ")
    );
    Ok(PushedOut { notes: vec![note], restore: Vec::new() })
}

/// A value as an SQL string literal.
pub(crate) fn quoted(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// Puts back what `push_out_checkpoints` changed; the statements that failed, with why.
pub fn put_back(conn: &mut dyn Conn, restore: &[String]) -> Vec<String> {
    restore.iter().filter_map(|sql| conn.execute(sql).err().map(|e| format!("{sql}: {e}"))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_quoted_with_its_quotes_doubled() {
        assert_eq!(quoted("1d"), "'1d'");
        assert_eq!(quoted("it's"), "'it''s'");
    }
}
