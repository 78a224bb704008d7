//! A managed MariaDB: `mariadb-install-db` into the data directory with the redo log where
//! the user put it (`innodb_log_group_home_dir`), `mariadbd` started in a session of its own
//! from a generated option file, then a `spindle` user with the generated password (root is
//! given the same password, so nothing is left open) and a database of spindle's own.

use super::ManagedEngine;
use super::state::State;
use super::system;
// Making an instance (as against starting and stopping one) takes the driver.
#[cfg(feature = "mysql")]
use super::{
    Checkpoints, DEFAULT_MEMORY, InstanceSpec, MAX_CONNECTIONS,
    system::{RunAs, Setup},
};
use crate::DbError;
#[cfg(feature = "mysql")]
use mysql_async::prelude::Queryable;
use std::path::{Path, PathBuf};

const PACKAGE: &str = "mariadb-server";

fn bin(name: &str) -> Result<PathBuf, DbError> {
    system::binary(name, &[Path::new("/usr/sbin").join(name), Path::new("/usr/bin").join(name)], PACKAGE)
}

fn options(state: &State) -> PathBuf {
    state.data.join("my.cnf")
}

fn socket(state: &State) -> PathBuf {
    state.socket_dir.join("mysqld.sock")
}

#[cfg(feature = "mysql")]
pub(super) fn up(spec: &InstanceSpec) -> Result<State, DbError> {
    let (install, _) = (bin("mariadb-install-db")?, bin("mariadbd")?);
    for (flag, dir) in std::iter::once(("--data", &spec.data)).chain(spec.wal.iter().map(|w| ("--wal", w))) {
        let absolute = std::path::absolute(dir).map_err(|e| DbError::Io(dir.clone(), e))?;
        if absolute.to_string_lossy().contains(char::is_whitespace) {
            return Err(DbError::Managed {
                what: format!("{flag} {}", absolute.display()),
                why: "mariadb-install-db, a shell script, splits a path at white space; name a directory whose path has no spaces, tabs or line breaks".into(),
            });
        }
    }
    let setup = Setup::prepare(spec, "mysql")?;
    let server_data = setup.data.join("mariadb");
    let wal = setup.wal.clone().unwrap_or_else(|| server_data.clone());
    let result = setup.state(ManagedEngine::Mariadb, server_data, wal).and_then(|mut state| {
        create(spec, &install, &setup.owner, &mut state)?;
        Ok(state)
    });
    setup.finish(result)
}

#[cfg(feature = "mysql")]
fn create(spec: &InstanceSpec, install: &Path, owner: &RunAs, state: &mut State) -> Result<(), DbError> {
    let memory = spec.memory.unwrap_or(DEFAULT_MEMORY);
    let mut conf = format!(
        "# spindle's settings for a managed instance\n[mariadbd]\n\
         datadir = {}\ninnodb_log_group_home_dir = {}\nsocket = {}\nport = {}\nbind-address = 127.0.0.1\n\
         pid-file = {}\nlog-error = {}\nuser = {}\nskip-name-resolve\n\
         max_connections = {MAX_CONNECTIONS}\ninnodb_buffer_pool_size = {}\nlocal_infile = ON\n\
         performance_schema = ON\ninnodb_flush_log_at_trx_commit = 1\n",
        option_value(&state.server_data),
        option_value(&state.wal),
        option_value(&socket(state)),
        state.port,
        option_value(&state.data.join("mariadbd.pid")),
        option_value(&state.data.join("mariadbd.log")),
        owner.name,
        memory,
    );
    if spec.checkpoints == Checkpoints::PushedOut {
        // InnoDB has no checkpoint timer: it flushes ahead of a full redo log and to keep the
        // dirty share under its limit. A large log, no early flushing and no adaptive flushing
        // push those out as far as it allows.
        conf.push_str(
            "innodb_log_file_size = 2G\ninnodb_max_dirty_pages_pct = 99\ninnodb_max_dirty_pages_pct_lwm = 0\n\
             innodb_adaptive_flushing = OFF\n",
        );
    }
    for (key, value) in &spec.settings {
        conf.push_str(&format!("{key} = {value}\n"));
    }
    if let Some(tls) = super::cert::make(&state.data, owner)? {
        conf.push_str(&format!("ssl_cert = {}\nssl_key = {}\n", option_value(&tls.cert), option_value(&tls.key)));
    }
    let path = options(state);
    std::fs::write(&path, conf).map_err(|e| DbError::Io(path.clone(), e))?;
    let mut cmd = std::process::Command::new(install);
    cmd.arg(format!("--defaults-file={}", path.display()))
        .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
        .current_dir("/");
    // SAFETY: geteuid takes nothing and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        // Run as root, the installer makes the files the server's user's itself.
        cmd.arg(format!("--user={}", owner.name));
    }
    system::run(cmd, "mariadb-install-db")?;
    owner.own(&state.server_data)?;
    state.pid = Some(start(state)?);
    match setup(state) {
        Ok(version) => {
            state.version = version;
            Ok(())
        }
        Err(e) => {
            let _ = stop(state);
            Err(e)
        }
    }
}

/// A path as an option file value: in double quotes, with what the server unescapes there
/// (backslash, quote, line breaks) escaped, so a `#` or a quote in a directory's name is
/// read back as it is.
#[cfg(feature = "mysql")]
fn option_value(path: &Path) -> String {
    let text = path.display().to_string();
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n").replace('\r', "\\r");
    format!("\"{escaped}\"")
}

/// Starts `mariadbd` in a session of its own and waits until it accepts connections.
pub(super) fn start(state: &State) -> Result<u32, DbError> {
    let mut cmd = std::process::Command::new(bin("mariadbd")?);
    cmd.arg(format!("--defaults-file={}", options(state).display())).current_dir("/");
    let ready = || std::os::unix::net::UnixStream::connect(socket(state)).is_ok();
    system::start_server(cmd, "mariadbd", &state.data.join("mariadbd.log"), &ready)
}

/// Creates spindle's user and database, closes root's empty password, returns the version.
#[cfg(feature = "mysql")]
fn setup(state: &State) -> Result<String, DbError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| DbError::Io("runtime".into(), e))?;
    let opts = mysql_async::OptsBuilder::default()
        .socket(Some(socket(state).display().to_string()))
        .user(Some("root"))
        .prefer_socket(true);
    let shown = format!("mariadb at {}", socket(state).display());
    let fail = |e: mysql_async::Error| DbError::Server { db: shown.clone(), cause: e.to_string() };
    rt.block_on(async {
        let mut conn = mysql_async::Conn::new(opts).await.map_err(fail)?;
        let pw = &state.password;
        for sql in [
            format!("CREATE USER 'spindle'@'127.0.0.1' IDENTIFIED BY '{pw}'"),
            format!("CREATE USER 'spindle'@'localhost' IDENTIFIED BY '{pw}'"),
            "GRANT ALL ON *.* TO 'spindle'@'127.0.0.1' WITH GRANT OPTION".into(),
            "GRANT ALL ON *.* TO 'spindle'@'localhost' WITH GRANT OPTION".into(),
            "CREATE DATABASE spindle".into(),
            format!("ALTER USER 'root'@'localhost' IDENTIFIED BY '{pw}'"),
        ] {
            conn.query_drop(sql).await.map_err(fail)?;
        }
        let v: Option<String> = conn.query_first("SELECT VERSION()").await.map_err(fail)?;
        let _ = conn.disconnect().await;
        Ok(format!("MariaDB {}", v.unwrap_or_default()))
    })
}

/// Asks the server to shut down (SIGTERM: InnoDB flushes and closes cleanly).
pub(super) fn stop(state: &State) -> Result<(), DbError> {
    if let Some(pid) = state.pid.filter(|p| super::process::is_server(*p, ManagedEngine::Mariadb, &state.server_data)) {
        // SAFETY: kill with the server's verified pid; no memory is involved.
        unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    }
    Ok(())
}
