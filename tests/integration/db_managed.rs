//! Managed instances on this machine's PostgreSQL and MariaDB binaries: up with data and
//! WAL/redo in directories of the test's own, reachable with the printed URL, listed by
//! status, and down leaves no process; bad input leaves nothing behind.

use crate::common::{installed, spindle};
use std::path::Path;

fn db(xdg: &Path) -> assert_cmd::Command {
    let mut cmd = spindle();
    cmd.env("XDG_DATA_HOME", xdg).arg("db");
    cmd
}

fn pid_alive(pid: u64) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !stat.is_empty() && !stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z')
}

fn find_file(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    std::fs::read_dir(dir).ok()?.flatten().find_map(|e| {
        let path = e.path();
        if path.is_dir() { find_file(&path, name) } else { (e.file_name() == name).then_some(path) }
    })
}

fn up_use_down(engine: &str, wal_file: &str) {
    if !installed(engine) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (xdg, data, wal) = (dir.path().join("xdg"), dir.path().join("data"), dir.path().join("wal"));
    let out = db(&xdg).args(["up", "--engine", engine, "--data"]).arg(&data).arg("--wal").arg(&wal).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let url = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let password = url.split(':').nth(2).unwrap().split('@').next().unwrap().to_string();
    assert!(!String::from_utf8_lossy(&out.stderr).contains(&password), "the password is printed once, on stdout");
    assert!(std::fs::read_dir(&wal).unwrap().flatten().any(|e| e.path().to_string_lossy().contains(wal_file)));

    // The URL works: a small log test through it, stored in the test's own store.
    let store = dir.path().join("results.db");
    let run = spindle()
        .env("SPINDLE_STORE", &store)
        .args(["logtest", "--db", &url, "--rows", "100", "--batch", "10,100", "--settle", "0s", "--json"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(rows.len(), 2);

    // The instance speaks TLS with a certificate of its own: verified against it, the URL
    // works; against another authority
    // (the system's snakeoil certificate), the handshake refuses it, so TLS is really spoken.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let suffix = stderr.split("add ").nth(1).and_then(|s| s.split(" to the URL").next()).unwrap();
    let tls_url = format!("{url}{suffix}");
    let logtest = |url: &str| {
        spindle()
            .env("SPINDLE_STORE", &store)
            .args(["logtest", "--db", url, "--rows", "100", "--batch", "10", "--settle", "0s", "--json"])
            .output()
            .unwrap()
    };
    let run = logtest(&tls_url);
    assert!(run.status.success(), "{tls_url}: {}", String::from_utf8_lossy(&run.stderr));
    let cert = data.join("server.crt");
    let wrong = logtest(&tls_url.replace(cert.to_str().unwrap(), "/etc/ssl/certs/ssl-cert-snakeoil.pem"));
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert_eq!(wrong.status.code(), Some(2), "{err}");
    assert!(err.contains("not trusted") && !err.contains(&password), "{err}");
    // On an instance spindle manages, the scan is cold: the server is restarted first (and
    // the OS page cache dropped, which needs root).
    let ops = spindle()
        .env("SPINDLE_STORE", &store)
        .env("XDG_DATA_HOME", &xdg)
        .args(["largeops", "--db", &url, "--rows", "3000", "--batch", "1000", "--settle", "0s", "--json"])
        .output()
        .unwrap();
    assert!(ops.status.success(), "{}", String::from_utf8_lossy(&ops.stderr));
    let ops: Vec<serde_json::Value> = serde_json::from_slice(&ops.stdout).unwrap();
    // SAFETY: geteuid takes nothing and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    assert_eq!(ops[1]["cold"], root, "{}", ops[1]);
    assert!(ops[1]["cold_why"].as_str().unwrap().contains("restarted"), "{}", ops[1]);
    // The checkpoint settings the run pushed out with ALTER SYSTEM are put back at its end.
    if engine == "postgres" {
        let auto_conf = find_file(&data, "postgresql.auto.conf").expect("the instance's postgresql.auto.conf");
        let text = std::fs::read_to_string(&auto_conf).unwrap();
        assert!(!text.contains("checkpoint_timeout") && !text.contains("max_wal_size"), "{text}");
    }

    let status = db(&xdg).args(["status", "--json"]).output().unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0]["engine"].as_str(), rows[0]["running"].as_bool()), (Some(engine), Some(true)));
    assert!(!String::from_utf8_lossy(&status.stdout).contains(&password), "status masks the password");
    let pid = rows[0]["pid"].as_u64().unwrap();

    let down = db(&xdg).args(["down", "--data"]).arg(&data).arg("--remove").output().unwrap();
    assert!(down.status.success(), "{}", String::from_utf8_lossy(&down.stderr));
    assert!(!pid_alive(pid), "db down leaves no server process");
    assert!(!data.exists() && !wal.exists(), "--remove deletes what spindle made");
    let after = db(&xdg).args(["status", "--json"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&after.stdout).trim(), "[]");
}

#[test]
fn postgres_instance_up_use_down() {
    up_use_down("postgres", "pg_wal");
}

#[test]
fn mariadb_instance_up_use_down() {
    up_use_down("mariadb", "ib_logfile0");
}

#[test]
fn db_up_refuses_bad_input_and_leaves_nothing() {
    if !installed("postgres") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let xdg = dir.path().join("xdg");
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("mine.txt"), b"keep").unwrap();
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port().to_string();
    let fresh = dir.path().join("fresh");
    for (args, needle) in [
        (vec!["--engine", "postgres", "--data", full.to_str().unwrap()], "not empty"),
        (vec!["--engine", "postgres", "--data", fresh.to_str().unwrap(), "--port", &port], "in use"),
        (vec!["--engine", "oracle", "--data", fresh.to_str().unwrap()], "--engine"),
        (vec!["--engine", "mariadb", "--data", fresh.to_str().unwrap(), "--memory", "lots"], "--memory"),
    ] {
        let out = db(&xdg).arg("up").args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    assert!(!fresh.exists(), "nothing made");
    assert_eq!(std::fs::read(full.join("mine.txt")).unwrap(), b"keep");
    let out = db(&xdg).args(["down", "--data"]).arg(&full).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "not an instance");
}

/// A registry that is not a list (garbage, a half-written file from elsewhere): `db status`
/// says so and exits 2 rather than "no managed instances", and `db up` stops before making
/// anything, the registry as it was.
#[test]
fn a_garbage_registry_is_named_and_never_written_over() {
    let dir = tempfile::tempdir().unwrap();
    let xdg = dir.path().join("xdg");
    let registry = xdg.join("spindle/instances.json");
    std::fs::create_dir_all(registry.parent().unwrap()).unwrap();
    std::fs::write(&registry, "\u{1}garbage{").unwrap();
    let status = db(&xdg).arg("status").output().unwrap();
    let err = String::from_utf8_lossy(&status.stderr);
    assert_eq!(status.status.code(), Some(2), "{err}");
    assert!(err.contains(registry.to_str().unwrap()) && err.contains("unreadable"), "{err}");
    let data = dir.path().join("data");
    let up = db(&xdg).args(["up", "--engine", "postgres", "--data"]).arg(&data).output().unwrap();
    let err = String::from_utf8_lossy(&up.stderr);
    assert_eq!(up.status.code(), Some(2), "{err}");
    assert!(err.contains(registry.to_str().unwrap()), "{err}");
    assert!(!data.exists(), "nothing made");
    assert_eq!(std::fs::read_to_string(&registry).unwrap(), "\u{1}garbage{");
}

/// An instance whose recorded pid now belongs to another process named like the server (the
/// server died, its number was taken): `db down` leaves that process alone and says the
/// instance was not running.
#[test]
fn db_down_never_signals_a_look_alike() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let xdg = dir.path().join("xdg");
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("pgdata")).unwrap();
    let mut lookalike = std::process::Command::new("sleep").arg0("postgres").arg("120").spawn().unwrap();
    let state = serde_json::json!({
        "engine": "postgres",
        "data": data,
        "server_data": data.join("pgdata"),
        "wal": data.join("pgdata/pg_wal"),
        "port": 1,
        "socket_dir": dir.path().join("sock"),
        "pid": lookalike.id(),
        "user": "spindle",
        "password": "secret",
        "database": "spindle",
        "os_user": "postgres",
        "created": [],
        "version": "PostgreSQL 15",
        "started_at": "2025-01-01T00:00:00Z",
        "spindle_version": "0.1.0",
    });
    std::fs::write(data.join("spindle-instance.json"), state.to_string()).unwrap();
    let down = db(&xdg).args(["down", "--data"]).arg(&data).output().unwrap();
    let alive = lookalike.try_wait().unwrap().is_none();
    let _ = (lookalike.kill(), lookalike.wait());
    let err = String::from_utf8_lossy(&down.stderr);
    assert!(down.status.success(), "{err}");
    assert!(alive, "the look-alike was signalled: {err}");
    assert!(err.contains("was not running"), "{err}");
}

/// `db down --remove` of an instance made in directories that were there (empty) before
/// `db up`: what spindle made in them goes (the state file with the password first of all),
/// the directories stay with the owner and mode they had before `db up` (which made them the
/// server's), and it says so, naming what is left and why.
#[test]
fn remove_takes_what_spindle_made_in_the_users_directories_and_says_what_it_kept() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if !installed("postgres") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (xdg, data, wal) = (dir.path().join("xdg"), dir.path().join("data"), dir.path().join("wal"));
    std::fs::create_dir(&data).unwrap();
    std::fs::create_dir(&wal).unwrap();
    for d in [&data, &wal] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o751)).unwrap();
    }
    let how = |d: &Path| std::fs::metadata(d).map(|m| (m.uid(), m.gid(), m.mode() & 0o7777)).unwrap();
    let before = how(&data);
    let up =
        db(&xdg).args(["up", "--engine", "postgres", "--data"]).arg(&data).arg("--wal").arg(&wal).output().unwrap();
    assert!(up.status.success(), "{}", String::from_utf8_lossy(&up.stderr));
    assert_eq!(how(&data).2, 0o700, "the server's while it runs");
    std::fs::write(data.join("notes.txt"), "mine").unwrap();
    let down = db(&xdg).args(["down", "--remove", "--data"]).arg(&data).output().unwrap();
    let err = String::from_utf8_lossy(&down.stderr);
    assert!(down.status.success(), "{err}");
    let left = |d: &Path| -> Vec<String> {
        std::fs::read_dir(d).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect()
    };
    assert_eq!(left(&data), ["notes.txt"], "{err}");
    assert!(left(&wal).is_empty(), "{err}");
    let (data_shown, wal_shown) = (data.to_str().unwrap(), wal.to_str().unwrap());
    assert!(err.contains(&format!("{data_shown} kept: it was there before `db up`")), "{err}");
    assert!(err.contains("left in it: notes.txt") && err.contains(&format!("{wal_shown} kept")), "{err}");
    assert_eq!((how(&data), how(&wal)), (before, before), "given back as they were found (owner, group, mode)");
    let status = db(&xdg).args(["status", "--json"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&status.stdout).trim(), "[]");
}

/// A data directory whose name holds quotes, backticks and a `#`: no shell ever sees it (the
/// server is started directly) and the servers' settings quote it, so it is only a name.
/// MariaDB's installer is a shell script that splits paths at white space: such a path is
/// refused before anything is made.
#[test]
fn a_data_path_with_quotes_and_backticks_is_only_a_path() {
    for (engine, name) in [("postgres", "q'uo\"te`touch pwned` #x"), ("mariadb", "q'uo\"te`touch${IFS}pwned`#x")] {
        if !installed(engine) {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let xdg = dir.path().join("xdg");
        let data = dir.path().join(name);
        let up = db(&xdg).args(["up", "--engine", engine, "--data"]).arg(&data).output().unwrap();
        assert!(up.status.success(), "{engine}: {}", String::from_utf8_lossy(&up.stderr));
        let status = db(&xdg).args(["status", "--json"]).output().unwrap();
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&status.stdout).unwrap();
        assert_eq!(rows[0]["running"], true, "{engine}: {rows:?}");
        let down = db(&xdg).args(["down", "--remove", "--data"]).arg(&data).output().unwrap();
        assert!(down.status.success(), "{engine}: {}", String::from_utf8_lossy(&down.stderr));
        assert!(!data.exists(), "{engine}: removed");
        assert!(!Path::new("/pwned").exists() && !Path::new("/var/lib/postgresql/pwned").exists(), "{engine}");
    }
    if installed("mariadb") {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("with space");
        let up = db(&dir.path().join("xdg")).args(["up", "--engine", "mariadb", "--data"]).arg(&data).output().unwrap();
        let err = String::from_utf8_lossy(&up.stderr);
        assert_eq!(up.status.code(), Some(2), "{err}");
        assert!(err.contains("--data") && err.contains("with space") && err.contains("white space"), "{err}");
        assert!(!data.exists());
    }
}

/// `db start` at once after the postmaster was killed (SIGKILL): its lock files (the data
/// directory's and its socket's) still name it, a zombie until something reaps it, and its
/// children are still on their way out; `db start` waits for them and starts the server on the
/// same URL.
#[test]
fn db_start_right_after_the_postmaster_is_killed_starts_it() {
    if !installed("postgres") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (xdg, data) = (dir.path().join("xdg"), dir.path().join("data"));
    let up = db(&xdg).args(["up", "--engine", "postgres", "--data"]).arg(&data).output().unwrap();
    assert!(up.status.success(), "{}", String::from_utf8_lossy(&up.stderr));
    let url = String::from_utf8_lossy(&up.stdout).trim().to_string();
    let lock = std::fs::read_to_string(find_file(&data, "postmaster.pid").unwrap()).unwrap();
    let pid: i32 = lock.lines().next().unwrap().trim().parse().unwrap();
    // SAFETY: signals the test's own server.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let start = db(&xdg).args(["start", "--data"]).arg(&data).output().unwrap();
    let err = String::from_utf8_lossy(&start.stderr);
    assert!(start.status.success(), "{err}");
    assert_eq!(String::from_utf8_lossy(&start.stdout).trim(), url, "{err}");
    let down = db(&xdg).args(["down", "--remove", "--data"]).arg(&data).output().unwrap();
    assert!(down.status.success(), "{}", String::from_utf8_lossy(&down.stderr));
}
