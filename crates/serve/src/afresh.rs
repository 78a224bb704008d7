//! Answers from the store as it is now. A connection that no longer reaches the store (a
//! PostgreSQL server restarted, an SQLite file replaced) is opened again, so serve outlives
//! both; while the store cannot be opened, pages say so (503).

use crate::Site;
use crate::http::{Request, Response};
use spindle_store::Store;

/// A replaced file is seen before answering. A server connection that ended is seen only when
/// a statement fails on it, and not always then: the server's last message can arrive before
/// it closes the connection, so the handle does not yet know it is gone. A request the store
/// could not answer (503) is therefore answered again on a new connection: requests only
/// read. A panic while answering (a bug, never an input) answers 500 and leaves the server
/// running.
pub(crate) fn respond_afresh(site: &impl Site, store: &mut Store, req: &Request) -> Response {
    if store.is_gone() && !reopen(store) {
        return site.refused(503, GONE);
    }
    let response = respond(site, store, req);
    match response.status == 503 {
        false => response,
        true if reopen(store) => respond(site, store, req),
        true => site.refused(503, GONE),
    }
}

/// Why nothing is answered while the store cannot be opened again.
const GONE: &str = "The results store is not where serve opened it (moved, replaced by something else, or its \
                    server down); pages come back once it is there again.";

fn respond(site: &impl Site, store: &Store, req: &Request) -> Response {
    let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| site.respond(store, req)));
    answered.unwrap_or_else(|_| Response::new(500, "text/plain", "internal error\n"))
}

/// Opens the store at `store`'s location again; whether it could. The old handle is kept
/// when not, and serve answers 503 until the store is back.
fn reopen(store: &mut Store) -> bool {
    match Store::open_existing(store.location().clone()) {
        Ok(Some(fresh)) => {
            *store = fresh;
            true
        }
        _ => false,
    }
}
