//! Whether a workload's commits are durable when they return, in words a DBA reads beside its
//! figures: a commit that does not wait for its log to reach the disk is faster, and would be
//! lost at a power cut.

use crate::url::Engine;
use std::collections::BTreeMap;

/// The durability of Database Hammer's commits on `engine` with the server's `settings`
/// (`Conn::settings`); SQLite's sessions set theirs (WAL, `synchronous = NORMAL`).
pub fn hammer_commits(engine: Engine, settings: &BTreeMap<String, String>) -> String {
    let setting = |name: &str| settings.get(name).map(String::as_str).unwrap_or("unknown");
    match engine {
        Engine::Sqlite => "SQLite in WAL mode with synchronous = NORMAL: a commit is not flushed to disk by itself; \
                           the WAL is synced at checkpoints, so a power cut can lose the last commits"
            .to_string(),
        Engine::Postgres => match (setting("fsync"), setting("synchronous_commit")) {
            ("off", _) => "fsync = off: nothing is flushed; a crash can corrupt the database".to_string(),
            (_, "off") => "synchronous_commit = off: commits return before their WAL is flushed (up to \
                           3 x wal_writer_delay of commits can be lost at a crash)"
                .to_string(),
            (_, v) => format!("synchronous_commit = {v}: each commit waits for its WAL to be flushed"),
        },
        Engine::MySql => match setting("innodb_flush_log_at_trx_commit") {
            "1" => "innodb_flush_log_at_trx_commit = 1: each commit waits for its redo log to be flushed".to_string(),
            v => format!(
                "innodb_flush_log_at_trx_commit = {v}: commits return before their redo log is flushed (about a \
                 second of commits can be lost at a crash)"
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_engine_says_whether_a_commit_waits_for_its_log() {
        let set = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert!(hammer_commits(Engine::Postgres, &set(&[("synchronous_commit", "on")])).contains("each commit waits"));
        assert!(hammer_commits(Engine::Postgres, &set(&[("synchronous_commit", "off")])).contains("before"));
        assert!(hammer_commits(Engine::Postgres, &set(&[("fsync", "off")])).contains("corrupt"));
        assert!(hammer_commits(Engine::MySql, &set(&[("innodb_flush_log_at_trx_commit", "2")])).contains("before"));
        assert!(hammer_commits(Engine::Sqlite, &BTreeMap::new()).contains("synchronous = NORMAL"));
    }
}
