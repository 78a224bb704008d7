//! A managed PostgreSQL: `initdb` (with `--waldir` where the WAL goes), spindle's settings in
//! an included file, `postgres` started in a session of its own (so a
//! terminal's Ctrl-C does not reach it), and a database of spindle's own.

use super::state::State;
use super::system::{self, RunAs};
// Making an instance (as against starting and stopping one) takes the driver.
#[cfg(feature = "postgres")]
use super::{Checkpoints, DEFAULT_MEMORY, InstanceSpec, MAX_CONNECTIONS, ManagedEngine, system::Setup};
use crate::DbError;
use std::path::{Path, PathBuf};

const PACKAGE: &str = "postgresql";

/// The newest installed server's binary directory (Debian keeps each major version apart).
fn bin(name: &str) -> Result<PathBuf, DbError> {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|rd| rd.flatten().map(|e| e.path().join("bin").join(name)).collect())
        .unwrap_or_default();
    versions
        .sort_by_key(|p| p.components().nth(4).and_then(|c| c.as_os_str().to_str()?.parse::<u32>().ok()).unwrap_or(0));
    versions.reverse();
    system::binary(name, &versions, PACKAGE)
}

#[cfg(feature = "postgres")]
pub(super) fn up(spec: &InstanceSpec) -> Result<State, DbError> {
    // Both binaries are looked for before anything is made.
    let (initdb, _, _) = (bin("initdb")?, bin("postgres")?, bin("pg_ctl")?);
    let setup = Setup::prepare(spec, "postgres")?;
    let result = create(spec, &initdb, &setup);
    setup.finish(result)
}

#[cfg(feature = "postgres")]
fn create(spec: &InstanceSpec, initdb: &Path, setup: &Setup) -> Result<State, DbError> {
    let (owner, port, data, socket_dir) = (&setup.owner, setup.port, &setup.data, &setup.socket_dir);
    let wal_parent = setup.wal.as_ref().unwrap_or(data);
    let mut state = setup.state(ManagedEngine::Postgres, data.join("pgdata"), wal_parent.join("pg_wal"))?;
    let (server_data, wal, password) = (state.server_data.clone(), state.wal.clone(), state.password.clone());
    let pwfile = data.join(".spindle-pw");
    std::fs::write(&pwfile, &password).map_err(|e| DbError::Io(pwfile.clone(), e))?;
    owner.own(&pwfile)?;
    let mut cmd = owner.command(initdb);
    cmd.arg("-D").arg(&server_data).arg("--waldir").arg(&wal);
    cmd.args(["-U", "spindle", "--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"]);
    cmd.arg("--pwfile").arg(&pwfile);
    let made = system::run(cmd, "initdb");
    let _ = std::fs::remove_file(&pwfile);
    made?;
    let memory = spec.memory.unwrap_or(DEFAULT_MEMORY);
    let mut conf = format!(
        "# spindle's settings for a managed instance\n\
         listen_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = {}\n\
         max_connections = {MAX_CONNECTIONS}\nshared_buffers = {}kB\n\
         track_io_timing = on\ntrack_wal_io_timing = on\nlogging_collector = off\n",
        conf_string(&socket_dir.display().to_string()),
        memory / 1024
    );
    if spec.checkpoints == Checkpoints::PushedOut {
        conf.push_str("checkpoint_timeout = '1d'\nmax_wal_size = '100GB'\ncheckpoint_completion_target = 0.9\n");
    }
    for (key, value) in &spec.settings {
        conf.push_str(&format!("{key} = {}\n", conf_string(value)));
    }
    if let Some(tls) = super::cert::make(data, owner)? {
        conf.push_str(&format!(
            "ssl = on\nssl_cert_file = {}\nssl_key_file = {}\n",
            conf_string(&tls.cert.display().to_string()),
            conf_string(&tls.key.display().to_string())
        ));
    }
    let conf_path = server_data.join("spindle.conf");
    std::fs::write(&conf_path, conf).map_err(|e| DbError::Io(conf_path.clone(), e))?;
    let main_conf = server_data.join("postgresql.conf");
    let mut text = std::fs::read_to_string(&main_conf).map_err(|e| DbError::Io(main_conf.clone(), e))?;
    text.push_str("\ninclude 'spindle.conf'\n");
    std::fs::write(&main_conf, text).map_err(|e| DbError::Io(main_conf.clone(), e))?;
    owner.own(&conf_path)?;
    state.pid = Some(start(&state)?);
    match create_database(&state) {
        Ok(version) => state.version = version,
        Err(e) => {
            let _ = stop(&state);
            return Err(e);
        }
    }
    Ok(state)
}

/// `text` as a string in postgresql.conf: quoted, its quotes doubled, and its backslashes and
/// line breaks escaped (the server reads `\n` in a string as a line break), so a directory's
/// name is read back as it is.
#[cfg(feature = "postgres")]
fn conf_string(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('\'', "''").replace('\n', "\\n").replace('\r', "\\r");
    format!("'{escaped}'")
}

/// Creates spindle's database and returns the server's version.
#[cfg(feature = "postgres")]
fn create_database(state: &State) -> Result<String, DbError> {
    let mut url = state.url();
    url.database = Some("postgres".into());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| DbError::Io("runtime".into(), e))?;
    rt.block_on(async {
        let client = crate::postgres::connect(&url).await?;
        let sql = |e| crate::postgres::sql_error(&url, e);
        client.batch_execute("CREATE DATABASE spindle").await.map_err(sql)?;
        let v: String = client.query_one("SHOW server_version", &[]).await.map_err(sql)?.get(0);
        Ok(format!("PostgreSQL {v}"))
    })
}

/// Starts the server and waits until it accepts connections; returns its pid. `postgres` is
/// started directly rather than by `pg_ctl start`, which runs it through `/bin/sh -c` with
/// the data directory's path in the command line: there, backticks in the path would run
/// and a quote would break it.
pub(super) fn start(state: &State) -> Result<u32, DbError> {
    // A server killed a moment ago leaves its backends for a while and its lock files (the
    // data directory's and its socket's) for good.
    let locks =
        [state.server_data.join("postmaster.pid"), state.socket_dir.join(format!(".s.PGSQL.{}.lock", state.port))];
    super::process::clear_stale_locks(&state.server_data, &locks, std::time::Duration::from_secs(30)).map_err(
        |pids| DbError::Managed {
            what: "postgres".into(),
            why: format!(
                "processes of an earlier server still work in {} after 30 s (pids {pids:?}); stop them first",
                state.server_data.display()
            ),
        },
    )?;
    let owner = RunAs::choose(&state.os_user)?;
    let log = state.data.join("postgres.log");
    let mut cmd = owner.command(&bin("postgres")?);
    cmd.arg("-D").arg(&state.server_data);
    // As pg_ctl waits: until the server says "ready" in the status line of its pid file.
    let pid_file = state.server_data.join("postmaster.pid");
    let ready =
        || std::fs::read_to_string(&pid_file).is_ok_and(|t| t.lines().nth(7).is_some_and(|l| l.trim() == "ready"));
    system::start_server(cmd, "postgres", &log, &ready).map_err(|e| with_log(e, &log))
}

pub(super) fn stop(state: &State) -> Result<(), DbError> {
    let owner = RunAs::choose(&state.os_user)?;
    let mut cmd = owner.command(&bin("pg_ctl")?);
    cmd.arg("-D").arg(&state.server_data).args(["-m", "fast", "-w", "-t", "60", "stop"]);
    system::run(cmd, "pg_ctl stop")
}

/// The error with the end of the server's log, where PostgreSQL says why it did not start.
fn with_log(e: DbError, log: &Path) -> DbError {
    let tail: Vec<String> =
        std::fs::read_to_string(log).map(|t| t.lines().rev().take(3).map(str::to_string).collect()).unwrap_or_default();
    if tail.is_empty() {
        return e;
    }
    DbError::Managed { what: "postgres".into(), why: format!("{e}; its log says: {}", tail.join(" | ")) }
}
