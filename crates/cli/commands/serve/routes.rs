//! Which page answers a request, after access is checked. Only GET and HEAD; only the paths
//! below; a path with `..`, a backslash or a NUL is refused before it is looked at.

use super::pages::{self, Page, PageError};
use super::{App, assets};
use spindle_serve::access::Verdict;
use spindle_serve::http::{Request, Response};
use spindle_store::Store;

pub fn respond(app: &App, store: &Store, req: &Request) -> Response {
    let keep_token = match app.access.check(req) {
        Verdict::Allowed => false,
        Verdict::AllowedKeep => true,
        Verdict::Refused(status, why) => return pages::frame::error_page(status, why),
    };
    let response = route(store, req).unwrap_or_else(|e| e.response());
    if keep_token { response.with("Set-Cookie", app.access.cookie()) } else { response }
}

fn route(store: &Store, req: &Request) -> Page {
    if req.method != "GET" && req.method != "HEAD" {
        return Err(PageError { status: 405, message: "this page is read-only: GET and HEAD only".into() });
    }
    let path = req.path.as_str();
    if path.split('/').any(|s| s == "..") || path.contains(['\\', '\0']) {
        return Err(PageError::bad("a path that climbs out of the site is refused"));
    }
    if let Some((content_type, bytes)) = assets::asset(path) {
        return Ok(Response::new(200, content_type, bytes));
    }
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').skip(1).collect();
    match segments.as_slice() {
        [] => pages::runs::page(store, req),
        ["run", id] => pages::run::run_page(store, pages::id_of("run", id)?),
        ["group", id] => pages::run::group_page(store, pages::id_of("group", id)?),
        ["compare"] => pages::compare::page(store, req),
        ["download"] => pages::download::download(store, req),
        ["live", id] => pages::live::run_page(store, pages::id_of("live run", id)?),
        ["api", "live"] => pages::live::list_json(store),
        ["api", "live", id] => pages::live::run_json(store, pages::id_of("live run", id)?),
        _ => Err(PageError::not_found(format!("no page at {path}"))),
    }
}
