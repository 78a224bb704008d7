//! Which setup errors of managed PostgreSQL and MariaDB instances are the user's mistakes
//! (usage errors, exit 2).

use crate::usage::UsageError;

/// [`managed_error`] for an error of any kind: a database layer's is looked at, others pass.
pub fn managed_anyhow(e: anyhow::Error) -> anyhow::Error {
    match e.downcast::<spindle_db::DbError>() {
        Ok(db) => managed_error(db),
        Err(e) => e,
    }
}

/// A setup mistake of the user's (a directory not empty, a port in use, a missing package)
/// is a usage error; anything else stays as it is.
pub fn managed_error(e: spindle_db::DbError) -> anyhow::Error {
    match e {
        spindle_db::DbError::Managed { what, why } if what.starts_with("--") || why.contains("install the Debian") => {
            UsageError::request(format!("{what}: {why}")).into()
        }
        other => other.into(),
    }
}
