//! Runs in progress: the list the runs page shows (and polls), a live run's page whose script
//! draws the per-second series as it comes (polling `/api/live/ID` once a second), and their
//! JSON. A run whose spindle stopped publishing (killed, the machine gone) is shown as stopped
//! without finishing, never as running.

use super::{Page, PageError, frame};
use spindle_report::served::{self, live::LiveRow};
use spindle_report::view::ReportView;
use spindle_serve::http::Response;
use spindle_store::Store;
use spindle_store::progress::LiveRun;
use std::time::{SystemTime, UNIX_EPOCH};

/// A run not heard from for this long has stopped without finishing (its spindle publishes
/// every second).
const STALE_MS: i64 = 5_000;

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

fn state(run: &LiveRun, now: i64) -> String {
    let quiet = now - run.updated_ms;
    if quiet > STALE_MS {
        format!("stopped without finishing (nothing heard for {} s)", quiet / 1000)
    } else {
        format!("running, {} s measured", run.points.len())
    }
}

fn json_of(run: &LiveRun, now: i64) -> serde_json::Value {
    serde_json::json!({
        "id": run.id,
        "what": run.what,
        "hostname": run.hostname,
        "started_at": run.started_at,
        "updated_ms": run.updated_ms,
        "stopped": now - run.updated_ms > STALE_MS,
        "state": state(run, now),
        "points": run.points,
    })
}

fn json(value: serde_json::Value) -> Response {
    Response::new(200, "application/json", value.to_string())
}

/// `/api/live`: every run in progress (or stopped without finishing), without their points.
pub fn list_json(store: &Store) -> Page {
    let now = now_ms();
    let runs: Vec<serde_json::Value> = store
        .live_runs()?
        .iter()
        .map(|r| {
            let mut v = json_of(r, now);
            v["points"] = serde_json::json!(r.points.len());
            v
        })
        .collect();
    Ok(json(serde_json::json!({ "now_ms": now, "runs": runs })))
}

fn find(store: &Store, id: i64) -> Result<LiveRun, PageError> {
    store.live_runs()?.into_iter().find(|r| r.id == id).ok_or_else(|| {
        PageError::not_found(format!("no run in progress with live id {id}: it may have finished (see the runs page)"))
    })
}

/// `/api/live/ID`: one run in progress with its points; `run` is null once it has ended (a
/// 200, so a page watching it to the end logs no failed request).
pub fn run_json(store: &Store, id: i64) -> Page {
    let now = now_ms();
    let run = store.live_runs()?.into_iter().find(|r| r.id == id).map(|r| json_of(&r, now));
    Ok(json(serde_json::json!({ "now_ms": now, "run": run })))
}

/// `/live/ID`: the page its script fills.
pub fn run_page(store: &Store, id: i64) -> Page {
    let run = find(store, id)?;
    let view = ReportView {
        title: format!("In progress: {}", run.what),
        overview: vec![format!("On {}, started at {}.", run.hostname, run.started_at)],
        ..ReportView::default()
    };
    Ok(frame::page(&view, served::live::live_body(id, &state(&run, now_ms()))))
}

/// The runs page's list of runs in progress (its script keeps it current).
pub fn running(store: &Store) -> Result<String, PageError> {
    let now = now_ms();
    let runs = store.live_runs()?;
    let rows: Vec<LiveRow<'_>> =
        runs.iter().map(|r| LiveRow { id: r.id, what: &r.what, hostname: &r.hostname, state: state(r, now) }).collect();
    Ok(served::live::running(&rows))
}
