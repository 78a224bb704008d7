//! What every served page has around the report's renderer: its style and script, the
//! navigation; and the page a refused request gets (its status and a short message).

use super::super::assets;
use super::super::http::Response;
use spindle_report::view::ReportView;
use spindle_report::{Frame, esc};

/// The frame of every page; `bottom` is the page's own markup after the report's sections
/// (escaped by its maker).
pub fn frame(bottom: String) -> Frame {
    Frame {
        head: format!(
            "<link rel=\"stylesheet\" href=\"{}\"><link rel=\"icon\" href=\"{}\"><script src=\"{}\" defer></script>",
            assets::STYLE,
            assets::ICON,
            assets::SCRIPT
        ),
        top: "<nav class=\"top\"><a href=\"/\">Runs</a><a href=\"/compare\">Compare</a><span class=\"store\">spindle serve, read-only</span></nav>\n"
            .to_string(),
        bottom,
    }
}

/// A page of `view` with `bottom` after it.
pub fn page(view: &ReportView, bottom: String) -> Response {
    Response::html(spindle_report::render_framed(view, &frame(bottom)))
}

/// A request refused: `status` and what was wrong, said in a sentence.
pub fn error_page(status: u16, message: &str) -> Response {
    let view = ReportView { title: title(status).to_string(), ..ReportView::default() };
    let body = format!("<p class=\"error\" id=\"error\">{}</p>\n", esc(message));
    Response { status, ..page(&view, body) }
}

fn title(status: u16) -> &'static str {
    match status {
        401 => "Token needed",
        403 => "Not served here",
        404 => "Not found",
        413 => "Too much asked",
        503 => "The store cannot be read",
        s if s >= 500 => "Server error",
        _ => "Cannot answer that",
    }
}
