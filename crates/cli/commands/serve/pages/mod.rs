//! The pages, each a function from a request and the store to a response: the runs, a run, a
//! group, a comparison, a download, runs in progress. Their mistakes are `PageError`s: a status and a sentence.

pub mod compare;
pub mod download;
pub mod frame;
pub mod live;
pub mod run;
pub mod runs;

use crate::usage::UsageError;
use spindle_serve::http::Response;
use spindle_store::{Filter, Store, StoreError};

/// The most runs one page (a comparison, a run's) reads in full: beyond it the answer is 413, so no
/// request can make the server load a whole large store.
pub const MAX_LOADED: u64 = 2000;

#[derive(Debug)]
pub struct PageError {
    pub status: u16,
    pub message: String,
}

impl PageError {
    pub fn bad(message: impl Into<String>) -> PageError {
        PageError { status: 400, message: message.into() }
    }

    pub fn not_found(message: impl Into<String>) -> PageError {
        PageError { status: 404, message: message.into() }
    }

    pub fn response(&self) -> Response {
        frame::error_page(self.status, &self.message)
    }
}

/// A user's mistake is 4xx (404 when it names what is not there); a store that cannot be
/// read is 503 with its reason.
impl From<anyhow::Error> for PageError {
    fn from(e: anyhow::Error) -> PageError {
        let message = crate::error_text(&e);
        let status = if let Some(u) = e.downcast_ref::<UsageError>() {
            if matches!(u, UsageError::NoRuns { .. }) { 404 } else { 400 }
        } else if let Some(s) = e.downcast_ref::<StoreError>() {
            if matches!(s, StoreError::NoSuchRun(_) | StoreError::NoSuchGroup(_)) { 404 } else { 503 }
        } else {
            503
        };
        PageError { status, message }
    }
}

impl From<StoreError> for PageError {
    fn from(e: StoreError) -> PageError {
        anyhow::Error::from(e).into()
    }
}

impl From<UsageError> for PageError {
    fn from(e: UsageError) -> PageError {
        anyhow::Error::from(e).into()
    }
}

pub type Page = Result<Response, PageError>;

/// A run or group id from the address: a positive whole number.
pub fn id_of(what: &str, text: &str) -> Result<i64, PageError> {
    text.parse::<i64>()
        .ok()
        .filter(|n| *n > 0 && text.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| PageError::bad(format!("{what} id {text:?}: write a positive whole number")))
}

/// Refuses a selection of more runs than a request may load.
pub fn within_limit(store: &Store, filter: &Filter) -> Result<(), PageError> {
    let n = store.count(filter)?;
    if n > MAX_LOADED {
        return Err(PageError {
            status: 413,
            message: format!("{n} runs selected: select at most {MAX_LOADED} (by label, kind, date or ids)"),
        });
    }
    Ok(())
}
