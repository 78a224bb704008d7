//! A selection downloaded as a file: the same exporters as `spindle report` (HTML, XLSX,
//! CSV, JSON; Markdown too), the runs picked by ids (the runs page's boxes, a run's page) or a
//! group. The file is written as it is sent, its runs read from the store one at a time, so
//! a download of any number of runs holds a few.

use super::{Page, PageError, id_of};
use crate::commands::report::StoredRuns;
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
    let (n, Some(span)) = store.id_span(&filter)? else {
        return Err(PageError::not_found("no stored run matches this selection"));
    };
    let name = file_name(filter.group, n, span, format.name());
    let response = Response::streamed(content_type(format), move |store, out| {
        let runs = StoredRuns::new(store, filter, "spindle report".into()).map_err(std::io::Error::other)?;
        // Removed since the answer began: an empty report, as the selection now is.
        let Some(runs) = runs else { return Ok(()) };
        format.exporter().write(&runs, out).map_err(|e| std::io::Error::other(e.0))
    });
    Ok(response.with("Content-Disposition", format!("attachment; filename=\"{name}\"")))
}

/// The file's name, saying what it holds, so downloads of different runs do not overwrite
/// each other in the browser's folder: `spindle-group-3.html`, `spindle-run-12.csv`,
/// `spindle-runs-4-to-9.xlsx` (the lowest and highest of the `n` runs' ids).
fn file_name(group: Option<i64>, n: u64, (low, high): (i64, i64), ext: &str) -> String {
    match (group, n) {
        (Some(g), _) => format!("spindle-group-{g}.{ext}"),
        (None, 1) => format!("spindle-run-{low}.{ext}"),
        (None, _) => format!("spindle-runs-{low}-to-{high}.{ext}"),
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
        assert_eq!(file_name(Some(3), 2, (7, 8), "html"), "spindle-group-3.html");
        assert_eq!(file_name(None, 1, (12, 12), "csv"), "spindle-run-12.csv");
        assert_eq!(file_name(None, 3, (4, 9), "xlsx"), "spindle-runs-4-to-9.xlsx");
    }
}
