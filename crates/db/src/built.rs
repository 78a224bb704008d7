//! What this build can reach: the server drivers and TLS are cargo features, and a URL that
//! needs one this build lacks is refused where it first meets a driver, naming the feature.

use crate::{DbError, DbUrl, Engine, TlsMode};

/// `Ok` when this build has the driver `url`'s engine needs, and TLS when the URL asks for it.
pub fn check(url: &DbUrl) -> Result<(), DbError> {
    let missing = |what, feature| Err(DbError::NotBuilt { db: url.to_string(), what, feature });
    match url.engine {
        Engine::Sqlite => return Ok(()),
        Engine::Postgres if !cfg!(feature = "postgres") => return missing("the PostgreSQL driver", "postgres"),
        Engine::MySql if !cfg!(feature = "mysql") => return missing("the MySQL/MariaDB driver", "mysql"),
        Engine::Postgres | Engine::MySql => {}
    }
    if url.tls != TlsMode::Disable && !cfg!(feature = "tls") {
        return missing("TLS", "tls");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_needing_what_the_build_lacks_names_the_feature() {
        let sqlite = crate::parse_url("sqlite:///tmp/x.db").unwrap();
        assert!(check(&sqlite).is_ok(), "SQLite is always built");
        let pg = crate::parse_url("postgres://u@h/d").unwrap();
        let built = cfg!(feature = "postgres");
        match check(&pg) {
            Ok(()) => assert!(built, "refused only when the driver is missing"),
            Err(e) => {
                assert!(!built, "{e}");
                assert!(e.to_string().contains("--features postgres"), "{e}");
            }
        }
        let tls = crate::parse_url("postgres://u@h/d?sslmode=require").unwrap();
        if cfg!(feature = "postgres") {
            assert_eq!(check(&tls).is_ok(), cfg!(feature = "tls"));
        }
    }
}
