//! The page's own files, embedded in the binary (no build step, nothing fetched): its script,
//! its style beside the report's, its icon. Served by name from this fixed list only.

pub const SCRIPT: &str = "/assets/serve.js";
pub const STYLE: &str = "/assets/serve.css";
pub const ICON: &str = "/assets/icon.svg";

/// A file's content type and bytes, when `path` is one of them.
pub fn asset(path: &str) -> Option<(&'static str, &'static [u8])> {
    match path {
        SCRIPT => Some(("text/javascript; charset=utf-8", include_bytes!("assets/serve.js"))),
        STYLE => Some(("text/css; charset=utf-8", include_bytes!("assets/serve.css"))),
        ICON => Some(("image/svg+xml", include_bytes!("assets/icon.svg"))),
        _ => None,
    }
}
