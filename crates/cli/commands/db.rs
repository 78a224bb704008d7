//! `spindle db up|status|down|start`: managed PostgreSQL and MariaDB instances, for experiments
//! that need a server with its own settings, data and log where the user puts them.

use crate::args::{DbAction, DbArgs, DbDownArgs, DbStartArgs, DbStatusArgs, DbUpArgs};
use crate::flags::engine_of;
use crate::usage::UsageError;
use crate::{Outcome, output};
use spindle_db::managed::{Checkpoints, Instance, InstanceSpec, ManagedEngine, State, registry};
use spindle_plan::managed::managed_error;
use spindle_runner::workload::database::registry_path;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub fn run(args: &DbArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        DbAction::Up(a) => up(a),
        DbAction::Status(a) => status(a),
        DbAction::Down(a) => down(a),
        DbAction::Start(a) => start(a),
    }
}

/// The managed instance a URL reaches, if spindle manages the server at its port here.
pub fn managed_instance_at(url: &spindle_db::DbUrl) -> Option<Instance> {
    let local = matches!(url.host.as_deref(), Some("127.0.0.1" | "localhost"));
    if !local {
        return None;
    }
    let registry = registry_path().ok()?;
    registry::list(&registry)
        .ok()?
        .into_iter()
        .filter_map(|data| Instance::find(&data).ok())
        .find(|i| Some(i.state.port) == url.port && i.is_running())
}

fn up(args: &DbUpArgs) -> anyhow::Result<Outcome> {
    let engine = engine_of(&args.engine)?;
    let memory = match &args.memory {
        None => None,
        Some(t) => Some(spindle_model::units::parse_size(t).map_err(|e| UsageError::flag("--memory", t, e))?),
    };
    let spec = InstanceSpec {
        engine,
        data: args.data.clone(),
        wal: args.wal.clone(),
        port: args.port,
        memory,
        checkpoints: if args.defer_checkpoints { Checkpoints::PushedOut } else { Checkpoints::Normal },
        registry: registry_path()?,
        settings: Vec::new(),
    };
    let start = Instant::now();
    // Ctrl-C while the instance is made lets it finish, then takes it down again.
    crate::interrupt::stop_flag();
    let instance = Instance::up(&spec).map_err(managed_error)?;
    if crate::interrupt::requested() {
        let kept = instance.remove(&spec.registry)?;
        eprintln!("spindle: interrupted; the instance was stopped and removed");
        kept.iter().for_each(|why| eprintln!("spindle: {why}"));
        return Ok(Outcome::Interrupted);
    }
    let state = instance.detach();
    eprintln!(
        "spindle: {} up in {:.1} s: data {}, {} {}, port {}; the password is kept in {} (readable by you alone); stop it with `spindle db down --data {}`",
        state.version,
        start.elapsed().as_secs_f64(),
        state.server_data.display(),
        if engine == ManagedEngine::Postgres { "WAL" } else { "redo log" },
        state.wal.display(),
        state.port,
        State::path(&state.data).display(),
        spindle_model::shell::word(&state.data.display().to_string())
    );
    if let Some(cert) = spindle_db::managed::cert_path(&state.data) {
        eprintln!(
            "spindle: it speaks TLS too, with a certificate of its own: add {} to the URL to connect encrypted and verified",
            match engine {
                ManagedEngine::Postgres => format!("?sslmode=verify-full&sslrootcert={}", cert.display()),
                ManagedEngine::Mariadb => format!("?ssl-mode=VERIFY_IDENTITY&ssl-ca={}", cert.display()),
            }
        );
    }
    output::write_stdout(format!("{}\n", state.url_text()).as_bytes())?;
    Ok(Outcome::Success)
}

fn status(args: &DbStatusArgs) -> anyhow::Result<Outcome> {
    let registry = registry_path()?;
    let mut rows = Vec::new();
    for data in registry::list(&registry)? {
        let row = match Instance::find(&data) {
            Ok(i) => {
                let s = &i.state;
                serde_json::json!({
                    "engine": s.engine.name(),
                    "data": s.data,
                    "wal": s.wal,
                    "port": s.port,
                    "pid": s.pid,
                    "running": i.is_running(),
                    "url": i.url().to_string(),
                    "version": s.version,
                    "started_at": s.started_at,
                })
            }
            Err(e) => serde_json::json!({ "data": data, "running": false, "error": e.to_string() }),
        };
        rows.push(row);
    }
    if args.print.json {
        output::write_stdout(format!("{}\n", serde_json::to_string_pretty(&rows)?).as_bytes())?;
        return Ok(Outcome::Success);
    }
    if rows.is_empty() {
        eprintln!("spindle: no managed instances; start one with `spindle db up --engine postgres --data DIR`");
        return Ok(Outcome::Success);
    }
    let mut out = format!("{:<9} {:<8} {:>6} {:>8}  {:<40} {}\n", "engine", "state", "port", "pid", "data", "url");
    for r in &rows {
        let state = if r["running"] == true {
            "running"
        } else if r.get("error").is_some() {
            "missing"
        } else {
            "stopped"
        };
        out.push_str(&format!(
            "{:<9} {:<8} {:>6} {:>8}  {:<40} {}\n",
            r["engine"].as_str().unwrap_or("-"),
            state,
            r["port"].as_u64().map_or("-".into(), |p| p.to_string()),
            r["pid"].as_u64().map_or("-".into(), |p| p.to_string()),
            r["data"].as_str().unwrap_or("-"),
            r["url"].as_str().or(r["error"].as_str()).unwrap_or("-"),
        ));
    }
    output::write_text(out.as_bytes())?;
    Ok(Outcome::Success)
}

fn down(args: &DbDownArgs) -> anyhow::Result<Outcome> {
    let registry = registry_path()?;
    let targets: Vec<PathBuf> = match &args.data {
        Some(d) => vec![instance_dir(d)?],
        None => registry::list(&registry)?,
    };
    for data in targets {
        let mut instance = match Instance::find(&data) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("spindle: {}: {e}; dropped from the list", data.display());
                registry::remove(&registry, &data)?;
                continue;
            }
        };
        let running = instance.is_running();
        if args.remove {
            let kept = instance.remove(&registry)?;
            eprintln!(
                "spindle: the instance in {} removed ({})",
                data.display(),
                if running { "stopped first" } else { "was stopped" }
            );
            kept.iter().for_each(|why| eprintln!("spindle: {why}"));
        } else {
            if running {
                instance.stop()?;
            }
            eprintln!("spindle: {} {}", data.display(), if running { "stopped" } else { "was not running" });
        }
    }
    Ok(Outcome::Success)
}

/// `--data` of `db down` and `db start`: a managed instance's data directory, canonical.
fn instance_dir(given: &Path) -> Result<PathBuf, UsageError> {
    let shown = given.display().to_string();
    let canonical = std::fs::canonicalize(given).map_err(|e| UsageError::flag("--data", &shown, e))?;
    if !State::path(&canonical).is_file() {
        return Err(UsageError::flag(
            "--data",
            shown,
            "not a managed instance's directory (no spindle-instance.json); see `spindle db status`",
        ));
    }
    Ok(canonical)
}

fn start(args: &DbStartArgs) -> anyhow::Result<Outcome> {
    let data = instance_dir(&args.data)?;
    let mut instance = Instance::find(&data).map_err(managed_error)?;
    // A server killed a moment ago may still be on its way out (PostgreSQL's postmaster waits
    // for its sessions to end): wait for it to answer or to be gone.
    let until = Instant::now() + std::time::Duration::from_secs(30);
    while instance.is_running() && spindle_db::open(&instance.url()).is_err() && Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    if instance.is_running() {
        eprintln!("spindle: {} is already running, on port {}", data.display(), instance.state.port);
    } else {
        let started = Instant::now();
        instance.start().map_err(managed_error)?;
        eprintln!(
            "spindle: {} started in {:.1} s on port {}",
            data.display(),
            started.elapsed().as_secs_f64(),
            instance.state.port
        );
    }
    output::write_stdout(format!("{}\n", instance.detach().url_text()).as_bytes())?;
    Ok(Outcome::Success)
}
