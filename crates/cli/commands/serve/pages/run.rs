//! A run's page and a group's page: the report of that run (summary, latency percentiles and
//! histogram, per-second series, counters, environment, warnings, verification, the command
//! line as recorded, passwords already masked) or of that group (a sweep's curve and knee,
//! repeats' spread, an A/B comparison, a check's findings), drawn by the report's renderer.

use super::{Page, frame, within_limit};
use crate::commands::report::document;
use crate::commands::runs::document_of;
use spindle_report::esc;
use spindle_report::view::report_view;
use spindle_runner::saver::report_group;
use spindle_store::{Filter, Store};

pub fn run_page(store: &Store, id: i64) -> Page {
    let run = store.load(id)?;
    let group = run.summary.group;
    let mut doc = document_of(vec![run]);
    doc.title = format!("Run {id}");
    let mut links = format!(
        "<p class=\"links\"><a href=\"/compare?a={id}\">compare with another</a>{}</p>\n",
        group.map(|g| format!("<a href=\"/group/{g}\">its group ({g})</a>")).unwrap_or_default()
    );
    links.push_str(&downloads(&format!("runs={id}")));
    Ok(frame::page(&report_view(&doc), links))
}

pub fn group_page(store: &Store, id: i64) -> Page {
    let group = store.group(id)?;
    let filter = Filter { group: Some(id), ..Filter::default() };
    within_limit(store, &filter)?;
    let title = format!("Group {id}: {} {}", group.kind.name(), group.name);
    let mut doc = match document(store, &filter)? {
        Some(doc) => doc,
        // A group whose runs were all removed still has its own row and summary.
        None => spindle_report::Document { groups: vec![report_group(group)], ..Default::default() },
    };
    doc.title = title;
    let ids: Vec<String> =
        doc.runs.iter().filter_map(|r| r.id).map(|i| format!("<a href=\"/run/{i}\">{i}</a>")).collect();
    let mut links = format!("<p class=\"links\">Runs: {}</p>\n", ids.join(" "));
    if !doc.runs.is_empty() {
        links.push_str(&downloads(&format!("group={id}")));
    }
    Ok(frame::page(&report_view(&doc), links))
}

/// Links that download what the page shows, in each format the exporters write.
fn downloads(selection: &str) -> String {
    let links: Vec<String> = ["html", "xlsx", "csv", "json"]
        .iter()
        .map(|f| format!("<a href=\"/download?{}&amp;format={f}\" download>{f}</a>", esc(selection)))
        .collect();
    format!("<p class=\"links\">Download: {}</p>\n", links.join(""))
}
