//! Runs in progress: the runs page's list of them, and a live run's page that its script
//! fills (polling the server once a second).

use crate::html::escape::esc;
use std::fmt::Write;

/// A run in progress as the list shows it.
pub struct LiveRow<'a> {
    /// The live row's id (not a run id: the run has none until it is saved).
    pub id: i64,
    pub what: &'a str,
    pub hostname: &'a str,
    /// Running (and how long), or stopped without finishing, in words.
    pub state: String,
}

/// The runs page's list of runs in progress (its script keeps it current): each run a row,
/// its agents under it where several measure it together.
pub fn running(runs: &[Vec<LiveRow<'_>>]) -> String {
    let mut out = String::from("<section id=\"running\">");
    if !runs.is_empty() {
        out.push_str("<h2>In progress</h2><ul>");
        for agents in runs {
            match agents.as_slice() {
                [] => {}
                [r] => {
                    let _ = write!(
                        out,
                        "<li data-live=\"{}\"><a href=\"/live/{}\">{}</a> on {}: {}</li>",
                        r.id,
                        r.id,
                        esc(r.what),
                        esc(r.hostname),
                        esc(&r.state)
                    );
                }
                [first, ..] => {
                    let _ = write!(out, "<li>{}, by {} agents:<ul>", esc(first.what), agents.len());
                    for r in agents {
                        let _ = write!(
                            out,
                            "<li data-live=\"{}\"><a href=\"/live/{}\">{}</a>: {}</li>",
                            r.id,
                            r.id,
                            esc(r.hostname),
                            esc(&r.state)
                        );
                    }
                    out.push_str("</ul></li>");
                }
            }
        }
        out.push_str("</ul>");
    }
    out.push_str("</section>\n");
    out
}

/// A live run's page below its title: its state, and the chart its script draws.
pub fn live_body(id: i64, state: &str) -> String {
    format!(
        "<p id=\"live-state\">{}</p><figure class=\"chart\"><figcaption>Operations per second, each second</figcaption>\
         <svg id=\"live-chart\" data-live=\"{id}\" viewBox=\"0 0 760 260\" width=\"760\" height=\"260\" role=\"img\" aria-label=\"operations per second\"></svg></figure>\n",
        esc(state)
    )
}
