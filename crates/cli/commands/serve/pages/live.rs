//! Runs in progress: the list the runs page shows (and polls), a live run's page whose script
//! draws the per-second series as it comes (polling `/api/live/ID` once a second), and their
//! JSON. A run whose spindle stopped publishing (killed, the machine gone) is shown as stopped
//! without finishing (an agent of a run measured by several: lost), never as running. A run's
//! agents publish a row each: they are shown as one run with its agents under it. Once a run
//! is saved, its live page sends the reader to the saved run's.

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

/// Rows measuring one thing started within this of each other are one run's agents (their
/// spindles start at one instant of the coordinator's clock, each on its own clock).
const TOGETHER_MS: i64 = 2_000;

fn state(run: &LiveRun, now: i64, agents: usize) -> String {
    let quiet = now - run.updated_ms;
    match (quiet > STALE_MS, agents > 1) {
        (true, true) => format!("lost (nothing heard for {} s)", quiet / 1000),
        (true, false) => format!("stopped without finishing (nothing heard for {} s)", quiet / 1000),
        (false, _) => format!("running, {} s measured", run.points.len()),
    }
}

fn started_ms(run: &LiveRun) -> Option<i64> {
    spindle_model::time::parse_rfc3339_utc_ms(&run.started_at)
}

/// The live rows as runs: each a row, or several agents' rows that measure the same thing
/// together (the same words, started within `TOGETHER_MS`), in the order of their first row.
fn together(runs: &[LiveRun]) -> Vec<Vec<&LiveRun>> {
    let mut out: Vec<Vec<&LiveRun>> = Vec::new();
    for r in runs {
        let near = |a: &LiveRun| {
            a.what == r.what
                && a.hostname != r.hostname
                && matches!((started_ms(a), started_ms(r)), (Some(x), Some(y)) if (x - y).abs() <= TOGETHER_MS)
        };
        match out.iter_mut().find(|g| near(g[0])) {
            Some(g) => g.push(r),
            None => out.push(vec![r]),
        }
    }
    out
}

/// `agents`: the rows of the run it is one agent of (itself alone for a run of one spindle).
fn json_of(run: &LiveRun, now: i64, agents: &[&LiveRun]) -> serde_json::Value {
    serde_json::json!({
        "id": run.id,
        "what": run.what,
        "hostname": run.hostname,
        "started_at": run.started_at,
        "updated_ms": run.updated_ms,
        "stopped": now - run.updated_ms > STALE_MS,
        "state": state(run, now, agents.len()),
        "points": run.points,
        // The first row of its run: rows with the same `run` are one run's agents.
        "run": agents.first().map_or(run.id, |a| a.id),
    })
}

fn json(value: serde_json::Value) -> Response {
    Response::new(200, "application/json", value.to_string())
}

/// `/api/live`: every run in progress (or stopped without finishing), without their points.
pub fn list_json(store: &Store) -> Page {
    let now = now_ms();
    let live = store.live_runs()?;
    let runs: Vec<serde_json::Value> = together(&live)
        .iter()
        .flat_map(|agents| {
            agents.iter().map(|r| {
                let mut v = json_of(r, now, agents);
                v["points"] = serde_json::json!(r.points.len());
                v
            })
        })
        .collect();
    Ok(json(serde_json::json!({ "now_ms": now, "runs": runs })))
}

/// A live row, in progress or saved, and (in progress) its run's rows: its agents' where
/// several measure it together, else itself alone.
fn find(store: &Store, id: i64) -> Result<(LiveRun, Vec<LiveRun>), PageError> {
    let Some(run) = store.live_run(id)? else {
        return Err(PageError::not_found(format!(
            "no run in progress with live id {id}: it may have finished unsaved, or long ago (see the runs page)"
        )));
    };
    let live = store.live_runs()?;
    let agents = together(&live)
        .into_iter()
        .find(|g| g.iter().any(|r| r.id == id))
        .map_or_else(Vec::new, |g| g.into_iter().cloned().collect());
    Ok((run, agents))
}

/// `/api/live/ID`: one run in progress with its points; once it has ended `run` is null and
/// `saved_run` the run it was saved as, if it was (a 200, so a page watching it to the end
/// logs no failed request).
pub fn run_json(store: &Store, id: i64) -> Page {
    let now = now_ms();
    let (run, saved) = match find(store, id) {
        Ok((run, agents)) if run.run_id.is_none() => {
            (Some(json_of(&run, now, &agents.iter().collect::<Vec<_>>())), None)
        }
        Ok((run, _)) => (None, run.run_id),
        Err(e) if e.status == 404 => (None, None),
        Err(e) => return Err(e),
    };
    Ok(json(serde_json::json!({ "now_ms": now, "run": run, "saved_run": saved })))
}

/// `/live/ID`: the page its script fills; once the run is saved, a 303 to the saved run's page.
pub fn run_page(store: &Store, id: i64) -> Page {
    let (run, agents) = find(store, id)?;
    if let Some(saved) = run.run_id {
        return Ok(Response::new(303, "text/plain; charset=utf-8", format!("saved as run {saved}\n"))
            .with("Location", format!("/run/{saved}")));
    }
    let view = ReportView {
        title: format!("In progress: {}", run.what),
        overview: vec![format!("On {}, started at {}.", run.hostname, run.started_at)],
        ..ReportView::default()
    };
    Ok(frame::page(&view, served::live::live_body(id, &state(&run, now_ms(), agents.len()))))
}

/// The runs page's list of runs in progress (its script keeps it current).
pub fn running(store: &Store) -> Result<String, PageError> {
    let now = now_ms();
    let live = store.live_runs()?;
    let runs: Vec<Vec<LiveRow<'_>>> = together(&live)
        .iter()
        .map(|agents| {
            agents
                .iter()
                .map(|r| LiveRow { id: r.id, what: &r.what, hostname: &r.hostname, state: state(r, now, agents.len()) })
                .collect()
        })
        .collect();
    Ok(served::live::running(&runs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, host: &str, what: &str, started_at: &str, updated_ms: i64) -> LiveRun {
        LiveRun {
            id,
            pid: 1,
            hostname: host.into(),
            what: what.into(),
            started_at: started_at.into(),
            updated_ms,
            points: Vec::new(),
            run_id: None,
        }
    }

    #[test]
    fn a_runs_agents_are_one_run_and_a_silent_one_is_lost() {
        let at = "2026-11-28T10:00:00.100Z";
        let runs = [
            row(1, "db1", "spindle agent: 8KiB random read", at, 10_000),
            row(2, "other", "spindle io", at, 10_000),
            row(3, "db2", "spindle agent: 8KiB random read", "2026-11-28T10:00:01.900Z", 10_000),
            row(4, "db3", "spindle agent: 8KiB random read", "2026-11-28T10:00:09.000Z", 10_000),
        ];
        let ids: Vec<Vec<i64>> = together(&runs).iter().map(|g| g.iter().map(|r| r.id).collect()).collect();
        assert_eq!(ids, [vec![1, 3], vec![2], vec![4]], "started within 2 s of each other, on other hosts");
        assert!(state(&runs[0], 20_000, 2).starts_with("lost"));
        assert!(state(&runs[1], 20_000, 1).starts_with("stopped without finishing"));
        assert!(state(&runs[1], 12_000, 1).starts_with("running"));
    }
}
