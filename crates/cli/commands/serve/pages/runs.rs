//! The runs page: every stored run matching the filter (label, kind, status, host, dates, as
//! `runs list` selects), sorted by any column, a page of them at a time, each with boxes that
//! put it in side A or B of a comparison or in a download.

use super::{Page, PageError, frame};
use crate::args::SelectArgs;
use crate::listing::{Listed, listed};
use crate::selection;
use spindle_report::served::{self, runs::FilterValues, runs::Order, runs::RunRow, runs::SORTS};
use spindle_report::view::ReportView;
use spindle_serve::http::{Request, encode};
use spindle_store::{Filter, PageQuery, RunSummary, SortKey, Store};

/// Runs on one page: a screen or two, drawn at once whatever the store holds.
const PER_PAGE: usize = 100;

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
    let rows: Vec<RunRow<'_>> = shown.iter().map(row).collect();
    let kept = kept_query(req);
    let filter = FilterValues {
        label: req.param("label"),
        kind: req.param("kind"),
        status: req.param("status"),
        host: req.param("host"),
        since: req.param("since"),
        until: req.param("until"),
    };
    let order = Order { kept: &kept, sort, ascending, page: page_no, pages };
    let body = served::runs::body(super::live::running(store)?, &filter, &rows, &order);
    let mut response = frame::page(&view, body);
    if total == 0 && filtered {
        response.status = 404;
    }
    Ok(response)
}

/// The runs on page `page` (from 1) and how many match: the database sorts and cuts, so a
/// page reads its own runs only, in any order, whatever the store holds.
fn page_of(
    store: &Store,
    filter: Filter,
    hostname: Option<&str>,
    sort: &str,
    ascending: bool,
    page: Option<&str>,
) -> Result<(Vec<RunSummary>, usize, usize, usize), PageError> {
    let query = PageQuery { filter: &filter, hostname, sort: sort_key(sort), ascending };
    let total = store.count_page(&query)? as usize;
    let pages = total.div_ceil(PER_PAGE).max(1);
    let page_no = match page {
        None => 1,
        Some(p) => p
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=pages).contains(n))
            .ok_or_else(|| PageError::bad(format!("page {p:?}: there are pages 1 to {pages}")))?,
    };
    let shown = store.page(&query, ((page_no - 1) * PER_PAGE) as u64, PER_PAGE as u64)?;
    Ok((shown, total, page_no, pages))
}

/// A sort's key in the address (one of `SORTS`) as the store's. The latencies are each I/O's:
/// a run that commits shows its commits' (read from its record, for the page's runs only),
/// and reading every record to sort would cost the page its speed.
fn sort_key(sort: &str) -> SortKey {
    match sort {
        "started" => SortKey::Started,
        "kind" => SortKey::Kind,
        "workload" => SortKey::Workload,
        "host" => SortKey::Host,
        "status" => SortKey::Status,
        "rate" => SortKey::Rate,
        "mbps" => SortKey::MbPerSec,
        "mean" => SortKey::Mean,
        "p99" => SortKey::P99,
        _ => SortKey::Id,
    }
}

/// The filter's part of the address, to keep on sorting and paging links.
fn kept_query(req: &Request) -> String {
    req.query
        .iter()
        .filter(|(n, v)| FILTER_PARAMS.contains(&n.as_str()) && !v.trim().is_empty())
        .map(|(n, v)| format!("{n}={}&amp;", encode(v)))
        .collect()
}

/// A listed run as the table draws it.
fn row(listed: &Listed) -> RunRow<'_> {
    let r = &listed.summary;
    RunRow {
        id: r.id,
        started_at: &r.started_at,
        kind: &r.kind,
        workload: &r.workload,
        hostname: &r.hostname,
        status: &r.status,
        labels: &r.labels,
        group: r.group,
        point: r.point.as_ref(),
        repeat: r.repeat,
        rate: r.rate(),
        // MB/s means something only for a kind that moves bytes of its own (not Hammer's calls).
        mb_per_sec: spindle_model::RunKind::parse(&r.kind).is_none_or(|k| k.moves_bytes()).then_some(r.mb_per_sec),
        io_mean_ns: r.latency_mean_ns,
        latency_of: listed.latency_of,
        lead_mean_ns: listed.lead_latency_mean_ns,
        lead_p99_ns: listed.lead_latency_p99_ns,
    }
}
