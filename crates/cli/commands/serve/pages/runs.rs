//! The runs page: every stored run matching the filter (label, kind, status, host, dates, as
//! `runs list` selects), sorted by any column, a page of them at a time, each with boxes that
//! put it in side A or B of a comparison or in a download.

use super::super::http::{Request, encode};
use super::{Page, PageError, frame};
use crate::args::SelectArgs;
use crate::listing::{Listed, listed};
use crate::selection;
use spindle_model::RunKind;
use spindle_model::record::LatencyOf;
use spindle_model::units::format_latency_opt;
use spindle_report::esc;
use spindle_report::view::{ReportView, rate_text};
use spindle_store::{Filter, RunSummary, Store};
use std::cmp::Ordering;
use std::fmt::Write;

/// Runs on one page: a screen or two, drawn at once whatever the store holds.
const PER_PAGE: usize = 100;

/// The columns that sort, by the name the address gives them.
const SORTS: [(&str, &str); 10] = [
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

/// The filter's parameters, kept on every link the page makes (sorting, paging).
const FILTER_PARAMS: [&str; 6] = ["label", "kind", "status", "host", "since", "until"];

pub fn page(store: &Store, req: &Request) -> Page {
    let select = SelectArgs {
        labels: req.params("label").map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect(),
        kind: req.param("kind").map(String::from),
        status: req.param("status").map(String::from),
        since: req.param("since").map(String::from),
        until: req.param("until").map(String::from),
        group: None,
    };
    let filter = selection::filter_of(&select, std::time::SystemTime::now())?;
    let host = req.param("host");
    let sort = req.param("sort").unwrap_or("id");
    if !SORTS.iter().any(|(k, _)| *k == sort) {
        let keys: Vec<&str> = SORTS.iter().map(|(k, _)| *k).collect();
        return Err(PageError::bad(format!("sort {sort:?}: sort by one of {}", keys.join(", "))));
    }
    let ascending = match req.param("order") {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(o) => return Err(PageError::bad(format!("order {o:?}: asc or desc"))),
    };
    let (shown, total, page_no, pages) = page_of(store, filter, host, sort, ascending, req.param("page"))?;
    let filtered = FILTER_PARAMS.iter().any(|p| req.param(p).is_some());
    let mut view = ReportView { title: "Stored runs".into(), ..ReportView::default() };
    view.overview.push(match (total, filtered) {
        (0, true) => "No stored run matches this filter.".to_string(),
        (0, false) => "The store holds no runs yet.".to_string(),
        (n, _) => format!(
            "{n} runs{}; runs {} to {} shown, page {page_no} of {pages}.",
            if filtered { " match" } else { " in the store" },
            (page_no - 1) * PER_PAGE + 1,
            (page_no - 1) * PER_PAGE + shown.len()
        ),
    });
    let shown = listed(shown);
    let kept = kept_query(req);
    let mut out = super::live::running(store)?;
    out.push_str(&filter_form(req));
    selection_form(&mut out);
    table(&mut out, &shown, &kept, sort, ascending);
    pager(&mut out, &kept, sort, ascending, page_no, pages);
    let mut response = frame::page(&view, out);
    if total == 0 && filtered {
        response.status = 404;
    }
    Ok(response)
}

/// The runs on page `page` (from 1) and how many match. The newest first by id, without a
/// host to match, is the store's own order: only that page's runs are read (the first screen
/// of a large store at once, in little memory). Any other order reads every match.
fn page_of(
    store: &Store,
    mut filter: Filter,
    host: Option<&str>,
    sort: &str,
    ascending: bool,
    page: Option<&str>,
) -> Result<(Vec<RunSummary>, usize, usize, usize), PageError> {
    let store_order = sort == "id" && !ascending && host.is_none();
    let mut all = Vec::new();
    let total = if store_order {
        store.count(&filter)? as usize
    } else {
        all = store.list(&filter)?;
        if let Some(h) = host {
            all.retain(|r| r.hostname == h);
        }
        all.sort_by(|a, b| {
            let o = order(a, b, sort);
            if ascending { o } else { o.reverse() }
        });
        all.len()
    };
    let pages = total.div_ceil(PER_PAGE).max(1);
    let page_no = match page {
        None => 1,
        Some(p) => p
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=pages).contains(n))
            .ok_or_else(|| PageError::bad(format!("page {p:?}: there are pages 1 to {pages}")))?,
    };
    let shown = if store_order {
        filter.limit = Some((page_no * PER_PAGE) as u64);
        let mut newest = store.list(&filter)?;
        newest.reverse();
        newest.into_iter().skip((page_no - 1) * PER_PAGE).collect()
    } else {
        all.into_iter().skip((page_no - 1) * PER_PAGE).take(PER_PAGE).collect()
    };
    Ok((shown, total, page_no, pages))
}

fn order(a: &RunSummary, b: &RunSummary, sort: &str) -> Ordering {
    let num = |x: f64, y: f64| x.partial_cmp(&y).unwrap_or(Ordering::Equal);
    let by = match sort {
        "started" => a.started_at.cmp(&b.started_at),
        "kind" => a.kind.cmp(&b.kind),
        "workload" => a.workload.cmp(&b.workload),
        "host" => a.hostname.cmp(&b.hostname),
        "status" => a.status.cmp(&b.status),
        "rate" => num(a.iops, b.iops),
        "mbps" => num(a.mb_per_sec, b.mb_per_sec),
        // A latency not recorded sorts before every recorded one (None < Some). The order is
        // the store's each-I/O latency: a run that commits shows its commits' (read from its
        // record, for the page's runs only), and reading every record to sort would cost the
        // page its speed.
        "mean" => a.latency_mean_ns.partial_cmp(&b.latency_mean_ns).unwrap_or(Ordering::Equal),
        "p99" => a.latency_p99_ns.cmp(&b.latency_p99_ns),
        _ => Ordering::Equal,
    };
    by.then(a.id.cmp(&b.id))
}

/// The filter's part of the address, to keep on sorting and paging links.
fn kept_query(req: &Request) -> String {
    req.query
        .iter()
        .filter(|(n, v)| FILTER_PARAMS.contains(&n.as_str()) && !v.trim().is_empty())
        .map(|(n, v)| format!("{n}={}&amp;", encode(v)))
        .collect()
}

fn filter_form(req: &Request) -> String {
    let value = |name: &str| esc(req.param(name).unwrap_or_default()).to_string();
    let mut out = String::from("<form class=\"filter\" method=\"get\" action=\"/\" id=\"filter\">");
    let _ = write!(
        out,
        "<label>label<input name=\"label\" placeholder=\"raid=10\" value=\"{}\"></label>",
        esc(req.param("label").unwrap_or_default())
    );
    out.push_str("<label>kind<select name=\"kind\"><option value=\"\">any</option>");
    for k in RunKind::ALL {
        let selected = if req.param("kind") == Some(k.name()) { " selected" } else { "" };
        let _ = write!(out, "<option{selected}>{}</option>", k.name());
    }
    out.push_str("</select></label><label>status<select name=\"status\"><option value=\"\">any</option>");
    for s in ["complete", "interrupted", "failed"] {
        let selected = if req.param("status") == Some(s) { " selected" } else { "" };
        let _ = write!(out, "<option{selected}>{s}</option>");
    }
    let _ = writeln!(
        out,
        "</select></label><label>host<input name=\"host\" value=\"{}\"></label>\
         <label>since<input name=\"since\" placeholder=\"2026-11-01 or 7d\" value=\"{}\"></label>\
         <label>until<input name=\"until\" placeholder=\"2026-11-30\" value=\"{}\"></label>\
         <button type=\"submit\">Filter</button> <a href=\"/\">clear</a></form>",
        value("host"),
        value("since"),
        value("until")
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
/// commits, what each run's latency is of and each I/O's mean beside it.
fn table(out: &mut String, runs: &[Listed], kept: &str, sort: &str, ascending: bool) {
    let commits = runs.iter().any(|r| r.latency_of == LatencyOf::Commit);
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
    for listed in runs {
        let r = &listed.summary;
        let (of, beside) = match (commits, listed.latency_of) {
            (false, _) => (String::new(), String::new()),
            (true, LatencyOf::Io) => ("<td>I/O</td>".to_string(), "<td class=\"n\"></td>".to_string()),
            (true, LatencyOf::Commit) => (
                "<td>commit</td>".to_string(),
                format!("<td class=\"n\">{}</td>", format_latency_opt(r.latency_mean_ns)),
            ),
        };
        let labels: Vec<String> = r.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let group = match (r.group, &r.point) {
            (Some(g), Some(p)) => format!("<a href=\"/group/{g}\">{g}</a> {}", esc(&p.to_string())),
            (Some(g), None) => format!("<a href=\"/group/{g}\">{g}</a> #{}", r.repeat),
            (None, _) => String::new(),
        };
        let _ = writeln!(
            out,
            "<tr data-id=\"{id}\"><td class=\"pick\"><input type=\"checkbox\" form=\"pick\" name=\"a\" value=\"{id}\" aria-label=\"run {id} in A\"></td>\
             <td class=\"pick\"><input type=\"checkbox\" form=\"pick\" name=\"b\" value=\"{id}\" aria-label=\"run {id} in B\"></td>\
             <td class=\"n\"><a href=\"/run/{id}\">{id}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{:.2}</td>{of}<td class=\"n\">{}</td><td class=\"n\">{}</td>{beside}<td>{group}</td></tr>",
            esc(&r.started_at.replace('T', " ").replace('Z', "")),
            esc(&r.kind),
            esc(&r.workload),
            esc(&r.hostname),
            esc(&r.status),
            esc(&labels.join(", ")),
            r.rate().map_or("-".to_string(), rate_text),
            r.mb_per_sec,
            format_latency_opt(listed.lead_latency_mean_ns),
            format_latency_opt(listed.lead_latency_p99_ns.map(|p| p as f64)),
            id = r.id,
        );
    }
    out.push_str("</table>\n");
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

fn pager(out: &mut String, kept: &str, sort: &str, ascending: bool, page: usize, pages: usize) {
    if pages < 2 {
        return;
    }
    let order = if ascending { "asc" } else { "desc" };
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

    fn listed(id: i64, latency_of: LatencyOf, lead_ns: f64) -> Listed {
        Listed {
            summary: RunSummary {
                id,
                started_at: "2026-11-26T20:00:00Z".into(),
                kind: "io".into(),
                status: "complete".into(),
                workload: "8KiB sequential write".into(),
                labels: Default::default(),
                group: None,
                point: None,
                repeat: 1,
                hostname: "db01".into(),
                measured_seconds: 2.0,
                iops: 600.0,
                mb_per_sec: 4.9,
                latency_mean_ns: Some(25_200.0),
                latency_p99_ns: Some(40_000),
                errors: 0,
                commit_latency_ns: None,
            },
            latency_of,
            lead_latency_mean_ns: Some(lead_ns),
            lead_latency_p99_ns: Some(1_200_000),
        }
    }

    /// The runs page shows a committing run's commit latency under mean and p99, says whose,
    /// and each I/O's mean beside it; a page of runs that commit nothing keeps its columns.
    #[test]
    fn the_runs_page_leads_with_a_runs_commit_latency() {
        let mut page = String::new();
        table(
            &mut page,
            &[listed(1, LatencyOf::Commit, 252_000.0), listed(2, LatencyOf::Io, 25_200.0)],
            "",
            "id",
            false,
        );
        assert!(page.contains("<th>latency of</th><th><a href=\"/?sort=mean"), "{page}");
        let row = |id: i64| page.lines().find(|l| l.starts_with(&format!("<tr data-id=\"{id}\""))).unwrap();
        assert!(
            row(1).contains(
                "<td>commit</td><td class=\"n\">252.00us</td><td class=\"n\">1.20ms</td><td class=\"n\">25.20us</td>"
            ),
            "{}",
            row(1)
        );
        assert!(row(2).contains("<td>I/O</td><td class=\"n\">25.20us</td>"), "{}", row(2));
        let mut plain = String::new();
        table(&mut plain, &[listed(2, LatencyOf::Io, 25_200.0)], "", "id", false);
        assert!(!plain.contains("latency of") && !plain.contains("I/O mean"), "{plain}");
    }
}
