//! Automatic checkpoints pushed out for the run, as the article set the recovery interval to
//! its maximum, so the manual checkpoint after the update is timed alone. spindle changes only
//! a server it manages; on another it says so, with the settings that apply.

use spindle_db::{Conn, DbError, Engine};

/// Pushes automatic checkpoints out on a managed instance; returns what the user should know.
pub fn push_out(conn: &mut dyn Conn, managed: bool) -> Result<Vec<String>, DbError> {
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
        if engine == Engine::Sqlite {
            conn.execute("PRAGMA wal_autocheckpoint = 0")?;
            return Ok(vec!["SQLite's automatic WAL checkpoints are off for the run (wal_autocheckpoint 0)".into()]);
        }
        return Ok(vec![format!(
            "automatic checkpoints were not pushed out: spindle does not change a server it does not manage ({}); \
             use an instance from spindle db up --defer-checkpoints",
            current.join(", ")
        )]);
    }
    match engine {
        // One statement at a time: ALTER SYSTEM refuses to run inside a transaction block.
        Engine::Postgres => {
            for sql in [
                "ALTER SYSTEM SET checkpoint_timeout = '1d'",
                "ALTER SYSTEM SET max_wal_size = '100GB'",
                "SELECT pg_reload_conf()",
            ] {
                conn.execute(sql)?;
            }
        }
        // InnoDB has no checkpoint timer: no early flushing, no adaptive flushing and a high
        // dirty-page limit are as far as it goes without a larger redo log (a restart).
        Engine::MySql => {
            for sql in [
                "SET GLOBAL innodb_max_dirty_pages_pct = 99",
                "SET GLOBAL innodb_max_dirty_pages_pct_lwm = 0",
                "SET GLOBAL innodb_adaptive_flushing = OFF",
            ] {
                conn.execute(sql)?;
            }
        }
        Engine::Sqlite => {}
    }
    Ok(vec![match engine {
        Engine::Postgres => "automatic checkpoints pushed out: checkpoint_timeout 1d, max_wal_size 100GB".into(),
        _ => "automatic flushing pushed out: innodb_max_dirty_pages_pct 99, no early or adaptive flushing; a full redo log still forces a checkpoint".into(),
    }])
}
