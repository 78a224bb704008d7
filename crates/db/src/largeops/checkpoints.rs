//! Automatic checkpoints pushed out for the large operations' run, as the article set the
//! recovery interval to its maximum, so the manual checkpoint after the update is timed alone.
//! spindle changes only a server it manages; on another it says so, with the settings that
//! apply. What it changed is put back at the end: the instance is the user's, and its next run
//! must not inherit a checkpoint interval it never asked for. The course is here, once; each
//! engine's `Conn::push_out_checkpoints` gives its settings and statements (`Pushing`).

use crate::{Conn, DbError};

/// What pushing checkpoints out did: what the user should know, and the statements that put
/// the server's settings back as they were.
pub struct PushedOut {
    pub notes: Vec<String>,
    pub restore: Vec<String>,
}

/// What one server engine pushes out, and the statements it does it with.
pub(crate) struct Pushing {
    /// The settings that decide its checkpoints, said on a server spindle does not manage.
    pub shown: &'static [&'static str],
    /// What a run on a managed server sets, and to what.
    pub settings: &'static [(&'static str, &'static str)],
    /// The statement that sets one (`ALTER SYSTEM SET checkpoint_timeout = '1d'`).
    pub set: fn(&str, &str) -> String,
    /// The statement that will put one back as it is now, read before it is set (`None`:
    /// nothing to put back).
    pub restore: fn(&mut dyn Conn, &str) -> Result<Option<String>, DbError>,
    /// A statement that makes the settings take effect, after they are set and put back.
    pub apply: Option<&'static str>,
    /// What is said once they are set.
    pub note: &'static str,
}

/// Pushes `engine`'s automatic checkpoints out on a managed server; on another, says so.
pub(crate) fn push_out(conn: &mut dyn Conn, managed: bool, engine: &Pushing) -> Result<PushedOut, DbError> {
    if !managed {
        return left_alone(conn, engine.shown);
    }
    let mut restore = Vec::new();
    // One statement at a time: ALTER SYSTEM refuses to run inside a transaction block.
    for (name, value) in engine.settings {
        restore.extend((engine.restore)(conn, name)?);
        conn.execute(&(engine.set)(name, value))?;
    }
    if let Some(apply) = engine.apply {
        conn.execute(apply)?;
        restore.push(apply.into());
    }
    Ok(PushedOut { notes: vec![engine.note.into()], restore })
}

/// A server spindle does not manage: nothing changed, and the `shown` settings that decide
/// its checkpoints said.
fn left_alone(conn: &mut dyn Conn, shown: &[&str]) -> Result<PushedOut, DbError> {
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
