//! What every database command does with `--db`: parse it, never repeating a password.

use crate::origin::Origin;
use crate::usage::UsageError;
use spindle_db::DbUrl;

/// The URL in `--db`; a mistake is said with the URL only as parsed (masked), never as typed.
pub fn url_of(text: &str) -> Result<DbUrl, UsageError> {
    spindle_db::parse_url(text).map_err(|why| UsageError::at(Origin::Flag("--db"), why))
}
