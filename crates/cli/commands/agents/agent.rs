//! `spindle agent`: one agent's share of a run of many. Started by a launcher (a local child,
//! ssh, a Kubernetes Indexed Job, Slurm) with the run's id and its index; everything else
//! comes from the store: the job, the instant to start at, whether the run was stopped. It
//! opens no port. Its lease (an advisory lock on its store connection) and a heartbeat tell
//! the coordinator it is alive; its share is saved as an ordinary run in the run's group.

use super::clock::{Offset, measure_offset};
use super::spec_hash;
use super::work::Work;
use crate::args::AgentArgs;
use crate::console::{Console, Shown};
use crate::usage::UsageError;
use crate::{Outcome, interrupt, runner, store};
use spindle_clock::StartAt;
use spindle_model::group::Point;
use spindle_runner::experiment::Place;
use spindle_runner::saver::Group;
use spindle_store::agents::{AgentRow, AgentState, RunState};
use spindle_store::{GroupKind, Location, Store};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How often the agent beats and looks at the run's state.
const BEAT: Duration = Duration::from_millis(200);

pub fn run(args: &AgentArgs) -> anyhow::Result<Outcome> {
    let location = store::location(&args.store)?;
    if !matches!(location, Location::Server(_)) {
        return Err(UsageError::flag(
            "--store",
            location.to_string(),
            "an agent needs the run's store on a PostgreSQL server (postgres://...)",
        )
        .into());
    }
    let index = index_of(args.index)?;
    let Some(lease) = Store::open_existing(&location)? else {
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
    let run = lease.agent_join(args.run, &me)?.map_err(|e| UsageError::flag("--run", args.run.to_string(), e))?;
    if spec_hash(&run.spec) != run.spec_hash {
        lease.agent_report(
            run.id,
            index,
            AgentState::Failed,
            None,
            None,
            Some("its work differs from the run's hash"),
        )?;
        return Err(
            UsageError::flag("--run", args.run.to_string(), "the work stored for it does not match its hash").into()
        );
    }
    let work: Work = serde_json::from_str(&run.spec).map_err(|e| {
        UsageError::flag("--run", args.run.to_string(), format!("its work cannot be read by this spindle: {e}"))
    })?;

    // The lease's connection beats on a thread of its own for the agent's whole life.
    let (to_beat, states) = mpsc::channel::<AgentState>();
    let start_at = Arc::new(AtomicI64::new(0));
    let beating = {
        let start_at = Arc::clone(&start_at);
        std::thread::Builder::new()
            .name("spindle-agent-beat".into())
            .spawn(move || beat(lease, run.id, index, states, &start_at))?
    };
    let outcome =
        share(args, &location, &work, (run.id, run.group_id, run.agents), index, offset_ns, &to_beat, &start_at);
    drop(to_beat);
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

/// Prepares the agent's share, says it is ready, waits for the run's start and measures.
#[allow(clippy::too_many_arguments)]
fn share(
    args: &AgentArgs,
    location: &Location,
    work: &Work,
    (run, group, agents): (i64, i64, u32),
    index: u32,
    offset_ns: i64,
    beat: &mpsc::Sender<AgentState>,
    start_at: &AtomicI64,
) -> anyhow::Result<Share> {
    let output = crate::args::OutputArgs { quiet: true, ..Default::default() };
    let console = Console::new(&output, location.clone(), Shown::Saved);
    let store_args = crate::args::StoreArgs { store: args.store.store.clone() };
    let mut runner = runner::new(&console, &store_args, Default::default(), Duration::from_secs(1))?;
    runner.labels.insert("agent".into(), index.to_string());
    runner.labels.insert("agents.run".into(), run.to_string());
    let name = super::group_name(run);
    runner.groups.push(Group { kind: GroupKind::Agents, name: name.clone(), id: Some(group) });
    let job = work.io_job(index);
    runner.files = spindle_runner::workload::io::Files::for_jobs(job.iter());
    let mut work = work.share(index, agents)?;
    let mut place = |_: &spindle_runner::Measured| Place {
        group: Some((GroupKind::Agents, name.clone())),
        point: Some(Point::Member(format!("agent {index}"))),
        repeat: 1,
        labels: Default::default(),
    };
    let result = (|| -> anyhow::Result<Share> {
        if !runner.prepare(&mut *work, &mut place)? {
            return Ok(Share { outcome: runner.outcome, run_id: None, started_ns: None });
        }
        let _ = beat.send(AgentState::Ready);
        let Some(at_ns) = wait_for_start(start_at) else {
            return Ok(Share { outcome: Outcome::Interrupted, run_id: None, started_ns: None });
        };
        // The server's instant on this host's clock.
        let local = UNIX_EPOCH + Duration::from_nanos((at_ns + offset_ns).max(0) as u64);
        let start = Arc::new(StartAt::new(local));
        runner.start = Some(Arc::clone(&start));
        let _ = beat.send(AgentState::Running);
        runner.step(&mut *work, 0, &mut place)?;
        let started_ns = start.opened().map(|t| nanos(t) - offset_ns);
        Ok(Share { outcome: runner.outcome, run_id: runner.runs.first().map(|f| f.id), started_ns })
    })();
    runner.finish(&mut [&mut *work]);
    result
}

/// Waits until the coordinator sets the start (`Some`, server clock) or the run is over
/// or Ctrl-C (`None`).
fn wait_for_start(start_at: &AtomicI64) -> Option<i64> {
    loop {
        match start_at.load(Ordering::Acquire) {
            0 if !interrupt::stop_flag().load(Ordering::Relaxed) => std::thread::sleep(Duration::from_millis(5)),
            at if at > 0 => return Some(at),
            _ => return None,
        }
    }
}

fn nanos(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64)
}

/// The lease's thread: a heartbeat (with the agent's state as it changes), and the run's
/// state read back: its start instant handed to the agent, and a stop raised when the run is
/// over before the agent is (another agent lost, the coordinator stopped it) or the store
/// cannot be reached. Returns the lease's store when the agent is done.
fn beat(lease: Store, run: i64, index: u32, states: mpsc::Receiver<AgentState>, start_at: &AtomicI64) -> Store {
    let stop = interrupt::stop_flag();
    loop {
        let (state, done) = match states.recv_timeout(BEAT) {
            Ok(s) => (Some(s), false),
            Err(mpsc::RecvTimeoutError::Timeout) => (None, false),
            Err(mpsc::RecvTimeoutError::Disconnected) => (None, true),
        };
        if done {
            return lease;
        }
        let seen = lease.agent_beat(run, index, state).and_then(|()| lease.agent_run(run));
        match seen {
            Ok(Some(r)) => {
                if let (RunState::Started, Some(at)) = (r.state, r.start_at_ns) {
                    start_at.store(at, Ordering::Release);
                }
                if r.state.is_over() {
                    start_at.store(-1, Ordering::Release);
                    stop.store(true, Ordering::Relaxed);
                }
            }
            // The store is gone (or the run removed): nothing coordinates this agent any more.
            Ok(None) | Err(_) => {
                start_at.store(-1, Ordering::Release);
                stop.store(true, Ordering::Relaxed);
            }
        }
    }
}
