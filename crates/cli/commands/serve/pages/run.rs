//! A run's page and a group's page: the report of that run (summary, latency percentiles and
//! histogram, per-second series, counters, environment, warnings, verification, the command
//! line as recorded, passwords already masked) or of that group (a sweep's curve and knee,
//! repeats' spread, an A/B comparison, a check's findings), drawn by the report's renderer.

use super::{Page, frame, within_limit};
use crate::commands::report::document;
use crate::store::document_of;
use spindle_report::served;
use spindle_report::view::report_view;
use spindle_runner::saver::report_group;
use spindle_store::{Filter, Store};

pub fn run_page(store: &Store, id: i64) -> Page {
    let run = store.load(id)?;
    let group = run.summary.group;
    let mut doc = document_of(vec![run]);
    doc.title = format!("Run {id}");
    Ok(frame::page(&report_view(&doc), served::run::run_links(id, group)))
}

pub fn group_page(store: &Store, id: i64) -> Page {
    let group = store.group(id)?;
    let filter = Filter { group: Some(id), ..Filter::default() };
    within_limit(store, &filter)?;
    let title = format!("Group {id}: {} ({})", spindle_report::view::kind_title(group.kind), group.name);
    let mut doc = match document(store, &filter)? {
        Some(doc) => doc,
        // A group whose runs were all removed still has its own row and summary.
        None => spindle_report::Document { groups: vec![report_group(group)], ..Default::default() },
    };
    doc.title = title;
    let runs: Vec<i64> = doc.runs.iter().filter_map(|r| r.id).collect();
    Ok(frame::page(&report_view(&doc), served::run::group_links(id, &runs)))
}
