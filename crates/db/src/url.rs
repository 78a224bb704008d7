//! Database URLs: `sqlite:///path/to/db`, `postgres://user:pass@host:port/db`,
//! `mysql://user:pass@host:port/db`. A URL's password never reaches a message, a log or a
//! record: `Display` masks it.

use std::fmt;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
    MySql,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Sqlite => "sqlite",
            Engine::Postgres => "postgres",
            Engine::MySql => "mysql",
        }
    }
}

#[derive(Clone, PartialEq, Eq)]
pub struct DbUrl {
    pub engine: Engine,
    /// For SQLite, the database file.
    pub path: Option<PathBuf>,
    pub user: Option<String>,
    pub password: Option<String>,
    pub host: Option<String>,
    pub port: Option<u16>,
    pub database: Option<String>,
}

impl fmt::Debug for DbUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DbUrl({self})")
    }
}

impl fmt::Display for DbUrl {
    /// The URL with its password as `****`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            return write!(f, "sqlite://{}", path.display());
        }
        write!(f, "{}://", self.engine.name())?;
        if let Some(user) = &self.user {
            write!(f, "{user}")?;
            if self.password.is_some() {
                write!(f, ":****")?;
            }
            write!(f, "@")?;
        }
        write!(f, "{}", self.host.as_deref().unwrap_or("localhost"))?;
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        if let Some(db) = &self.database {
            write!(f, "/{db}")?;
        }
        Ok(())
    }
}

/// Parses a URL; the error names what is wrong without repeating a password.
pub fn parse_url(text: &str) -> Result<DbUrl, String> {
    let (scheme, rest) = text.split_once("://").ok_or_else(|| {
        "write a URL: sqlite:///path/to/db, postgres://user@host/db or mysql://user@host/db".to_string()
    })?;
    let engine = match scheme {
        "sqlite" => Engine::Sqlite,
        "postgres" | "postgresql" => Engine::Postgres,
        "mysql" | "mariadb" => Engine::MySql,
        other => return Err(format!("unknown database '{other}'; spindle speaks sqlite, postgres and mysql")),
    };
    if engine == Engine::Sqlite {
        if rest.is_empty() {
            return Err("sqlite:// needs a file: sqlite:///path/to/db (or sqlite://relative/db)".into());
        }
        return Ok(DbUrl {
            engine,
            path: Some(PathBuf::from(rest)),
            user: None,
            password: None,
            host: None,
            port: None,
            database: None,
        });
    }
    let (authority, database) = match rest.split_once('/') {
        Some((a, d)) => (a, Some(d.split('?').next().unwrap_or(d).to_string()).filter(|d| !d.is_empty())),
        None => (rest, None),
    };
    let (credentials, hostport) = match authority.rsplit_once('@') {
        Some((c, h)) => (Some(c), h),
        None => (None, authority),
    };
    let (user, password) = match credentials {
        Some(c) => match c.split_once(':') {
            Some((u, p)) => (Some(u.to_string()), Some(p.to_string())),
            None => (Some(c.to_string()), None),
        },
        None => (None, None),
    };
    let (host, port) = match hostport.rsplit_once(':') {
        Some((h, p)) => {
            let port = p.parse::<u16>().map_err(|_| format!("port '{p}' is not a number from 1 to 65535"))?;
            (h.to_string(), Some(port))
        }
        None => (hostport.to_string(), None),
    };
    Ok(DbUrl { engine, path: None, user, password, host: Some(host).filter(|h| !h.is_empty()), port, database })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_of_each_engine_and_passwords_masked() {
        let s = parse_url("sqlite:///var/lib/h.db").unwrap();
        assert_eq!((s.engine, s.path.as_deref()), (Engine::Sqlite, Some(std::path::Path::new("/var/lib/h.db"))));
        assert_eq!(s.to_string(), "sqlite:///var/lib/h.db");
        let p = parse_url("postgres://bench:s3cret@db1:5433/test?sslmode=disable").unwrap();
        assert_eq!(p.password.as_deref(), Some("s3cret"));
        assert_eq!((p.host.as_deref(), p.port, p.database.as_deref()), (Some("db1"), Some(5433), Some("test")));
        assert_eq!(p.to_string(), "postgres://bench:****@db1:5433/test");
        assert!(!format!("{p:?}").contains("s3cret"));
        assert_eq!(parse_url("mariadb://root@127.0.0.1/test").unwrap().to_string(), "mysql://root@127.0.0.1/test");
        for bad in ["db.sqlite", "oracle://x", "sqlite://", "postgres://u:p@h:99999/d"] {
            let e = parse_url(bad).unwrap_err();
            assert!(!e.contains(":p@"), "{e}");
        }
    }
}
