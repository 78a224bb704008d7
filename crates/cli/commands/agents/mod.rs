//! `--agents N` of `io` and `hammer run`, and `spindle agent`: their flags read into the plain
//! inputs of the agents' library (spindle_agents: the launch, the barrier, the watch, the
//! merge), and what it did printed.

mod caller;

use crate::args::{AgentArgs, AgentsArgs, OutputArgs, StoreArgs};
use crate::usage::UsageError;
use crate::{Outcome, output, plan, store};
use caller::Here;
pub use spindle_agents::Work;
use spindle_agents::{Caller, Coordinated, Coordination, Joining, Launch, Request};
use spindle_store::{Location, Point};
use std::time::Duration;

/// What `--agents` and its flags asked for; `None` without `--agents`, when every other flag
/// of the set is refused.
pub fn request_of(args: &AgentsArgs) -> Result<Option<Request>, UsageError> {
    let Some(text) = &args.agents else {
        for (set, flag) in [
            (args.launch.is_some(), "--launch"),
            (args.hosts.is_some(), "--hosts"),
            (args.emit, "--emit"),
            (args.ready_timeout.is_some(), "--ready-timeout"),
            (args.image.is_some(), "--image"),
            (args.volume_claim.is_some(), "--volume-claim"),
        ] {
            if set {
                return Err(UsageError::request(format!("{flag} goes with --agents N")));
            }
        }
        return Ok(None);
    };
    let agents = Request::agents_of(text)?;
    let launch = args.launch.as_deref().map_or(Ok(Launch::Local), Launch::parse)?;
    let hosts = match (&args.hosts, launch) {
        (Some(path), Launch::Ssh) => {
            let bytes = crate::input_file::read_limited(path, 1 << 20, "hosts file")?;
            spindle_agents::parse_hosts(path, &bytes)?
        }
        (None, Launch::Ssh) if !args.emit => {
            return Err(UsageError::request("--launch ssh needs --hosts FILE (one host per line)"));
        }
        (None, Launch::Ssh) => vec!["HOST".to_string()],
        (Some(_), _) => return Err(UsageError::request("--hosts goes with --launch ssh")),
        (None, _) => Vec::new(),
    };
    launch.check(args.emit)?;
    let (image, volume_claim) = pod_flags(args, launch)?;
    let ready_timeout = plan::optional_duration_of("--ready-timeout", &args.ready_timeout, Duration::from_secs(1))?
        .unwrap_or(Duration::from_secs(300));
    Ok(Some(Request { agents, launch, hosts, emit: args.emit, ready_timeout, image, volume_claim }))
}

/// `--image` (required) and `--volume-claim` of a Kubernetes Job; refused with any other launch.
fn pod_flags(args: &AgentsArgs, launch: Launch) -> Result<(Option<String>, Option<String>), UsageError> {
    if launch != Launch::K8s {
        return match (&args.image, &args.volume_claim) {
            (Some(_), _) => Err(UsageError::request("--image goes with --launch k8s")),
            (_, Some(_)) => Err(UsageError::request("--volume-claim goes with --launch k8s")),
            _ => Ok((None, None)),
        };
    }
    let Some(image) = args.image.clone() else {
        return Err(UsageError::request(
            "--launch k8s needs --image IMAGE: an image holding this spindle (the Containerfile at spindle's \
             checkout builds one)",
        ));
    };
    if image.is_empty() || image.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(UsageError::flag("--image", image, "an image reference (REGISTRY/NAME:TAG), without spaces"));
    }
    if let Some(claim) = &args.volume_claim {
        // Kubernetes' object names: a DNS subdomain (RFC 1123), at most 253 characters.
        let fits = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.';
        let ends = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        if claim.len() > 253 || !claim.chars().all(fits) || !ends(claim.chars().next()) || !ends(claim.chars().last()) {
            return Err(UsageError::flag(
                "--volume-claim",
                claim,
                "a PersistentVolumeClaim's name: lower-case letters, digits, '-' and '.', starting and ending with a \
                 letter or digit",
            ));
        }
    }
    Ok((Some(image), args.volume_claim.clone()))
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
    request.fits(&work)?;
    let location = store::location(args.store)?;
    let (Location::Server(_), Some(store_url)) = (&location, store_text(args.store)) else {
        return Err(UsageError::flag(
            "--store",
            location.to_string(),
            "--agents needs a store on a PostgreSQL server every agent reaches (--store postgres://... or SPINDLE_STORE)",
        )
        .into());
    };
    let labels = output::labels(&args.output.labels)?;
    let emit = request.emit;
    let env = password_env(args.db);
    let asked = Coordination { request, work, location, store_url, db: args.db.cloned(), env, labels };
    let here = Here::new(args.output.quiet);
    let done = spindle_agents::coordinate(asked, &here)?;
    if !emit {
        print(&done, args.output)?;
    }
    let Coordinated { run, id, group, .. } = done;
    let (skew, measured, asked) =
        done.record.agents.as_ref().map_or((0.0, 0, 0), |d| (d.start_skew_us, d.agents_measured, d.agents_asked));
    here.say(&format!(
        "saved as run {id} (merged from {measured} of {asked} agents' shares, in group {group}); start spread {skew:.0} µs"
    ));
    match done.partial {
        None => Ok(Outcome::Success),
        Some(why) if why.contains("Ctrl-C") => Ok(Outcome::Interrupted),
        Some(why) => {
            crate::progress::warn(false, &format!("run {run} is partial: {why}"));
            Ok(Outcome::OperationsFailed)
        }
    }
}

/// The merged run on stdout, as the command's output flags ask.
fn print(done: &Coordinated, output_args: &OutputArgs) -> anyhow::Result<()> {
    if output_args.json || output_args.csv {
        let doc = spindle_report::Document {
            runs: vec![spindle_report::ReportRun {
                id: Some(done.id),
                group: Some(done.group),
                point: Some(Point::Member("all agents".into())),
                repeat: 1,
                record: done.record.clone(),
            }],
            ..spindle_report::Document::default()
        };
        output::print_document(&doc, output_args)?;
    } else if !output_args.quiet {
        output::write_text(&spindle_report::render_text(std::slice::from_ref(&done.record)))?;
    }
    Ok(())
}

/// `spindle agent`: one agent's share of a run of many.
pub fn agent(args: &AgentArgs) -> anyhow::Result<Outcome> {
    let joining = Joining { location: store::location(&args.store)?, run: args.run, index: args.index };
    spindle_agents::agent(&joining, &Here::new(true))
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
    let Some((url, var)) = db.and_then(|u| Some((u, u.engine.password_var()?))) else {
        return Vec::new();
    };
    url.password.clone().map(|p| vec![(var, p)]).unwrap_or_default()
}
