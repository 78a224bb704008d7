//! `spindle agent`: one agent's share of a run of many. Started by a launcher (a local child,
//! ssh, a Kubernetes Indexed Job, Slurm) with the run's id and its index; everything else
//! comes from the store: the job, the instant to start at, whether the run was stopped. It
//! opens no port. Its lease (an advisory lock on its store connection) and a heartbeat tell
//! the coordinator it is alive; its share is saved as an ordinary run in the run's group.

use crate::caller::Caller;
use crate::clock::{Offset, measure_offset};
use crate::work::{Stored, Work};
use crate::{group_name, spec_hash};
use spindle_clock::StartAt;
use spindle_model::group::Point;
use spindle_model::usage::UsageError;
use spindle_runner::experiment::{Place, Runner};
use spindle_runner::saver::Group;
use spindle_runner::{Outcome, Saver};
use spindle_store::agents::{AgentRow, AgentState, COORDINATOR, RunState};
use spindle_store::{GroupKind, Location, Store};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How often the agent beats and looks at the run's state.
const BEAT: Duration = Duration::from_millis(200);

/// Which run an agent joins, and as which agent.
pub struct Joining {
    /// The run's store (`--store`, `SPINDLE_STORE`).
    pub location: Location,
    /// `--run`.
    pub run: i64,
    /// `--index`, when given.
    pub index: Option<u32>,
}

/// `spindle agent`: joins the run, measures its share at the run's instant, and reports.
pub fn run(joining: &Joining, caller: &dyn Caller) -> anyhow::Result<Outcome> {
    let location = &joining.location;
    if !matches!(location, Location::Server(_)) {
        return Err(UsageError::flag(
            "--store",
            location.to_string(),
            "an agent needs the run's store on a PostgreSQL server (postgres://...)",
        )
        .into());
    }
    let index = index_of(joining.index)?;
    let Some(lease) = Store::open_existing(location)? else {
        return Err(
            UsageError::flag("--store", location.to_string(), "holds no spindle store: it has no run to join").into()
        );
    };
    let Offset { offset_ns, rtt_ns } = measure_offset(&lease)?;
    let me = AgentRow {
        index,
        hostname: spindle_host::system::hostname(),
        pid: i64::from(std::process::id()),
        spindle_version: env!("CARGO_PKG_VERSION").to_string(),
        offset_ns,
        rtt_ns,
        ..AgentRow::default()
    };
    let asked = joining.run.to_string();
    let run = lease.agent_join(joining.run, &me)?.map_err(|e| UsageError::flag("--run", asked.clone(), e))?;
    if spec_hash(&run.spec) != run.spec_hash {
        lease.agent_report(
            run.id,
            index,
            AgentState::Failed,
            None,
            None,
            Some("its work differs from the run's hash"),
        )?;
        return Err(UsageError::flag("--run", asked, "the work stored for it does not match its hash").into());
    }
    let Stored { work, labels } = serde_json::from_str(&run.spec)
        .map_err(|e| UsageError::flag("--run", asked, format!("its work cannot be read by this spindle: {e}")))?;

    // The lease's connection beats on a thread of its own for the agent's whole life. The
    // start is announced: the share's gate says when its workers (or sessions) are ready, and
    // the heartbeat thread sets the run's instant once the coordinator has.
    // `None` tells the thread the agent is done (the start's own sender outlives the agent's).
    let (to_beat, states) = mpsc::channel::<Option<AgentState>>();
    let start = {
        let ready = Mutex::new(to_beat.clone());
        Arc::new(StartAt::announced(move || {
            let _ = ready.lock().map(|tx| tx.send(Some(AgentState::Ready)));
        }))
    };
    let beating = {
        let start = Arc::clone(&start);
        let stop = caller.stop_flag();
        std::thread::Builder::new()
            .name("spindle-agent-beat".into())
            .spawn(move || beat(lease, (run.id, index), offset_ns, states, &start, stop))?
    };
    let outcome =
        share(caller, location, (&work, &labels), (run.id, run.group_id, run.agents), index, offset_ns, &start);
    let _ = to_beat.send(None);
    let lease = beating.join().map_err(|_| anyhow::anyhow!("the agent's heartbeat thread failed"))?;
    let (state, started, saved, note) = match &outcome {
        Ok(s) => (AgentState::Done, s.started_ns, s.run_id, None),
        Err(e) => (AgentState::Failed, None, None, Some(spindle_runner::saver::error_text(e))),
    };
    lease.agent_report(run.id, index, state, started, saved, note.as_deref())?;
    outcome.map(|s| s.outcome)
}

/// The agent's index: `--index`, else the launcher's (a Kubernetes Indexed Job's
/// `JOB_COMPLETION_INDEX`, Slurm's `SLURM_PROCID`).
fn index_of(flag: Option<u32>) -> Result<u32, UsageError> {
    if let Some(i) = flag {
        return Ok(i);
    }
    for name in ["JOB_COMPLETION_INDEX", "SLURM_PROCID"] {
        if let Ok(text) = std::env::var(name) {
            return text
                .trim()
                .parse()
                .map_err(|_| UsageError::request(format!("{name}={text}: not an agent index (0, 1, 2, ...)")));
        }
    }
    Err(UsageError::request(
        "which agent is this? pass --index I (or run it where JOB_COMPLETION_INDEX or SLURM_PROCID is set)",
    ))
}

/// What the agent's share came to.
struct Share {
    outcome: Outcome,
    run_id: Option<i64>,
    /// When it started, on the server's clock.
    started_ns: Option<i64>,
}

/// Prepares the agent's share and measures it, starting at the run's instant (`start`).
fn share(
    caller: &dyn Caller,
    location: &Location,
    (work, labels): (&Work, &BTreeMap<String, String>),
    (run, group, agents): (i64, i64, u32),
    index: u32,
    offset_ns: i64,
    start: &Arc<StartAt>,
) -> anyhow::Result<Share> {
    let observer = caller.observer(location);
    let saver = Saver::new(location.clone())?;
    let mut runner = Runner::new(saver, &*observer, caller.stop_flag(), caller.stop_requested());
    runner.command_line = caller.command_line();
    // The user's labels, then which share this is (a user's `agent` label gives way to it).
    runner.labels.extend(labels.clone());
    runner.labels.insert("agent".into(), index.to_string());
    runner.labels.insert("agents.run".into(), run.to_string());
    let name = group_name(run);
    runner.groups.push(Group { kind: GroupKind::Agents, name: name.clone(), id: Some(group) });
    let job = work.io_job(index);
    runner.files = spindle_runner::workload::io::Files::for_jobs(job.iter());
    let mut work = work.share(index, agents, &|text| caller.db_url(text))?;
    let mut place = |_: &spindle_runner::Measured| Place {
        group: Some((GroupKind::Agents, name.clone())),
        point: Some(Point::Member(format!("agent {index}"))),
        repeat: 1,
        labels: Default::default(),
    };
    let result = (|| -> anyhow::Result<Share> {
        if !runner.prepare(&mut *work, &mut place)? {
            start.cancel();
            return Ok(Share { outcome: runner.outcome, run_id: None, started_ns: None });
        }
        runner.start = Some(Arc::clone(start));
        runner.step(&mut *work, 0, &mut place)?;
        let started_ns = start.instant().and(start.opened()).map(|t| nanos(t) - offset_ns);
        Ok(Share { outcome: runner.outcome, run_id: runner.runs.first().map(|f| f.id), started_ns })
    })();
    runner.finish(&mut [&mut *work]);
    result
}

fn nanos(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64)
}

/// The lease's thread: a heartbeat (with the agent's state as it changes), and the run's
/// state read back: its start instant set on `start` (moved onto this host's clock by
/// `offset_ns`), and the start called off and a stop raised when the run is over before the
/// agent is (another agent lost, the coordinator stopped it), on Ctrl-C, or when the store
/// cannot be reached. Returns the lease's store when the agent is done.
fn beat(
    lease: Store,
    (run, index): (i64, u32),
    offset_ns: i64,
    states: mpsc::Receiver<Option<AgentState>>,
    start: &StartAt,
    stop: &AtomicBool,
) -> Store {
    let mut running_said = false;
    loop {
        let (mut state, done) = match states.recv_timeout(BEAT) {
            Ok(Some(s)) => (Some(s), false),
            Ok(None) => (None, true),
            Err(mpsc::RecvTimeoutError::Timeout) => (None, false),
            Err(mpsc::RecvTimeoutError::Disconnected) => (None, true),
        };
        if done {
            return lease;
        }
        if stop.load(Ordering::Relaxed) {
            start.cancel();
        }
        if !running_said && start.instant().is_some_and(|at| SystemTime::now() >= at) {
            running_said = true;
            state = state.or(Some(AgentState::Running));
        }
        let seen = lease.agent_beat(run, index, state).and_then(|()| lease.agent_run(run));
        let coordinated = lease.leases_held(run).map(|held| held.contains(&COORDINATOR));
        match seen {
            Ok(Some(r)) if !r.state.is_over() && coordinated.as_ref().is_ok_and(|c| !c) => {
                // The spindle that started the run is gone: nothing would start, watch or merge
                // it. Said in the run, once, by whichever agent sees it first.
                let note = "the coordinator (the spindle that started the run) is gone";
                let moved = match r.state {
                    RunState::Waiting => lease.agent_run_move(run, RunState::Waiting, RunState::Aborted, Some(note)),
                    _ => lease.agent_run_move(run, RunState::Started, RunState::Partial, Some(note)),
                };
                let _ = moved;
                start.cancel();
                stop.store(true, Ordering::Relaxed);
            }
            Ok(Some(r)) => {
                if let (RunState::Started, Some(at)) = (r.state, r.start_at_ns) {
                    // The server's instant on this host's clock.
                    start.set(UNIX_EPOCH + Duration::from_nanos((at + offset_ns).max(0) as u64));
                }
                if r.state.is_over() {
                    start.cancel();
                    stop.store(true, Ordering::Relaxed);
                }
            }
            // The store is gone (or the run removed): nothing coordinates this agent any more.
            Ok(None) | Err(_) => {
                start.cancel();
                stop.store(true, Ordering::Relaxed);
            }
        }
    }
}
