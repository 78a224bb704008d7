//! The coordinator's whole run: the run and its group made in the store, the agents
//! launched, the barrier, the watch while they measure, and their shares merged into the one
//! run saved in the group. What the command line prints of it is its own.

use crate::caller::Caller;
use crate::coordinate::{self, Barrier};
use crate::launch::{self, Launched};
use crate::merge::merged_run;
use crate::request::Request;
use crate::tally::Tally;
use crate::work::{Stored, Work};
use crate::{group_name, spec_hash};
use spindle_db::DbUrl;
use spindle_model::RunRecord;
use spindle_store::agents::{AgentState, RunState};
use spindle_store::{GroupKind, Location, Placement, Point, Store};
use std::collections::BTreeMap;

/// What a coordinator is given: the request, the work, and where things are.
pub struct Coordination {
    pub request: Request,
    pub work: Work,
    /// The store, on a PostgreSQL server every agent reaches.
    pub location: Location,
    /// The store's text as given (its URL with any password): the agents are handed it.
    pub store_url: String,
    /// The database a Hammer run hammers, with its password (the work holds none).
    pub db: Option<DbUrl>,
    /// What the agents started here need in their environment besides the store's URL (the
    /// database's password, in the variable its engine's clients read).
    pub env: Vec<(&'static str, String)>,
    /// The user's labels, for the merged run.
    pub labels: BTreeMap<String, String>,
}

/// The merged run, saved.
pub struct Coordinated {
    /// The run of agents.
    pub run: i64,
    /// The merged run's id in the store, and its group.
    pub id: i64,
    pub group: i64,
    pub record: RunRecord,
    /// Why the run is partial, when it is.
    pub partial: Option<String>,
}

/// `--agents N`: the work measured by N agents at once, merged into one run.
pub fn run(c: Coordination, caller: &dyn Caller) -> anyhow::Result<Coordinated> {
    let Coordination { request, work, .. } = &c;
    let Location::Server(url) = &c.location else {
        return Err(anyhow::anyhow!("{}: agents need a store on a PostgreSQL server", c.location));
    };
    let mut store = Store::open(&c.location)?;
    let (run, group) = open_run(&mut store, request, &Stored { work: work.clone(), labels: c.labels.clone() })?;
    let mut launched = launch(caller, request, work, run, url, &c.store_url, &c.env)?;
    caller.say(&format!("run {run}: waiting for {} agents (started {})", request.agents, request.launch_said()));
    let barrier = coordinate::barrier(&store, run, request.agents, request.ready_timeout, &mut launched, caller)?;
    let start_at = match barrier {
        Barrier::Started(at) => at,
        Barrier::Aborted(why) => {
            launched.kill();
            return Err(anyhow::anyhow!("run {run}: {why}; nothing was measured"));
        }
    };
    caller.say(&format!("run {run}: every agent is ready; they start together"));
    let tally = Tally::start(work, c.db.as_ref(), &store, start_at)?;
    let (rows, partial) = coordinate::watch(&store, run, request.agents, caller)?;
    let lost: Vec<u32> = rows.iter().filter(|r| r.state == Some(AgentState::Lost)).map(|r| r.index).collect();
    launched.end_lost(&lost);
    launched.wait();
    let Some(mut merged) = merged_run(&store, &rows, (start_at, work.warmup()), partial.as_deref())? else {
        return Err(anyhow::anyhow!("run {run}: no agent saved a share: {}", partial.unwrap_or_default()));
    };
    work.as_asked(&mut merged);
    // The agents' windows should all but coincide: say so when they did not.
    let asked = work.duration().as_secs_f64();
    if partial.is_none() && merged.measured_seconds < 0.9 * asked {
        merged.warnings.push(format!(
            "the agents measured together for {:.1} s of the {asked:.1} s asked: one of them started late or ended early",
            merged.measured_seconds
        ));
    }
    let server = tally.and_then(|t| t.finish(&merged));
    if let Some(d) = merged.agents.as_mut() {
        d.server = server;
    }
    labelled(&mut merged, &c, run, caller);
    let id = store
        .save(&merged, &Placement { group: Some(group), point: Some(Point::Member("all agents".into())), repeat: 1 })?;
    if partial.is_none() {
        store.agent_run_move(run, RunState::Started, RunState::Complete, None)?;
    }
    Ok(Coordinated { run, id, group, record: merged, partial })
}

/// The run of agents and its group in the store, with the coordinator's lease on it.
fn open_run(store: &mut Store, request: &Request, stored: &Stored) -> anyhow::Result<(i64, i64)> {
    let spec = serde_json::to_string(stored)?;
    let now = spindle_model::time::rfc3339_utc(std::time::SystemTime::now());
    let group = store.new_group(GroupKind::Agents, "agents", &now)?;
    let run = store.agent_run_new(request.agents, &spec, &spec_hash(&spec), group, &now)?;
    // Held for the whole run, on this connection: agents that lose sight of it stop.
    if !store.coordinator_lease(run)? {
        return Err(anyhow::anyhow!("run {run}: another spindle holds its coordinator's lease"));
    }
    // The group is named by its run once the run has an id.
    store.rename_group(group, &group_name(run))?;
    Ok((run, group))
}

/// Starts the agents, or (`--emit`) writes what starts them.
fn launch(
    caller: &dyn Caller,
    request: &Request,
    work: &Work,
    run: i64,
    store: &DbUrl,
    store_url: &str,
    env: &[(&'static str, String)],
) -> anyhow::Result<Launched> {
    if request.emit {
        caller.emit(&launch::emitted(request, run, store, work))?;
        return Ok(Launched::default());
    }
    Launched::start(request.launch, run, request.agents, store_url, env, &request.hosts)
}

/// The merged run's labels (the user's, and the run of agents': the agents asked for, and
/// those whose shares it is made of) and command line.
fn labelled(merged: &mut RunRecord, c: &Coordination, run: i64, caller: &dyn Caller) {
    let mut all = c.labels.clone();
    all.insert("agents".into(), c.request.agents.to_string());
    if let Some(d) = &merged.agents {
        all.insert("agents.measured".into(), d.agents_measured.to_string());
    }
    all.insert("agents.run".into(), run.to_string());
    merged.labels = all;
    merged.command_line = caller.command_line();
}
