//! The pages `spindle serve` draws around the report: the frame of every page (its style,
//! script and navigation), the page a refused request gets, and each page's own markup: the
//! runs table and its forms, the runs in progress, the compare form and sections, a run's and
//! a group's links. Pure drawing from view models; which runs, from which store and request,
//! is the server's.

pub mod compare;
pub mod live;
pub mod run;
pub mod runs;

use crate::html::escape::esc;
use crate::html::{Frame, render_framed};
use crate::view::ReportView;

/// Where the server serves the page's own files.
pub struct Assets {
    pub style: &'static str,
    pub icon: &'static str,
    pub script: &'static str,
}

/// The frame of every page; `bottom` is the page's own markup after the report's sections
/// (escaped by its maker).
pub fn frame(assets: &Assets, bottom: String) -> Frame {
    Frame {
        head: format!(
            "<link rel=\"stylesheet\" href=\"{}\"><link rel=\"icon\" href=\"{}\"><script src=\"{}\" defer></script>",
            assets.style, assets.icon, assets.script
        ),
        top: "<nav class=\"top\"><a href=\"/\">Runs</a><a href=\"/compare\">Compare</a><span class=\"store\">spindle serve, read-only</span></nav>\n"
            .to_string(),
        bottom,
    }
}

/// A page of `view` with `bottom` after it.
pub fn page(assets: &Assets, view: &ReportView, bottom: String) -> String {
    render_framed(view, &frame(assets, bottom))
}

/// The page of a request refused with `status`: what was wrong, said in a sentence.
pub fn error_page(assets: &Assets, status: u16, message: &str) -> String {
    let view = ReportView { title: title(status).to_string(), ..ReportView::default() };
    let body = format!("<p class=\"error\" id=\"error\">{}</p>\n", esc(message));
    page(assets, &view, body)
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
