//! Compare any two selections: the same verdicts as `spindle compare` (the same function, so
//! the paired basis where the runs came from `ab`), drawn as the report draws an A/B group;
//! `format=json` gives exactly what `spindle compare --json` prints. Sides of any size: the
//! comparison reads a run at a time and keeps each run's figures, not its record.

use super::{Page, PageError, frame};
use crate::args::VerdictArgs;
use crate::flags::threshold_of;
use spindle_report::served::compare::{self, PartView};
use spindle_report::view::ReportView;
use spindle_runner::compared::{PartResult, Side, compared};
use spindle_serve::http::{Request, Response};
use spindle_store::Store;

/// Items of one side: run ids, ranges and labels, as the form's fields and the runs page's
/// boxes give them (each value may hold several, separated by spaces or commas).
fn items(req: &Request, name: &str) -> Vec<String> {
    req.params(name).flat_map(|v| v.split([' ', ',']).filter(|s| !s.is_empty()).map(String::from)).collect()
}

pub fn page(store: &Store, req: &Request) -> Page {
    let (a, b) = (items(req, "a"), items(req, "b"));
    let json = match req.param("format") {
        None | Some("html") => false,
        Some("json") => true,
        Some(f) => return Err(PageError::bad(format!("format {f:?}: html or json"))),
    };
    let form = compare::form(&a, &b, req.param("threshold"));
    let mut view = ReportView { title: "Compare B with A".into(), ..ReportView::default() };
    if a.is_empty() && b.is_empty() {
        view.overview.push("Pick each side by run ids (12 14-16) or labels (raid=10); all must hold.".into());
        return Ok(frame::page(&view, form));
    }
    // One side given (a run page's "compare with another"): the form, that side filled in.
    if a.is_empty() || b.is_empty() {
        let missing = if a.is_empty() { "A" } else { "B" };
        view.overview.push(format!("Now pick side {missing}: run ids (12 14-16) or labels (raid=10); all must hold."));
        return Ok(frame::page(&view, form));
    }
    let threshold_pct = threshold_of(&VerdictArgs { threshold: req.param("threshold").map(String::from) })?;
    let c = compared(Some(store), Side { flag: "--a", items: &a }, Side { flag: "--b", items: &b }, threshold_pct)?;
    if json {
        let text =
            serde_json::to_string_pretty(&c.json().map_err(anyhow::Error::from)?).map_err(anyhow::Error::from)?;
        return Ok(Response::new(200, "application/json", text + "\n"));
    }
    view.overview.push(format!("A: {}. B: {}.", c.a_name, c.b_name));
    let parts: Vec<(Option<&str>, PartView<'_>)> = c
        .parts
        .iter()
        .map(|(part, result)| {
            let view = match result {
                PartResult::Compared(comparison) => PartView::Compared(comparison),
                PartResult::OnlyIn { a } => PartView::OnlyIn { a: *a },
            };
            (part.as_deref(), view)
        })
        .collect();
    view.sections.extend(compare::sections(&parts));
    Ok(frame::page(&view, form))
}
