//! A selection downloaded as a file: the same `Document` and exporters as `spindle report`
//! (HTML, XLSX, CSV, JSON; Markdown too), the runs picked by ids (the runs page's boxes, a
//! run's page) or a group.

use super::{Page, PageError, id_of, within_limit};
use crate::commands::report::document;
use crate::selection;
use spindle_report::Format;
use spindle_serve::http::{Request, Response};
use spindle_store::Store;

pub fn download(store: &Store, req: &Request) -> Page {
    let name = req.param("format").unwrap_or("html");
    let format = Format::parse(name)
        .filter(|f| *f != Format::Text)
        .ok_or_else(|| PageError::bad(format!("format {name:?}: html, xlsx, csv, json or md")))?;
    let items: Vec<String> = ["runs", "a", "b"]
        .iter()
        .flat_map(|p| req.params(p))
        .flat_map(|v| v.split([' ', ',']).filter(|s| !s.is_empty()).map(String::from))
        .collect();
    let mut filter = selection::parse_selection("runs", &items)?;
    filter.group = req.param("group").map(|g| id_of("group", g)).transpose()?;
    if filter.ids.is_empty() && filter.labels.is_empty() && filter.group.is_none() {
        return Err(PageError::bad("select the runs to download: tick them, or open a run or a group"));
    }
    within_limit(store, &filter)?;
    let Some(mut doc) = document(store, &filter)? else {
        return Err(PageError::not_found("no stored run matches this selection"));
    };
    doc.title = "spindle report".into();
    doc.generated_at = spindle_model::time::rfc3339_utc(std::time::SystemTime::now());
    let bytes = format.exporter().export(&doc).map_err(anyhow::Error::from)?;
    let name = file_name(filter.group, doc.runs.iter().filter_map(|r| r.id), format.name());
    Ok(Response::new(200, content_type(format), bytes)
        .with("Content-Disposition", format!("attachment; filename=\"{name}\"")))
}

/// The file's name, saying what it holds, so downloads of different runs do not overwrite
/// each other in the browser's folder: `spindle-group-3.html`, `spindle-run-12.csv`,
/// `spindle-runs-4-to-9.xlsx` (the lowest and highest ids).
fn file_name(group: Option<i64>, ids: impl Iterator<Item = i64>, ext: &str) -> String {
    if let Some(g) = group {
        return format!("spindle-group-{g}.{ext}");
    }
    let (mut low, mut high, mut n) = (i64::MAX, i64::MIN, 0);
    for id in ids {
        (low, high, n) = (low.min(id), high.max(id), n + 1);
    }
    match n {
        0 => format!("spindle-report.{ext}"),
        1 => format!("spindle-run-{low}.{ext}"),
        _ => format!("spindle-runs-{low}-to-{high}.{ext}"),
    }
}

fn content_type(format: Format) -> &'static str {
    match format {
        Format::Html => "text/html; charset=utf-8",
        Format::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        Format::Csv => "text/csv; charset=utf-8",
        Format::Json => "application/json",
        Format::Markdown | Format::Text => "text/plain; charset=utf-8",
    }
}

#[cfg(test)]
mod tests {
    use super::file_name;

    #[test]
    fn a_download_is_named_by_what_it_holds() {
        assert_eq!(file_name(Some(3), [7, 8].into_iter(), "html"), "spindle-group-3.html");
        assert_eq!(file_name(None, [12].into_iter(), "csv"), "spindle-run-12.csv");
        assert_eq!(file_name(None, [9, 4, 6].into_iter(), "xlsx"), "spindle-runs-4-to-9.xlsx");
    }
}
