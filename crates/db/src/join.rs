//! Waiting for spawned tasks: every one is awaited (none is left running), and the first
//! failure, if any, is what the caller sees.

use crate::DbError;
use tokio::task::JoinHandle;

pub(crate) async fn join_all<T>(handles: Vec<JoinHandle<Result<T, DbError>>>) -> Result<Vec<T>, DbError> {
    let mut done = Vec::with_capacity(handles.len());
    let mut first_error = None;
    for h in handles {
        match h.await {
            Ok(Ok(v)) => done.push(v),
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(_) => {
                first_error.get_or_insert(DbError::Panic);
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(done),
    }
}
