//! Automatic checkpoints pushed out for the run, as the article set the recovery interval to
//! its maximum, so the manual checkpoint after the update is timed alone. spindle changes only
//! a server it manages; on another it says so, with the settings that apply. What it changed is
//! put back at the end: the instance is the user's, and its next run must not inherit a
//! checkpoint interval it never asked for.

use spindle_db::{Conn, DbError, Engine};

/// What pushing checkpoints out did: what the user should know, and the statements that put
/// the server's settings back as they were.
pub struct PushedOut {
    pub notes: Vec<String>,
    pub restore: Vec<String>,
}

/// PostgreSQL's settings the run changes with ALTER SYSTEM (kept in postgresql.auto.conf).
const POSTGRES: [(&str, &str); 2] = [("checkpoint_timeout", "1d"), ("max_wal_size", "100GB")];
/// MariaDB's, changed with SET GLOBAL (gone at a restart, but not before).
const MARIADB: [(&str, &str); 3] = [
    ("innodb_max_dirty_pages_pct", "99"),
    ("innodb_max_dirty_pages_pct_lwm", "0"),
    ("innodb_adaptive_flushing", "OFF"),
];

/// Pushes automatic checkpoints out on a managed instance.
pub fn push_out(conn: &mut dyn Conn, managed: bool) -> Result<PushedOut, DbError> {
    let engine = conn.engine();
    if !managed {
        let settings = conn.settings()?;
        let shown = |k: &str| settings.get(k).map(|v| format!("{k} {v}"));
        let current: Vec<String> = match engine {
            Engine::Postgres => ["checkpoint_timeout", "max_wal_size"].iter().filter_map(|k| shown(k)).collect(),
            Engine::MySql => {
                ["innodb_log_file_size", "innodb_max_dirty_pages_pct"].iter().filter_map(|k| shown(k)).collect()
            }
            Engine::Sqlite => ["wal_autocheckpoint"].iter().filter_map(|k| shown(k)).collect(),
        };
        // The run's own connection: the pragma ends with it, nothing to put back.
        if engine == Engine::Sqlite {
            conn.execute("PRAGMA wal_autocheckpoint = 0")?;
            let note = "SQLite's automatic WAL checkpoints are off for the run (wal_autocheckpoint 0)";
            return Ok(PushedOut { notes: vec![note.into()], restore: Vec::new() });
        }
        let note = format!(
            "automatic checkpoints were not pushed out: spindle does not change a server it does not manage ({}); \
             use an instance from spindle db up --defer-checkpoints",
            current.join(", ")
        );
        return Ok(PushedOut { notes: vec![note], restore: Vec::new() });
    }
    let mut restore = Vec::new();
    match engine {
        // One statement at a time: ALTER SYSTEM refuses to run inside a transaction block.
        Engine::Postgres => {
            for (name, value) in POSTGRES {
                restore.push(match auto_conf_value(conn, name) {
                    Some(before) => format!("ALTER SYSTEM SET {name} = {}", quoted(&before)),
                    None => format!("ALTER SYSTEM RESET {name}"),
                });
                conn.execute(&format!("ALTER SYSTEM SET {name} = {}", quoted(value)))?;
            }
            conn.execute("SELECT pg_reload_conf()")?;
            restore.push("SELECT pg_reload_conf()".into());
        }
        // InnoDB has no checkpoint timer: no early flushing, no adaptive flushing and a high
        // dirty-page limit are as far as it goes without a larger redo log (a restart).
        Engine::MySql => {
            for (name, value) in MARIADB {
                if let Some(before) = conn.query_text(&format!("SELECT @@GLOBAL.{name}"))? {
                    // These are numbers (a switch reads back as 0 or 1), which SET takes bare.
                    let value = if before.parse::<f64>().is_ok() { before } else { quoted(&before) };
                    restore.push(format!("SET GLOBAL {name} = {value}"));
                }
                conn.execute(&format!("SET GLOBAL {name} = {value}"))?;
            }
        }
        Engine::Sqlite => {}
    }
    let note = match engine {
        Engine::Postgres => "automatic checkpoints pushed out: checkpoint_timeout 1d, max_wal_size 100GB".into(),
        _ => "automatic flushing pushed out: innodb_max_dirty_pages_pct 99, no early or adaptive flushing; a full redo log still forces a checkpoint".into(),
    };
    Ok(PushedOut { notes: vec![note], restore })
}

/// A setting's value in postgresql.auto.conf (what an earlier ALTER SYSTEM left), if any. An
/// instance spindle started keeps its own settings in another file, so most often none.
fn auto_conf_value(conn: &mut dyn Conn, name: &str) -> Option<String> {
    let sql = format!(
        "SELECT setting FROM pg_file_settings WHERE name = '{name}' \
         AND sourcefile LIKE '%postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1"
    );
    conn.query_text(&sql).ok().flatten()
}

/// A value as an SQL string literal.
fn quoted(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// Puts back what `push_out` changed; the statements that failed, with why.
pub fn put_back(conn: &mut dyn Conn, restore: &[String]) -> Vec<String> {
    restore.iter().filter_map(|sql| conn.execute(sql).err().map(|e| format!("{sql}: {e}"))).collect()
}
