//! What every database command does with `--db`: parse it, never repeating a password.

use crate::origin::Origin;
use crate::usage::UsageError;
use spindle_db::DbUrl;

/// The URL in `--db`; a mistake is said with the URL only as parsed (masked), never as typed.
/// A server URL must name its database: without one PostgreSQL would use the user's own
/// database, which is not where anyone means spindle's tables to go.
pub fn url_of(text: &str) -> Result<DbUrl, UsageError> {
    let url = spindle_db::parse_url(text).map_err(|why| UsageError::at(Origin::Flag("--db"), why))?;
    if url.path.is_none() && url.database.is_none() {
        return Err(UsageError::at(
            Origin::Flag("--db"),
            format_args!(
                "{url} names no database; add one: {url}/DATABASE (a database for spindle's tests, not one you use)"
            ),
        ));
    }
    Ok(password_from_env(url))
}

/// A session count the server at `url` has no room for, with why, asked before anything runs
/// (`None` when every count fits, or the engine counts no connections). One connection more is
/// spindle's own, for the database counters.
pub fn beyond_room(url: &DbUrl, sessions: &[u32]) -> anyhow::Result<Option<(u32, String)>> {
    if url.engine == spindle_db::Engine::Sqlite {
        return Ok(beyond_threads(sessions));
    }
    let Some(room) = spindle_db::open(url)?.room()? else { return Ok(None) };
    let for_sessions = room.free().saturating_sub(1);
    Ok(sessions.iter().find(|&&n| u64::from(n) > for_sessions).map(|&n| {
        let why = format!(
            "{url} allows {} connections (max_connections {} less {} reserved for superusers), {} in use and 1 for spindle's counters, so room for {for_sessions} sessions; use fewer sessions or raise max_connections",
            room.max.saturating_sub(room.reserved),
            room.max,
            room.reserved,
            room.in_use,
        );
        (n, why)
    }))
}

/// A session count beyond the threads this process can start: SQLite's sessions are threads of
/// spindle's own, and running out of them mid-start would abort the process.
fn beyond_threads(sessions: &[u32]) -> Option<(u32, String)> {
    let (room, limit) = spindle_host::system::thread_room()?;
    sessions.iter().find(|&&n| u64::from(n) > room).map(|&n| {
        let why = format!(
            "SQLite's sessions are threads of spindle's own process, and this machine has room for {room} more ({limit}); \
             use fewer sessions, or a server (PostgreSQL, MariaDB) for more"
        );
        (n, why)
    })
}

/// A server URL without a password takes it from the environment (see below).
pub fn password_from_env(url: DbUrl) -> DbUrl {
    with_password_from_env(url, &|name| std::env::var(name).ok())
}

/// A server URL without a password takes the one in `PGPASSWORD` (PostgreSQL) or `MYSQL_PWD`
/// (MySQL, MariaDB), as those engines' own clients do: a password there is in no command
/// line, so `ps` never shows it either.
fn with_password_from_env(mut url: DbUrl, env: &dyn Fn(&str) -> Option<String>) -> DbUrl {
    let Some(var) = url.engine.password_var() else { return url };
    if url.password.is_none() {
        url.password = env(var).filter(|p| !p.is_empty());
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_from_the_environment_is_used_and_masked() {
        let env = |name: &str| (name == "PGPASSWORD").then(|| "EnvSecret".to_string());
        let url = with_password_from_env(spindle_db::parse_url("postgres://u@h/d").unwrap(), &env);
        assert_eq!(url.password.as_deref(), Some("EnvSecret"));
        assert_eq!(url.to_string(), "postgres://u:****@h/d");
        let given = with_password_from_env(spindle_db::parse_url("postgres://u:Mine@h/d").unwrap(), &env);
        assert_eq!(given.password.as_deref(), Some("Mine"), "the URL's own password wins");
        let mysql = with_password_from_env(spindle_db::parse_url("mysql://u@h/d").unwrap(), &env);
        assert_eq!(mysql.password, None, "MySQL reads MYSQL_PWD, not PGPASSWORD");
    }
}
