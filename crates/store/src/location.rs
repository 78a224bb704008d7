//! Where the store lives: `--store`, else `$SPINDLE_STORE`, else the XDG data directory
//! (`$XDG_DATA_HOME/spindle/results.db`, `~/.local/share/spindle/results.db`). A location is
//! an SQLite file's path or a PostgreSQL database's URL (`postgres://user@host/db`), which a
//! team shares; either is shown with any password masked.

use spindle_connect::{DbUrl, Engine};
use std::fmt;
use std::path::{Path, PathBuf};

/// A results store's place.
#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    /// An SQLite file (made when the first run is saved).
    File(PathBuf),
    /// A PostgreSQL database (made by its owner; spindle makes only its tables in it).
    Server(DbUrl),
}

impl Location {
    /// A path, `sqlite:///path`, or a `postgres://` / `postgresql://` URL. Any other
    /// `scheme://` is refused rather than taken for a directory named `scheme:`.
    pub fn parse(text: &Path) -> Result<Location, String> {
        let Some(url) = text.to_str().filter(|t| t.contains("://")) else { return Ok(Location::File(text.into())) };
        let parsed = spindle_connect::parse_url(url)?;
        match (parsed.engine, &parsed.path) {
            (Engine::Sqlite, Some(path)) => Ok(Location::File(path.clone())),
            (Engine::Postgres, _) if parsed.database.is_none() => {
                Err(format!("{parsed} names no database: write postgres://user@host/DATABASE"))
            }
            (Engine::Postgres, _) => Ok(Location::Server(parsed)),
            (engine, _) => Err(format!(
                "a results store is an SQLite file or a PostgreSQL database, not {}: pass a path or a postgres:// URL",
                engine.name()
            )),
        }
    }

    /// The file, for a store that is one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Location::File(path) => Some(path),
            Location::Server(_) => None,
        }
    }

    /// Every file the store is kept in: the SQLite file and the journal files SQLite keeps
    /// beside it (written over, any of them loses runs); none for a server's.
    pub fn files(&self) -> Vec<PathBuf> {
        let Some(path) = self.file() else { return Vec::new() };
        let beside = ["-wal", "-shm", "-journal"].iter().map(|suffix| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            PathBuf::from(name)
        });
        std::iter::once(path.to_path_buf()).chain(beside).collect()
    }
}

impl fmt::Display for Location {
    /// The path, or the URL with its password as `****`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File(path) => write!(f, "{}", path.display()),
            Location::Server(url) => write!(f, "{url}"),
        }
    }
}

impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Location {
        Location::File(path)
    }
}

impl From<&Path> for Location {
    fn from(path: &Path) -> Location {
        Location::File(path.into())
    }
}

impl From<&PathBuf> for Location {
    fn from(path: &PathBuf) -> Location {
        Location::File(path.clone())
    }
}

impl From<&Location> for Location {
    fn from(at: &Location) -> Location {
        at.clone()
    }
}

/// The store's location, given the `--store` flag and the environment (passed in, so tests
/// need not touch the process environment). `Ok(None)`: no flag, no `SPINDLE_STORE` and no
/// home to keep a store in.
pub fn store_location(flag: Option<PathBuf>, env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Location>, String> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    if let Some(flag) = flag {
        return Location::parse(&flag).map(Some);
    }
    if let Some(var) = set("SPINDLE_STORE") {
        return Location::parse(Path::new(&var)).map(Some).map_err(|why| format!("SPINDLE_STORE: {why}"));
    }
    Ok(data_dir(env).map(|d| Location::File(d.join("results.db"))))
}

/// spindle's own data directory: `$XDG_DATA_HOME/spindle`, else `~/.local/share/spindle`
/// (the store's default home, and where managed database instances are listed).
pub fn data_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    let data = set("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("spindle"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    fn file(p: &str) -> Option<Location> {
        Some(Location::File(p.into()))
    }

    #[test]
    fn flag_then_environment_then_xdg_then_home() {
        let all = env(&[("SPINDLE_STORE", "/s.db"), ("XDG_DATA_HOME", "/xdg"), ("HOME", "/home/u")]);
        assert_eq!(store_location(Some("/f.db".into()), &all), Ok(file("/f.db")));
        assert_eq!(store_location(None, &all), Ok(file("/s.db")));
        let xdg = env(&[("SPINDLE_STORE", ""), ("XDG_DATA_HOME", "/xdg"), ("HOME", "/home/u")]);
        assert_eq!(store_location(None, &xdg), Ok(file("/xdg/spindle/results.db")));
        let home = env(&[("HOME", "/home/u")]);
        assert_eq!(store_location(None, &home), Ok(file("/home/u/.local/share/spindle/results.db")));
        assert_eq!(store_location(None, &env(&[])), Ok(None));
    }

    #[test]
    fn a_postgres_url_is_a_server_shown_without_its_password() {
        let pg = env(&[("SPINDLE_STORE", "postgresql://team:s3cret@db1:5433/results?sslmode=require")]);
        let at = store_location(None, &pg).unwrap().unwrap();
        let Location::Server(url) = &at else { panic!("{at:?}") };
        assert_eq!((url.database.as_deref(), url.password.as_deref()), (Some("results"), Some("s3cret")));
        assert_eq!(at.to_string(), "postgres://team:****@db1:5433/results?sslmode=require");
        assert!(!format!("{at:?}").contains("s3cret"));
        assert_eq!(at.file(), None);
        let flag = store_location(Some("postgres://postgres@127.0.0.1:55433/results".into()), &pg).unwrap();
        assert_eq!(flag.unwrap().to_string(), "postgres://postgres@127.0.0.1:55433/results");
    }

    #[test]
    fn other_urls_are_refused_not_taken_for_paths() {
        let none = env(&[]);
        assert_eq!(store_location(Some("sqlite:///tmp/r.db".into()), &none), Ok(file("/tmp/r.db")));
        for bad in ["mysql://root@h/results", "postgres://u:pw@h:5432", "postgres://u@h:99999/x", "http://x/y"] {
            let err = store_location(Some(bad.into()), &none).unwrap_err();
            assert!(!err.contains("pw"), "{err}");
        }
        let env_bad = env(&[("SPINDLE_STORE", "mysql://root@h/results")]);
        assert!(store_location(None, &env_bad).unwrap_err().starts_with("SPINDLE_STORE: "));
    }
}
