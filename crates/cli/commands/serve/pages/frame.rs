//! Every page as a response: the report's drawing (`spindle_report::served`) in the frame that
//! links this server's own files.

use super::super::assets;
use spindle_report::served::{self, Assets};
use spindle_report::view::ReportView;
use spindle_serve::http::Response;

const ASSETS: Assets = Assets { style: assets::STYLE, icon: assets::ICON, script: assets::SCRIPT };

/// A page of `view` with `bottom` after it.
pub fn page(view: &ReportView, bottom: String) -> Response {
    Response::html(served::page(&ASSETS, view, bottom))
}

/// A request refused: `status` and what was wrong, said in a sentence.
pub fn error_page(status: u16, message: &str) -> Response {
    Response { status, ..Response::html(served::error_page(&ASSETS, status, message)) }
}
