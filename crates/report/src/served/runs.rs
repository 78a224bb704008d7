//! The runs page below its title: the runs in progress, the filter, the form that compares or
//! downloads the ticked runs, the table of runs (each column sorting), and the pager.

use crate::html::escape::esc;
use crate::view::{LatencyUnit, rate_text};
use spindle_model::RunKind;
use spindle_model::group::Point;
use spindle_model::record::LatencyOf;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The columns that sort, by the name the address gives them, with their headings.
pub const SORTS: [(&str, &str); 10] = [
    ("id", "id"),
    ("started", "started (UTC)"),
    ("kind", "kind"),
    ("workload", "what it ran"),
    ("host", "host"),
    ("status", "status"),
    ("rate", "ops/s"),
    ("mbps", "MB/s"),
    ("mean", "mean"),
    ("p99", "p99"),
];

/// A stored run as a row of the table.
pub struct RunRow<'a> {
    pub id: i64,
    pub started_at: &'a str,
    pub kind: &'a str,
    pub workload: &'a str,
    pub hostname: &'a str,
    pub status: &'a str,
    pub labels: &'a BTreeMap<String, String>,
    pub group: Option<i64>,
    pub point: Option<&'a Point>,
    pub repeat: u32,
    /// Operations a second; `None` where a rate means nothing (a checkpoint).
    pub rate: Option<f64>,
    /// `None` where the run moves no bytes of its own (Hammer's calls, a load's rows).
    pub mb_per_sec: Option<f64>,
    /// Each I/O's mean, shown beside the lead where the run commits.
    pub io_mean_ns: Option<f64>,
    /// What the lead latency is of, and its mean and p99.
    pub latency_of: LatencyOf,
    pub lead_mean_ns: Option<f64>,
    pub lead_p99_ns: Option<u64>,
}

/// The filter as the address gave it, shown again in its form.
#[derive(Default)]
pub struct FilterValues<'a> {
    pub label: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub status: Option<&'a str>,
    pub host: Option<&'a str>,
    pub since: Option<&'a str>,
    pub until: Option<&'a str>,
}

/// The table's order and place: `kept` is the filter's part of the address (escaped), kept on
/// every sorting and paging link.
pub struct Order<'a> {
    pub kept: &'a str,
    pub sort: &'a str,
    pub ascending: bool,
    pub page: usize,
    pub pages: usize,
}

/// Everything below the page's title and overview; `running` is [`super::live::running`]'s.
pub fn body(running: String, filter: &FilterValues<'_>, rows: &[RunRow<'_>], order: &Order<'_>) -> String {
    let mut out = running;
    out.push_str(&filter_form(filter));
    selection_form(&mut out);
    table(&mut out, rows, order.kept, order.sort, order.ascending);
    pager(&mut out, order);
    out
}

fn filter_form(filter: &FilterValues<'_>) -> String {
    let value = |v: Option<&str>| esc(v.unwrap_or_default()).to_string();
    let mut out = String::from("<form class=\"filter\" method=\"get\" action=\"/\" id=\"filter\">");
    let _ = write!(
        out,
        "<label>label<input name=\"label\" placeholder=\"raid=10\" value=\"{}\"></label>",
        value(filter.label)
    );
    out.push_str("<label>kind<select name=\"kind\"><option value=\"\">any</option>");
    for k in RunKind::ALL {
        let selected = if filter.kind == Some(k.name()) { " selected" } else { "" };
        let _ = write!(out, "<option{selected}>{}</option>", k.name());
    }
    out.push_str("</select></label><label>status<select name=\"status\"><option value=\"\">any</option>");
    for s in ["complete", "interrupted", "failed"] {
        let selected = if filter.status == Some(s) { " selected" } else { "" };
        let _ = write!(out, "<option{selected}>{s}</option>");
    }
    let _ = writeln!(
        out,
        "</select></label><label>host<input name=\"host\" value=\"{}\"></label>\
         <label>since<input name=\"since\" placeholder=\"2026-11-01 or 7d\" value=\"{}\"></label>\
         <label>until<input name=\"until\" placeholder=\"2026-11-30\" value=\"{}\"></label>\
         <button type=\"submit\">Filter</button> <a href=\"/\">clear</a></form>",
        value(filter.host),
        value(filter.since),
        value(filter.until)
    );
    out
}

/// The boxes in the table belong to this form: A and B to compare, and both to download.
fn selection_form(out: &mut String) {
    out.push_str(
        "<form id=\"pick\" method=\"get\" action=\"/compare\" class=\"actions\">\
         <button type=\"submit\" id=\"compare\">Compare B with A</button>\
         <span id=\"picked\">Tick runs in A and B to compare; a download takes every ticked run.</span>\
         <select name=\"format\" aria-label=\"download format\"><option>html</option><option>xlsx</option>\
         <option>csv</option><option>json</option></select>\
         <button type=\"submit\" formaction=\"/download\" id=\"download\">Download ticked</button></form>\n",
    );
}

/// The runs, each with the latency it leads with (`mean`, `p99`); where one on the page
/// commits, what each run's latency is of and each I/O's mean beside it. Every latency in
/// one unit, the one most of the page's suit, so a column reads down without converting.
fn table(out: &mut String, runs: &[RunRow<'_>], kept: &str, sort: &str, ascending: bool) {
    let commits = runs.iter().any(|r| r.latency_of == LatencyOf::Commit);
    let shown = |r: &RunRow<'_>| [r.lead_mean_ns, r.lead_p99_ns.map(|p| p as f64), r.io_mean_ns.filter(|_| commits)];
    let unit = LatencyUnit::for_most(runs.iter().flat_map(shown).flatten());
    let latency =
        |ns: Option<f64>| ns.map_or_else(|| spindle_model::units::NOT_RECORDED.to_string(), |ns| unit.text(ns));
    out.push_str("<table class=\"runs\" id=\"runs\"><tr><th>A</th><th>B</th>");
    for (key, title) in SORTS.iter().take(6) {
        header(out, kept, key, title, sort, ascending);
    }
    out.push_str("<th>labels</th>");
    for (key, title) in SORTS.iter().skip(6) {
        if commits && *key == "mean" {
            out.push_str("<th>latency of</th>");
        }
        header(out, kept, key, title, sort, ascending);
    }
    if commits {
        out.push_str("<th>I/O mean</th>");
    }
    out.push_str("<th>group</th></tr>\n");
    for r in runs {
        let (of, beside) = match (commits, r.latency_of) {
            (false, _) => (String::new(), String::new()),
            (true, LatencyOf::Io) => {
                // Each operation's own: an I/O, a Hammer call, a row.
                let one = RunKind::parse(r.kind).map_or("I/O", |k| k.counts().one());
                (format!("<td>{one}</td>"), "<td class=\"n\"></td>".to_string())
            }
            (true, LatencyOf::Commit) => {
                ("<td>commit</td>".to_string(), format!("<td class=\"n\">{}</td>", latency(r.io_mean_ns)))
            }
        };
        let labels: Vec<String> = r.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let group = match (r.group, r.point) {
            (Some(g), Some(p)) => format!("<a href=\"/group/{g}\">{g}</a> {}", esc(&p.to_string())),
            (Some(g), None) => format!("<a href=\"/group/{g}\">{g}</a> #{}", r.repeat),
            (None, _) => String::new(),
        };
        let _ = writeln!(
            out,
            "<tr data-id=\"{id}\"><td class=\"pick\"><input type=\"checkbox\" form=\"pick\" name=\"a\" value=\"{id}\" aria-label=\"run {id} in A\"></td>\
             <td class=\"pick\"><input type=\"checkbox\" form=\"pick\" name=\"b\" value=\"{id}\" aria-label=\"run {id} in B\"></td>\
             <td class=\"n\"><a href=\"/run/{id}\">{id}</a></td><td class=\"d\">{}</td><td>{}</td><td class=\"w\">{}</td><td>{}</td><td>{}</td><td class=\"w\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td>{of}<td class=\"n\">{}</td><td class=\"n\">{}</td>{beside}<td>{group}</td></tr>",
            esc(&short_time(r.started_at)),
            esc(r.kind),
            esc(r.workload),
            esc(r.hostname),
            esc(r.status),
            esc(&labels.join(", ")),
            r.rate.map_or("-".to_string(), rate_text),
            r.mb_per_sec.map_or("-".to_string(), rate_text),
            latency(r.lead_mean_ns),
            latency(r.lead_p99_ns.map(|p| p as f64)),
            id = r.id,
        );
    }
    out.push_str("</table>\n");
}

/// A run's start as the table shows it, to the minute (`2026-11-26 20:00`): one line in a
/// narrow column; the run's page has it to the second.
fn short_time(rfc3339: &str) -> String {
    let t = rfc3339.replacen('T', " ", 1);
    match t.get(..16) {
        Some(minute) if t.len() == 20 && t.ends_with('Z') => minute.to_string(),
        _ => t,
    }
}

/// A column's heading: a link that sorts by it (the other way when it already does).
fn header(out: &mut String, kept: &str, key: &str, title: &str, sort: &str, ascending: bool) {
    let (order, arrow) = match (key == sort, ascending) {
        (true, true) => ("desc", " ▲"),
        (true, false) => ("asc", " ▼"),
        (false, _) => ("desc", ""),
    };
    let _ = write!(out, "<th><a href=\"/?{kept}sort={key}&amp;order={order}\">{title}{arrow}</a></th>");
}

fn pager(out: &mut String, o: &Order<'_>) {
    if o.pages < 2 {
        return;
    }
    let (kept, sort, page, pages) = (o.kept, o.sort, o.page, o.pages);
    let order = if o.ascending { "asc" } else { "desc" };
    let link =
        |p: usize, text: &str| format!("<a href=\"/?{kept}sort={sort}&amp;order={order}&amp;page={p}\">{text}</a>");
    out.push_str("<p class=\"pager\">");
    if page > 1 {
        out.push_str(&link(1, "first"));
        out.push_str(&link(page - 1, "previous"));
    }
    if page < pages {
        out.push_str(&link(page + 1, "next"));
        out.push_str(&link(pages, "last"));
    }
    out.push_str("</p>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, latency_of: LatencyOf, lead_ns: f64, labels: &BTreeMap<String, String>) -> RunRow<'_> {
        RunRow {
            id,
            started_at: "2026-11-26T20:00:00Z",
            kind: "io",
            workload: "8KiB sequential write",
            hostname: "db01",
            status: "complete",
            labels,
            group: None,
            point: None,
            repeat: 1,
            rate: Some(600.0),
            mb_per_sec: Some(4.9),
            io_mean_ns: Some(25_200.0),
            latency_of,
            lead_mean_ns: Some(lead_ns),
            lead_p99_ns: Some(1_200_000),
        }
    }

    /// The runs page shows a committing run's commit latency under mean and p99, says whose,
    /// and each I/O's mean beside it; a page of runs that commit nothing keeps its columns.
    #[test]
    fn the_runs_page_leads_with_a_runs_commit_latency() {
        let labels = BTreeMap::new();
        let mut page = String::new();
        table(
            &mut page,
            &[row(1, LatencyOf::Commit, 252_000.0, &labels), row(2, LatencyOf::Io, 25_200.0, &labels)],
            "",
            "id",
            false,
        );
        assert!(page.contains("<th>latency of</th><th><a href=\"/?sort=mean"), "{page}");
        let line = |id: i64| page.lines().find(|l| l.starts_with(&format!("<tr data-id=\"{id}\""))).unwrap();
        assert!(
            line(1).contains(
                "<td>commit</td><td class=\"n\">252 µs</td><td class=\"n\">1,200 µs</td><td class=\"n\">25.2 µs</td>"
            ),
            "{}",
            line(1)
        );
        assert!(line(2).contains("<td>I/O</td><td class=\"n\">25.2 µs</td>"), "{}", line(2));
        let mut plain = String::new();
        table(&mut plain, &[row(2, LatencyOf::Io, 25_200.0, &labels)], "", "id", false);
        assert!(!plain.contains("latency of") && !plain.contains("I/O mean"), "{plain}");
    }

    /// A Hammer run's latency is of a call and it moves no bytes of its own; large rates are
    /// grouped.
    #[test]
    fn a_hammer_row_says_calls_and_no_mb_per_s() {
        let labels = BTreeMap::new();
        let io = RunRow { mb_per_sec: Some(92_165.14), ..row(1, LatencyOf::Commit, 252_000.0, &labels) };
        let hammer = RunRow { kind: "hammer", mb_per_sec: None, ..row(2, LatencyOf::Io, 25_200.0, &labels) };
        let mut page = String::new();
        table(&mut page, &[io, hammer], "", "id", false);
        let line = |id: i64| page.lines().find(|l| l.starts_with(&format!("<tr data-id=\"{id}\""))).unwrap();
        assert!(line(1).contains("<td class=\"n\">92,165</td>"), "{}", line(1));
        assert!(line(2).contains("<td class=\"n\">-</td><td>call</td>"), "{}", line(2));
    }

    #[test]
    fn a_start_is_shown_to_the_minute_and_anything_else_as_it_is() {
        assert_eq!(short_time("2026-11-26T20:05:59Z"), "2026-11-26 20:05");
        assert_eq!(short_time("2026-11-26T20:05:59.5+01:00"), "2026-11-26 20:05:59.5+01:00");
        assert_eq!(short_time(""), "");
    }
}
