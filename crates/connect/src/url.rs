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

    /// The environment variable the engine's own clients read a password from (`None`:
    /// SQLite has none).
    pub fn password_var(self) -> Option<&'static str> {
        match self {
            Engine::Postgres => Some("PGPASSWORD"),
            Engine::MySql => Some("MYSQL_PWD"),
            Engine::Sqlite => None,
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
    /// `connect_timeout=N` in the URL; `connect_timeout()` gives the one in force.
    pub connect_timeout: Option<std::time::Duration>,
    /// `sslmode` / `ssl-mode`: whether the connection is encrypted and what is verified.
    pub tls: TlsMode,
    /// `sslrootcert` / `ssl-ca`: the PEM file of the certificate authority the server's
    /// certificate must chain to [default: the public web roots].
    pub tls_root: Option<PathBuf>,
}

/// Whether a connection speaks TLS, and what it checks of the server's certificate: libpq's
/// `sslmode` values (MySQL's `ssl-mode` names map onto them). Unlike libpq, the default is
/// plaintext: a figure measured over TLS carries its cost, so TLS is asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TlsMode {
    /// Plaintext (`disable`, `allow`; MySQL `DISABLED`).
    #[default]
    Disable,
    /// TLS when the server offers it, else plaintext (`prefer`; MySQL `PREFERRED`).
    Prefer,
    /// TLS or no connection; the certificate is not checked (`require`; MySQL `REQUIRED`).
    Require,
    /// TLS with a certificate that chains to a trusted authority (`verify-ca`; `VERIFY_CA`).
    VerifyCa,
    /// As `VerifyCa`, and issued for the host connected to (`verify-full`; `VERIFY_IDENTITY`).
    VerifyFull,
}

impl TlsMode {
    /// The libpq name.
    pub fn name(self) -> &'static str {
        match self {
            TlsMode::Disable => "disable",
            TlsMode::Prefer => "prefer",
            TlsMode::Require => "require",
            TlsMode::VerifyCa => "verify-ca",
            TlsMode::VerifyFull => "verify-full",
        }
    }

    /// MySQL's name.
    pub fn mysql_name(self) -> &'static str {
        match self {
            TlsMode::Disable => "DISABLED",
            TlsMode::Prefer => "PREFERRED",
            TlsMode::Require => "REQUIRED",
            TlsMode::VerifyCa => "VERIFY_CA",
            TlsMode::VerifyFull => "VERIFY_IDENTITY",
        }
    }

    fn parse(value: &str) -> Option<TlsMode> {
        Some(match value.to_ascii_lowercase().replace('_', "-").as_str() {
            "disable" | "disabled" | "allow" => TlsMode::Disable,
            "prefer" | "preferred" => TlsMode::Prefer,
            "require" | "required" => TlsMode::Require,
            "verify-ca" => TlsMode::VerifyCa,
            "verify-full" | "verify-identity" => TlsMode::VerifyFull,
            _ => return None,
        })
    }
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
        match self.host.as_deref() {
            // A Unix socket's directory, percent-encoded as libpq writes it.
            Some(h) if h.starts_with('/') => write!(f, "{}", h.replace('%', "%25").replace('/', "%2F"))?,
            Some(h) if h.contains(':') => write!(f, "[{h}]")?,
            h => write!(f, "{}", h.unwrap_or("localhost"))?,
        }
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        if let Some(db) = &self.database {
            write!(f, "/{db}")?;
        }
        // Said, so a record shows whether its figures carry TLS.
        match (self.tls, self.engine) {
            (TlsMode::Disable, _) => {}
            (tls, Engine::MySql) => write!(f, "?ssl-mode={}", tls.mysql_name())?,
            (tls, _) => write!(f, "?sslmode={}", tls.name())?,
        }
        Ok(())
    }
}

/// How long a connection may take before it is given up, unless the URL says
/// `connect_timeout=N`: a server that never answers (a MySQL URL pointed at PostgreSQL's port)
/// is an error in seconds, not a minute's hang.
pub const DEFAULT_CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Parses a URL; the error names what is wrong without repeating a password. Accepted:
/// user and password percent-encoded or not (a password may hold `/`, `:` or `@`; the host is
/// after the last `@`), an IPv6 host in brackets (`[::1]:5432`), and the query parameters
/// `password`, `sslmode` / `ssl-mode` (plaintext modes only: spindle does not speak TLS, so a
/// URL that asks for it is refused rather than connected in the clear), `connect_timeout`
/// (seconds) and `host`. A PostgreSQL host may be the directory of the server's Unix socket, as
/// libpq takes it: percent-encoded (`postgres://u@%2Fvar%2Frun%2Fpostgresql/db`) or as the
/// `host` parameter (`postgres://u@/db?host=/var/run/postgresql`).
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
        return Ok(DbUrl { engine, path: Some(PathBuf::from(rest)), ..DbUrl::empty(engine) });
    }
    // Credentials end at the last `@` (a password may hold `/` or `@`); the query after the
    // first `?` past the host.
    let (credentials, after) = match rest.rsplit_once('@') {
        Some((c, h)) => (Some(c), h),
        None => (None, rest),
    };
    let (location, query) = match after.split_once('?') {
        Some((l, q)) => (l, Some(q)),
        None => (after, None),
    };
    let (hostport, database) = match location.split_once('/') {
        Some((h, d)) => (h, Some(decode(d, "the database name")?).filter(|d| !d.is_empty())),
        None => (location, None),
    };
    let mut url = DbUrl { database, ..DbUrl::empty(engine) };
    if let Some(c) = credentials {
        let (user, password) = match c.split_once(':') {
            Some((u, p)) => (u, Some(p)),
            None => (c, None),
        };
        url.user = Some(decode(user, "the user name")?).filter(|u| !u.is_empty());
        url.password = password.map(|p| decode(p, "the password")).transpose()?;
    }
    let (host, port) = host_and_port(hostport)?;
    url.host = host;
    url.port = port;
    if let Some(q) = query {
        query_parameters(&mut url, q)?;
    }
    if engine == Engine::MySql && url.host.as_deref().is_some_and(|h| h.starts_with('/')) {
        return Err("a socket directory as the host is PostgreSQL's: a MySQL URL names a host".into());
    }
    Ok(url)
}

/// `db1`, `db1:5433`, `[::1]`, `[::1]:5432`, `%2Fvar%2Frun%2Fpostgresql` (a socket's directory).
fn host_and_port(text: &str) -> Result<(Option<String>, Option<u16>), String> {
    let port_of = |p: &str| {
        p.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| format!("port '{p}' is not a number from 1 to 65535"))
    };
    if let Some(v6) = text.strip_prefix('[') {
        let (host, rest) = v6.split_once(']').ok_or("an IPv6 host needs its closing ']': [::1]:5432")?;
        let port = match rest {
            "" => None,
            r => Some(port_of(r.strip_prefix(':').ok_or("write [::1]:5432 (a ':' after the ']')")?)?),
        };
        return Ok((Some(host.to_string()), port));
    }
    let (host, port) = match text.rsplit_once(':') {
        Some((h, p)) => (h, Some(port_of(p)?)),
        None => (text, None),
    };
    Ok((Some(decode(host, "the host")?).filter(|h| !h.is_empty()), port))
}

fn query_parameters(url: &mut DbUrl, query: &str) -> Result<(), String> {
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            // Never echoed: the value is a secret.
            "password" => url.password = Some(decode(value, "the password")?),
            "sslmode" | "ssl-mode" | "ssl_mode" => {
                url.tls = TlsMode::parse(value).ok_or_else(|| {
                    format!("{key}={value} is not a mode: disable, prefer, require, verify-ca or verify-full")
                })?;
            }
            "host" => url.host = Some(decode(value, "the host")?).filter(|h| !h.is_empty()),
            "sslrootcert" | "ssl-ca" | "ssl_ca" => url.tls_root = Some(PathBuf::from(decode(value, "the CA file")?)),
            "connect_timeout" => {
                let secs = value
                    .parse::<u64>()
                    .ok()
                    .filter(|s| *s > 0)
                    .ok_or_else(|| format!("connect_timeout '{value}' is not a whole number of seconds above 0"))?;
                url.connect_timeout = Some(std::time::Duration::from_secs(secs));
            }
            "application_name" => {}
            other => {
                return Err(format!(
                    "unknown URL parameter '{other}'; spindle reads password, sslmode, sslrootcert, connect_timeout and host"
                ));
            }
        }
    }
    Ok(())
}

/// Percent-decoding (`%2F` is `/`); an invalid escape is an error naming the part, never its
/// text (it may be a password).
fn decode(text: &str, part: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok());
            out.push(hex.ok_or_else(|| format!("{part} has a '%' that is not followed by two hex digits"))?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("{part} is not UTF-8 once decoded"))
}

impl DbUrl {
    fn empty(engine: Engine) -> DbUrl {
        DbUrl {
            engine,
            path: None,
            user: None,
            password: None,
            host: None,
            port: None,
            database: None,
            connect_timeout: None,
            tls: TlsMode::Disable,
            tls_root: None,
        }
    }

    /// How long a connection may take.
    pub fn connect_timeout(&self) -> std::time::Duration {
        self.connect_timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT)
    }
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

    #[test]
    fn slashes_ats_brackets_and_parameters() {
        let u = parse_url("postgres://bench:Secret/XYZ@db1/test").unwrap();
        assert_eq!(
            (u.password.as_deref(), u.host.as_deref(), u.database.as_deref()),
            (Some("Secret/XYZ"), Some("db1"), Some("test"))
        );
        let u = parse_url("postgres://bench:p%40ss%2Fw@db1:5433/test").unwrap();
        assert_eq!((u.password.as_deref(), u.port), (Some("p@ss/w"), Some(5433)));
        let u = parse_url("postgres://bench:a@b@[::1]:5432/test").unwrap();
        assert_eq!((u.password.as_deref(), u.host.as_deref(), u.port), (Some("a@b"), Some("::1"), Some(5432)));
        assert_eq!(u.to_string(), "postgres://bench:****@[::1]:5432/test");
        assert_eq!(parse_url("mysql://root@[::1]/test").unwrap().host.as_deref(), Some("::1"));
        let u = parse_url("postgres://bench@db1/test?password=SecretXYZ&connect_timeout=3&sslmode=disable").unwrap();
        assert_eq!(
            (u.password.as_deref(), u.connect_timeout()),
            (Some("SecretXYZ"), std::time::Duration::from_secs(3))
        );
        assert!(!u.to_string().contains("SecretXYZ") && !format!("{u:?}").contains("SecretXYZ"));
        assert_eq!(parse_url("postgres://h/d").unwrap().connect_timeout(), DEFAULT_CONNECT_TIMEOUT);
        let u = parse_url("postgres://u:SecretXYZ@h/d?sslmode=verify-ca&sslrootcert=/etc/ca.pem").unwrap();
        assert_eq!((u.tls, u.tls_root.as_deref()), (TlsMode::VerifyCa, Some(std::path::Path::new("/etc/ca.pem"))));
        assert_eq!(u.to_string(), "postgres://u:****@h/d?sslmode=verify-ca");
        assert_eq!(parse_url("mysql://u@h/d?ssl-mode=VERIFY_IDENTITY").unwrap().tls, TlsMode::VerifyFull);
        let m = parse_url("mysql://u@h/d?ssl-mode=REQUIRED").unwrap();
        assert_eq!((m.tls, m.to_string().as_str()), (TlsMode::Require, "mysql://u@h/d?ssl-mode=REQUIRED"));
        assert_eq!(parse_url("postgres://h/d?sslmode=prefer").unwrap().tls, TlsMode::Prefer);
        for (bad, says) in [
            ("postgres://u:SecretXYZ@h/d?sslmode=sometimes", "not a mode"),
            ("postgres://u:SecretXYZ@h/d?foo=1", "unknown URL parameter 'foo'"),
            ("postgres://u:Secret%zz@h/d", "the password has a '%'"),
            ("postgres://u@[::1/d", "closing ']'"),
            ("postgres://u@h:0/d", "port '0'"),
        ] {
            let e = parse_url(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
            assert!(!e.contains("SecretXYZ") && !e.contains("Secret%zz"), "{e}");
        }
    }

    #[test]
    fn a_socket_directory_is_a_host_as_libpq_takes_it() {
        let socket = Some("/var/run/postgresql");
        let u = parse_url("postgres://root:SecretXYZ@%2Fvar%2Frun%2Fpostgresql/bench").unwrap();
        assert_eq!((u.host.as_deref(), u.port, u.database.as_deref()), (socket, None, Some("bench")));
        assert_eq!(u.to_string(), "postgres://root:****@%2Fvar%2Frun%2Fpostgresql/bench");
        assert_eq!(parse_url(&u.to_string()).unwrap().host.as_deref(), socket, "its text reads back");
        let u = parse_url("postgresql://root@%2fvar%2frun%2fpostgresql:5433/bench").unwrap();
        assert_eq!((u.host.as_deref(), u.port), (socket, Some(5433)));
        let u = parse_url("postgres://root@/bench?host=/var/run/postgresql").unwrap();
        assert_eq!((u.host.as_deref(), u.database.as_deref()), (socket, Some("bench")));
        let u = parse_url("postgres://root@db1/bench?host=%2Frun%2Fpg").unwrap();
        assert_eq!(u.host.as_deref(), Some("/run/pg"), "the parameter wins, as in libpq");
        assert_eq!(parse_url("postgres://root@/bench").unwrap().host, None);
        let e = parse_url("mysql://root@%2Fvar%2Frun%2Fmysqld/bench").unwrap_err();
        assert!(e.contains("PostgreSQL's"), "{e}");
        assert!(parse_url("postgres://root@%2/bench").unwrap_err().contains("the host has a '%'"));
    }
}
