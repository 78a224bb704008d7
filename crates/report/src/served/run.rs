//! A run's page and a group's page below the report: links to compare, to the group or its
//! runs, and to download what the page shows.

use crate::html::escape::esc;

/// Below a run's report: compare it, open its group, download it.
pub fn run_links(id: i64, group: Option<i64>) -> String {
    let mut links = format!(
        "<p class=\"links\"><a href=\"/compare?a={id}\">compare with another</a>{}</p>\n",
        group.map(|g| format!("<a href=\"/group/{g}\">its group ({g})</a>")).unwrap_or_default()
    );
    links.push_str(&downloads(&format!("runs={id}")));
    links
}

/// Below a group's report: its runs, and (when it has any) the download of them.
pub fn group_links(id: i64, runs: &[i64]) -> String {
    let ids: Vec<String> = runs.iter().map(|i| format!("<a href=\"/run/{i}\">{i}</a>")).collect();
    let mut links = format!("<p class=\"links\">Runs: {}</p>\n", ids.join(" "));
    if !runs.is_empty() {
        links.push_str(&downloads(&format!("group={id}")));
    }
    links
}

/// Links that download what the page shows, in each format the exporters write.
fn downloads(selection: &str) -> String {
    let links: Vec<String> = ["html", "xlsx", "csv", "json"]
        .iter()
        .map(|f| format!("<a href=\"/download?{}&amp;format={f}\" download>{f}</a>", esc(selection)))
        .collect();
    format!("<p class=\"links\">Download: {}</p>\n", links.join(""))
}
