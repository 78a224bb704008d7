//! One run measured by several agents at once (`spindle io --agents N`), on one host or many,
//! coordinated through the results store on a PostgreSQL server that every agent saves into
//! anyway: no daemon, no port, no protocol of spindle's own.
//!
//! ```text
//! io --agents N ── plan (as io) ── run row + group in the store ── launch (local | ssh |
//!     srun | --emit: the commands or a Kubernetes Job printed)
//! agent I ── join (lease, clock offset) ── prepare its files ── ready
//! coordinator ── barrier: all ready -> start_at = server now + lead ── agents sleep to
//!     start_at on their own clocks (offset applied) ── measure ── save their share
//!     ── watch: leases and heartbeats (a lost agent: run partial, the others stop)
//!     ── merge: histograms added exactly ── the merged run saved in the group
//! ```

mod agent;
mod clock;
mod coordinate;
mod launch;
mod tally;
mod work;

pub use agent::run as agent;

use crate::args::{AgentsArgs, OutputArgs, StoreArgs};
use crate::usage::UsageError;
use crate::{Outcome, output, plan, store};
use coordinate::Barrier;
use launch::{Launch, Launched};
use sha2::{Digest, Sha256};
use spindle_model::merge::{AgentFacts, Distribution, merge_runs};
use spindle_store::agents::{AgentRow, AgentState, RunState};
use spindle_store::{GroupKind, Location, Placement, Point, Store};
use std::time::Duration;
pub use work::Work;

/// The most agents one run takes.
const MOST: u32 = 1024;

/// What `--agents` and its flags asked for.
pub struct Request {
    pub agents: u32,
    pub launch: Launch,
    pub hosts: Vec<String>,
    pub emit: bool,
    pub ready_timeout: Duration,
}

impl Request {
    /// `None` without `--agents`; every other flag of the set is refused then.
    pub fn of(args: &AgentsArgs) -> Result<Option<Request>, UsageError> {
        let Some(text) = &args.agents else {
            for (set, flag) in [
                (args.launch.is_some(), "--launch"),
                (args.hosts.is_some(), "--hosts"),
                (args.emit, "--emit"),
                (args.ready_timeout.is_some(), "--ready-timeout"),
            ] {
                if set {
                    return Err(UsageError::request(format!("{flag} goes with --agents N")));
                }
            }
            return Ok(None);
        };
        let agents: u32 = text
            .parse()
            .ok()
            .filter(|n| (1..=MOST).contains(n))
            .ok_or_else(|| UsageError::flag("--agents", text, format!("a number of agents, 1 to {MOST}")))?;
        let launch = args.launch.as_deref().map_or(Ok(Launch::Local), Launch::parse)?;
        let hosts = match (&args.hosts, launch) {
            (Some(path), Launch::Ssh) => launch::read_hosts(path)?,
            (None, Launch::Ssh) if !args.emit => {
                return Err(UsageError::request("--launch ssh needs --hosts FILE (one host per line)"));
            }
            (None, Launch::Ssh) => vec!["HOST".to_string()],
            (Some(_), _) => return Err(UsageError::request("--hosts goes with --launch ssh")),
            (None, _) => Vec::new(),
        };
        if launch == Launch::K8s && !args.emit {
            return Err(UsageError::flag(
                "--launch",
                "k8s",
                "spindle does not talk to a cluster: add --emit, and apply the Job it prints with kubectl",
            ));
        }
        let ready_timeout = plan::optional_duration_of("--ready-timeout", &args.ready_timeout, Duration::from_secs(1))?
            .unwrap_or(Duration::from_secs(300));
        Ok(Some(Request { agents, launch, hosts, emit: args.emit, ready_timeout }))
    }
}

/// The name of a run of agents' group.
fn group_name(run: i64) -> String {
    format!("agents run {run}")
}

/// SHA-256 of a job's JSON, in hex: what every agent checks its job against.
fn spec_hash(spec: &str) -> String {
    Sha256::digest(spec.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The text the store was given as (its URL with any password), for the agents' environment.
fn store_text(args: &StoreArgs) -> Option<String> {
    match &args.store {
        Some(p) => p.to_str().map(str::to_string),
        None => std::env::var("SPINDLE_STORE").ok(),
    }
}

/// The database's password for agents started here, in the variable its engine's clients
/// read (the work in the store holds none).
fn password_env(db: Option<&spindle_db::DbUrl>) -> Vec<(&'static str, String)> {
    let Some((url, var)) = db.and_then(|u| Some((u, crate::database::password_var(u.engine)?))) else {
        return Vec::new();
    };
    url.password.clone().map(|p| vec![(var, p)]).unwrap_or_default()
}

/// The command's flags a run of agents uses.
pub struct Asked<'a> {
    pub store: &'a StoreArgs,
    pub output: &'a OutputArgs,
    /// The database a Hammer run hammers, with its password (the work holds none).
    pub db: Option<&'a spindle_db::DbUrl>,
}

/// `--agents N` of `io` or `hammer run`: the planned work measured by N agents at once,
/// merged into one run.
pub fn run(args: Asked<'_>, request: Request, work: Work) -> anyhow::Result<Outcome> {
    if let Some(most) = work.most_agents().filter(|m| request.agents > *m) {
        return Err(UsageError::flag(
            "--agents",
            request.agents.to_string(),
            format!("more agents than the {most} sessions to share among them"),
        )
        .into());
    }
    let location = store::location(args.store)?;
    let (Location::Server(_), Some(url)) = (&location, store_text(args.store)) else {
        return Err(UsageError::flag(
            "--store",
            location.to_string(),
            "--agents needs a store on a PostgreSQL server every agent reaches (--store postgres://... or SPINDLE_STORE)",
        )
        .into());
    };
    let labels = output::labels(&args.output.labels)?;
    let quiet = args.output.quiet;
    let output_args = args.output;
    let say = |text: &str| {
        if !quiet {
            eprintln!("{text}");
        }
    };
    let mut store = Store::open(&location)?;
    let spec = serde_json::to_string(&work)?;
    let now = spindle_model::time::rfc3339_utc(std::time::SystemTime::now());
    let group = store.new_group(GroupKind::Agents, "agents", &now)?;
    let run = store.agent_run_new(request.agents, &spec, &spec_hash(&spec), group, &now)?;
    // Held for the whole run, on this connection: agents that lose sight of it stop.
    if !store.coordinator_lease(run)? {
        return Err(anyhow::anyhow!("run {run}: another spindle holds its coordinator's lease"));
    }
    // The group is named by its run once the run has an id.
    store.rename_group(group, &group_name(run))?;
    let mut launched = if request.emit {
        output::write_stdout(launch::emitted(request.launch, run, request.agents, &request.hosts).as_bytes())?;
        close_stdout()?;
        Launched::default()
    } else {
        Launched::start(request.launch, run, request.agents, &url, &password_env(args.db), &request.hosts)?
    };
    say(&format!("run {run}: waiting for {} agents (started {})", request.agents, launch_said(&request)));
    let start_at = match coordinate::barrier(&store, run, request.agents, request.ready_timeout, &mut launched)? {
        Barrier::Started(at) => at,
        Barrier::Aborted(why) => {
            launched.kill();
            return Err(anyhow::anyhow!("run {run}: {why}; nothing was measured"));
        }
    };
    say(&format!("run {run}: every agent is ready; they start together"));
    let tally = tally::Tally::start(&work, args.db, &store, start_at)?;
    let (rows, partial) = coordinate::watch(&store, run, request.agents)?;
    let lost: Vec<u32> = rows.iter().filter(|r| r.state == Some(AgentState::Lost)).map(|r| r.index).collect();
    launched.end_lost(&lost);
    launched.wait();
    let merged = merged_run(&store, &rows, start_at, partial.as_deref())?;
    let Some(mut merged) = merged else {
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
    let mut all = labels;
    all.insert("agents".into(), request.agents.to_string());
    all.insert("agents.run".into(), run.to_string());
    merged.labels = all;
    merged.command_line = output::command_line();
    let id = store
        .save(&merged, &Placement { group: Some(group), point: Some(Point::Member("all agents".into())), repeat: 1 })?;
    if partial.is_none() {
        store.agent_run_move(run, RunState::Started, RunState::Complete, None)?;
    }
    if !request.emit {
        if output_args.json || output_args.csv {
            let doc = spindle_report::Document {
                runs: vec![spindle_report::ReportRun {
                    id: Some(id),
                    group: Some(group),
                    point: Some(Point::Member("all agents".into())),
                    repeat: 1,
                    record: merged.clone(),
                }],
                ..spindle_report::Document::default()
            };
            output::print_document(&doc, output_args)?;
        } else if !quiet {
            output::write_text(&spindle_report::render_text(std::slice::from_ref(&merged)))?;
        }
    }
    let skew = merged.agents.as_ref().map_or(0.0, |d| d.start_skew_us);
    // The shares merged: a lost agent's is not one, even if it saved one after it was lost.
    let merged_shares = rows.iter().filter(|r| r.state == Some(AgentState::Done) && r.run_id.is_some()).count();
    say(&format!(
        "saved as run {id} (merged from {merged_shares} agents' shares, in group {group}); start spread {skew:.0} µs"
    ));
    match partial {
        None => Ok(Outcome::Success),
        Some(why) if why.contains("Ctrl-C") => Ok(Outcome::Interrupted),
        Some(why) => {
            crate::progress::warn(false, &format!("run {run} is partial: {why}"));
            Ok(Outcome::OperationsFailed)
        }
    }
}

/// Ends stdout once the launch text is written, so `... --emit | kubectl apply -f -` applies
/// the Job while this spindle goes on coordinating (what it says next goes to stderr).
fn close_stdout() -> anyhow::Result<()> {
    std::io::Write::flush(&mut std::io::stdout())?;
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    // SAFETY: dup2 onto fd 1 replaces stdout with /dev/null; both descriptors are open.
    if unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), 1) } < 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    Ok(())
}

fn launch_said(request: &Request) -> &'static str {
    match (request.emit, request.launch) {
        (true, _) => "by the commands printed",
        (false, Launch::Local) => "on this host",
        (false, Launch::Ssh) => "over ssh",
        (false, Launch::Slurm) => "by srun",
        (false, Launch::K8s) => "by a Job",
    }
}

/// The agents' saved shares merged into one run (`None` when none was saved).
fn merged_run(
    store: &Store,
    rows: &[AgentRow],
    start_at: i64,
    partial: Option<&str>,
) -> anyhow::Result<Option<spindle_model::RunRecord>> {
    let mut shares = Vec::new();
    for r in rows.iter().filter(|r| r.state == Some(AgentState::Done)) {
        if let Some(id) = r.run_id {
            shares.push((r, store.load(id)?.record));
        }
    }
    if shares.is_empty() {
        return Ok(None);
    }
    let started: Vec<i64> = shares.iter().filter_map(|(r, _)| r.started_ns).collect();
    let skew_ns = started.iter().max().zip(started.iter().min()).map_or(0, |(a, b)| a - b);
    let distribution = Distribution {
        start_at_ns: start_at,
        start_skew_us: skew_ns as f64 / 1e3,
        steady_seconds: shares.iter().map(|(_, r)| r.measured_seconds).fold(f64::INFINITY, f64::min),
        agents: rows
            .iter()
            .map(|r| {
                let record = shares.iter().find(|(s, _)| s.index == r.index).map(|(_, rec)| rec);
                AgentFacts {
                    index: r.index,
                    hostname: r.hostname.clone(),
                    run_id: r.run_id,
                    offset_ns: r.offset_ns,
                    rtt_ns: r.rtt_ns,
                    late_us: r.started_ns.map_or(0.0, |s| (s - start_at) as f64 / 1e3),
                    measured_seconds: record.map_or(0.0, |rec| rec.measured_seconds),
                    status: record.map_or(spindle_model::record::RunStatus::Failed, |rec| rec.status),
                }
            })
            .collect(),
        server: None,
    };
    let parts: Vec<(u32, &spindle_model::RunRecord)> = shares.iter().map(|(r, rec)| (r.index, rec)).collect();
    let mut merged = merge_runs(&parts, distribution)?;
    if let Some(why) = partial {
        merged.status = spindle_model::record::RunStatus::Interrupted;
        merged.warnings.insert(0, format!("partial: {why}"));
    }
    Ok(Some(merged))
}
