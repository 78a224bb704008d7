//! Runs of many agents when things go wrong, and on the launchers' real paths, on this
//! machine's PostgreSQL (a database of each test's own): an agent stopped (SIGSTOP) goes quiet
//! and is marked lost; an agent whose store connection is cut loses its lease and is marked
//! lost; agents in a network namespace of their own reach the store through its Unix socket;
//! agents whose wall clocks are 2.5 s off (libfaketime) still start on the server's instant;
//! the ssh launcher drives a private sshd on 127.0.0.1, and a host it cannot reach is named at
//! once. Nothing is timed: what is checked is states, notes and who stopped early.

use crate::agents_common::{agent, emitting_coordinator, record, rows, run_of, wait_for};
use crate::common::spindle_process;
use crate::hammer_postgres::POSTGRES;
use crate::server_db::TestDb;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Long enough that an agent still measuring at its end was never stopped.
const LONG: &str = "120s";

/// `spindle io --agents N` launching its agents here, measuring for `LONG`.
fn measuring_coordinator(store: &str, dir: &Path, agents: &str) -> Child {
    spindle_process()
        .current_dir(dir)
        .args(["io", "--engine", "null", "--duration", LONG, "--size", "1M", "--agents", agents, "--target", "x.dat"])
        .env("SPINDLE_STORE", store)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The child's output once it ends; a child that never ends (a hang, not slowness: minutes)
/// is killed and the test fails, rather than the suite hanging.
fn finished(mut child: Child, what: &str) -> Output {
    let since = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if since.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("{what} never ended: {}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Each agent's row: index -> (state, note).
fn agent_states(db: &TestDb) -> Vec<(String, String, String)> {
    rows(db, "SELECT idx, state, note FROM agents ORDER BY idx")
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
        .collect()
}

/// The checks every run that lost agent 1 of 3 after the start passes: the run partial
/// naming it, agent 1 lost, the others done with shares cut short, nothing called complete.
fn lost_agent_one(db: &TestDb, coordinator: &Output, why: &str) {
    let err = String::from_utf8_lossy(&coordinator.stderr);
    assert_eq!(coordinator.status.code(), Some(1), "measured, but partial: {err}");
    assert!(err.contains("agent 1 on") && err.contains("lost at") && err.contains(why), "{err}");
    let run = &rows(db, "SELECT state, note FROM agent_runs")[0];
    assert_eq!(run[0], "partial", "{run:?}");
    assert!(run[1].starts_with("agent 1 on") && run[1].contains(why), "{run:?}");
    let states = agent_states(db);
    let state_of = |i: &str| states.iter().find(|s| s.0 == i).map(|s| s.1.as_str());
    assert_eq!(state_of("1"), Some("lost"), "{states:?}");
    assert_eq!((state_of("0"), state_of("2")), (Some("done"), Some("done")), "the others finished: {states:?}");
    let shares = rows(
        db,
        "SELECT point, status, measured_seconds FROM runs WHERE point IN ('agent 0', 'agent 2') ORDER BY point",
    );
    assert_eq!(shares.len(), 2, "the two others saved what they measured: {shares:?}");
    for s in &shares {
        assert_eq!(s[1], "interrupted", "{shares:?}");
        assert!(s[2].parse::<f64>().unwrap() < 60.0, "stopped long before their {LONG}: {shares:?}");
    }
    let merged = rows(db, "SELECT status FROM runs WHERE point = 'all agents'");
    assert_eq!(merged, [["interrupted"]], "the merged run is there, not called complete");
}

/// Whether process `pid` is alive and is an agent (not a pid the system gave to another).
fn agent_alive(pid: i32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains("agent"))
}

/// A stopped agent, killed (and continued) when the test ends however it ends.
struct Stopped(i32);

impl Drop for Stopped {
    fn drop(&mut self) {
        if agent_alive(self.0) {
            unsafe {
                libc::kill(self.0, libc::SIGKILL);
                libc::kill(self.0, libc::SIGCONT);
            }
        }
    }
}

#[test]
fn a_stopped_agent_goes_quiet_is_lost_and_the_others_stop_early() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_sigstop") else { return };
    let dir = tempfile::tempdir().unwrap();
    let coordinator = measuring_coordinator(&db.url(), dir.path(), "3");
    wait_for(&db, "SELECT count(*) FROM agents WHERE state = 'running'", "3");
    let pid: i32 = rows(&db, "SELECT pid FROM agents WHERE idx = 1")[0][0].parse().unwrap();
    let stopped = Stopped(pid);
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
    // Its lease stays held (its connection is open): only its heartbeat tells.
    let done = finished(coordinator, "the coordinator, with an agent stopped");
    lost_agent_one(&db, &done, "no heartbeat for");
    assert!(!agent_alive(stopped.0), "the coordinator ended the agent it launched and lost");
}

#[test]
fn a_killed_agent_of_three_stays_in_the_merged_run_as_lost_and_the_run_says_two_of_three_measured() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_kill3") else { return };
    let dir = tempfile::tempdir().unwrap();
    let coordinator = measuring_coordinator(&db.url(), dir.path(), "3");
    wait_for(&db, "SELECT count(*) FROM agents WHERE state = 'running'", "3");
    // Agent 1 heard from a second after the start: it is certainly lost after that.
    wait_for(
        &db,
        "SELECT (a.heartbeat_ns > r.start_at_ns + 1000000000)::text FROM agents a JOIN agent_runs r ON r.id = a.run_id \
         WHERE a.idx = 1",
        "true",
    );
    let pid: i32 = rows(&db, "SELECT pid FROM agents WHERE idx = 1")[0][0].parse().unwrap();
    // And it published a measured second (a second past the warm-up, at the least).
    wait_for(&db, &format!("SELECT count(*) FROM live_runs WHERE pid = {pid} AND points <> '[]'"), "1");
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let done = finished(coordinator, "the coordinator, with an agent killed");
    lost_agent_one(&db, &done, "its process or its connection to the store ended");
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(err.contains("merged from 2 of 3 agents' shares"), "{err}");
    let id: i64 = rows(&db, "SELECT id FROM runs WHERE point = 'all agents'")[0][0].parse().unwrap();
    let merged = record(&db.url(), id);
    crate::io_output::assert_valid(&merged);
    let d = &merged["agents"];
    assert_eq!((d["agents_asked"].as_u64(), d["agents_measured"].as_u64()), (Some(3), Some(2)), "{d}");
    let agents = d["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 3, "every agent in the record, the lost one too: {d}");
    let lost = &agents[1];
    assert_eq!(lost["status"], "lost", "{d}");
    assert!(lost["run_id"].is_null(), "killed, it saved no share: {d}");
    let measured = lost["measured_seconds"].as_f64().unwrap();
    assert!(measured >= 1.0, "the seconds it published as it measured: {d}");
    assert!(lost["lost_after_seconds"].as_f64().unwrap() > 1.0, "last heard from after its first second: {d}");
    for kept in [&agents[0], &agents[2]] {
        assert_eq!(kept["status"], "interrupted", "{d}");
        assert!(kept["run_id"].is_i64() && kept["measured_seconds"].as_f64().unwrap() > 0.0, "{d}");
        assert!(kept.get("lost_after_seconds").is_none(), "{d}");
    }
    let said = merged["warnings"][0].as_str().unwrap();
    assert!(said.starts_with("2 of 3 agents measured; agent 1 lost after "), "{said}");
    assert!(said.ends_with(&format!(", having measured {measured:.1} s, not in these figures")), "{said}");
    assert_eq!(merged["labels"]["agents"], "3", "the agents asked for");
    assert_eq!(merged["labels"]["agents.measured"], "2");
    // The merged figures are the two survivors' shares, added: nothing of the lost agent's.
    let share_ios: u64 = [&agents[0], &agents[2]]
        .iter()
        .map(|a| record(&db.url(), a["run_id"].as_i64().unwrap())["summary"]["ios"].as_u64().unwrap())
        .sum();
    assert_eq!(merged["summary"]["ios"].as_u64(), Some(share_ios));
}

#[test]
fn an_agent_whose_store_connection_is_cut_is_lost_and_the_others_stop_early() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_cut") else { return };
    let dir = tempfile::tempdir().unwrap();
    let coordinator = measuring_coordinator(&db.url(), dir.path(), "3");
    wait_for(&db, "SELECT count(*) FROM agents WHERE state = 'running'", "3");
    let run = &rows(&db, "SELECT id FROM agent_runs")[0][0];
    // Agent 1's lease: the advisory lock (run, 1) in this test's database, and its backend.
    let lease = rows(
        &db,
        &format!(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted \
             AND classid = {run} AND objid = 1 \
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        ),
    );
    assert_eq!(lease.len(), 1, "one backend holds agent 1's lease: {lease:?}");
    let cut = rows(&db, &format!("SELECT pg_terminate_backend({})", lease[0][0]));
    assert_eq!(cut, [["t"]]);
    let done = finished(coordinator, "the coordinator, with a connection cut");
    lost_agent_one(&db, &done, "its process or its connection to the store ended");
}

fn unshare_works() -> Result<(), String> {
    let out = Command::new("unshare").args(["-n", "true"]).output().map_err(|e| format!("unshare: {e}"))?;
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}

/// The PostgreSQL server's Unix socket directory (Debian's).
const SOCKET_DIR: &str = "/var/run/postgresql";

#[test]
fn agents_in_a_network_namespace_of_their_own_reach_the_store_by_its_socket() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_netns") else { return };
    if let Err(why) = unshare_works() {
        spindle_testenv::unavailable("unshare -n (util-linux, as root)", why);
        return;
    }
    if !Path::new(SOCKET_DIR).join(".s.PGSQL.5432").exists() {
        spindle_testenv::unavailable("PostgreSQL's Unix socket", format!("none in {SOCKET_DIR}"));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (coordinator, printed) = emitting_coordinator(&db.url(), dir.path(), "2", &["--ready-timeout", "2m"]);
    let run = run_of(&printed).to_string();
    let in_namespace = |store: &str, index: &str| {
        let mut cmd = Command::new("unshare");
        cmd.arg("-n")
            .arg(assert_cmd::cargo::cargo_bin("spindle"))
            .args(["agent", "--run", &run, "--index", index])
            .current_dir(dir.path())
            .env("SPINDLE_STORE", store)
            .env("NO_COLOR", "1");
        cmd
    };
    // The namespace has no network: the server's TCP address is out of reach there.
    let tcp = in_namespace(&db.url(), "0").output().unwrap();
    assert_eq!(tcp.status.code(), Some(2), "{}", String::from_utf8_lossy(&tcp.stderr));
    // Its socket is a file, and reachable: both ways libpq names a socket directory.
    let encoded = format!("postgres://root:sekrit-pw@%2Fvar%2Frun%2Fpostgresql/{}", db.name);
    let parameter = format!("postgres://root@/{}?host={SOCKET_DIR}", db.name);
    let agents: Vec<Child> = [(encoded, "0"), (parameter, "1")]
        .iter()
        .map(|(store, i)| in_namespace(store, i).stderr(Stdio::piped()).spawn().unwrap())
        .collect();
    for (i, a) in agents.into_iter().enumerate() {
        let out = finished(a, "an agent in its namespace");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "agent {i}: {err}");
        assert!(!err.contains("sekrit-pw"), "{err}");
    }
    let done = finished(coordinator, "the coordinator");
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    assert_eq!(rows(&db, "SELECT state FROM agent_runs")[0][0], "complete");
    assert_eq!(rows(&db, "SELECT count(*) FROM agents WHERE state = 'done'"), [["2"]]);
    assert_eq!(rows(&db, "SELECT status FROM runs WHERE point = 'all agents'"), [["complete"]], "merged and saved");
}

/// libfaketime, from Debian's `faketime`.
const FAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

#[test]
fn agents_with_skewed_clocks_measure_their_offset_and_start_on_the_servers_instant() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_skew") else { return };
    if !Path::new(FAKETIME).exists() {
        spindle_testenv::unavailable("libfaketime (Debian package faketime)", format!("no {FAKETIME}"));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = db.url();
    let (coordinator, printed) = emitting_coordinator(&store, dir.path(), "2", &["--ready-timeout", "2m"]);
    let run = run_of(&printed);
    // Only the wall clock moves: CLOCK_MONOTONIC (timers, the measurement) stays true.
    let skews = [("0", "+2.5", 2_500_000_000_i64), ("1", "-2.5", -2_500_000_000)];
    let agents: Vec<Child> = skews
        .iter()
        .map(|(i, shift, _)| {
            agent(&store, dir.path(), run, Some(i))
                .env("LD_PRELOAD", FAKETIME)
                .env("FAKETIME", shift)
                .env("DONT_FAKE_MONOTONIC", "1")
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for a in agents {
        let out = finished(a, "a skewed agent");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let done = finished(coordinator, "the coordinator");
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    assert_eq!(rows(&db, "SELECT state FROM agent_runs")[0][0], "complete");
    let start_at: i64 = rows(&db, "SELECT start_at_ns FROM agent_runs")[0][0].parse().unwrap();
    let agents = rows(&db, "SELECT idx, offset_ns, rtt_ns, started_ns FROM agents ORDER BY idx");
    assert_eq!(agents.len(), 2);
    for ((index, shift, injected), row) in skews.iter().zip(&agents) {
        assert_eq!(&row[0], index);
        let [offset, rtt, started] = [1, 2, 3].map(|c| row[c].parse::<i64>().unwrap());
        // The server read its clock somewhere inside the fastest round trip.
        let bound = rtt / 2 + 200_000;
        assert!(
            (offset - injected).abs() <= bound,
            "agent {index} ({shift} s): offset {offset} ns is not within {bound} ns of {injected}"
        );
        assert!(
            started >= start_at - rtt,
            "agent {index} ({shift} s) started at {started}, before the instant {start_at} (less its {rtt} ns trip)"
        );
    }
    assert_eq!(rows(&db, "SELECT status FROM runs WHERE point = 'all agents'"), [["complete"]]);
}

/// A private sshd on 127.0.0.1 whose keys and config are in a scratch directory; killed when
/// dropped, a panicking test included.
struct Sshd {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Sshd {
    /// Starts one, or says why it cannot (`Err`).
    fn start(dir: &Path) -> Result<Sshd, String> {
        for tool in ["/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen"] {
            if !Path::new(tool).exists() {
                return Err(format!("no {tool} (packages openssh-server, openssh-client)"));
            }
        }
        // sshd's privilege separation directory is compiled in (scripts/test makes it).
        if !Path::new("/run/sshd").is_dir() {
            return Err("no /run/sshd (mkdir -m 0755 /run/sshd as root)".into());
        }
        for key in ["host_key", "client_key"] {
            let out = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.join(key))
                .output()
                .map_err(|e| format!("ssh-keygen: {e}"))?;
            if !out.status.success() {
                return Err(format!("ssh-keygen: {}", String::from_utf8_lossy(&out.stderr)));
            }
        }
        std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys")).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let bin = assert_cmd::cargo::cargo_bin("spindle");
        let config = dir.join("sshd_config");
        // HOME in the scratch directory: bash reads ~/.bashrc even for a command run over ssh,
        // and rustup's line there puts ~/.cargo/bin (where the README's `cargo install` puts a
        // spindle) before the PATH set here.
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\n\
                 PermitRootLogin yes\nStrictModes no\nUsePAM no\nPidFile {d}/sshd.pid\n\
                 SetEnv PATH={}:/usr/bin:/bin HOME={d}\n",
                bin.parent().unwrap().display(),
                d = dir.display()
            ),
        )
        .unwrap();
        let child = Command::new("/usr/sbin/sshd")
            .arg("-D")
            .arg("-f")
            .arg(&config)
            .arg("-E")
            .arg(dir.join("sshd.log"))
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| format!("sshd: {e}"))?;
        let mut sshd = Sshd { child, port, dir: dir.to_path_buf() };
        let since = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = sshd.child.try_wait().unwrap() {
                panic!("sshd ended ({status}): {}", sshd.log());
            }
            assert!(since.elapsed() < Duration::from_secs(60), "sshd never listened: {}", sshd.log());
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(sshd)
    }

    /// `SPINDLE_SSH` for this sshd: its port, the client key, no host key prompts.
    fn ssh_command(&self) -> String {
        format!(
            "ssh -i {} -p {} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
            self.dir.join("client_key").display(),
            self.port
        )
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default()
    }
}

/// Every process's arguments, NULs as spaces.
fn command_lines() -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            e.file_name().to_str()?.parse::<u32>().ok()?;
            let bytes = std::fs::read(e.path().join("cmdline")).ok()?;
            Some(String::from_utf8_lossy(&bytes).replace('\0', " "))
        })
        .collect()
}

#[test]
fn the_ssh_launcher_starts_agents_through_sshd_and_names_a_host_it_cannot_reach() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_ssh") else { return };
    let dir = tempfile::tempdir().unwrap();
    let sshd = match Sshd::start(dir.path()) {
        Ok(s) => s,
        Err(why) => {
            spindle_testenv::unavailable("a private sshd on 127.0.0.1", why);
            return;
        }
    };
    let ssh = sshd.ssh_command();
    let words: Vec<&str> = ssh.split_whitespace().collect();
    // The far side's `spindle` must be the one under test (a shell's rc files may put another
    // first in its PATH).
    let which = Command::new(words[0])
        .args(&words[1..])
        .args(["-o", "BatchMode=yes", "root@127.0.0.1", "command -v spindle"])
        .output()
        .unwrap();
    let found = String::from_utf8_lossy(&which.stdout).trim().to_string();
    let bin = assert_cmd::cargo::cargo_bin("spindle");
    if found != bin.display().to_string() {
        let why = format!("its spindle is {found:?}: {}{}", String::from_utf8_lossy(&which.stderr), sshd.log());
        spindle_testenv::unavailable("an sshd whose PATH finds the spindle under test", why);
        return;
    }

    let password = format!("ssh-pw-{}", std::process::id());
    let store = db.url().replacen("root@", &format!("root:{password}@"), 1);
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, "root@127.0.0.1\nroot@127.0.0.1\n").unwrap();
    let coordinator = spindle_process()
        .current_dir(dir.path())
        .args(["io", "--engine", "null", "--duration", "3s", "--size", "1M", "--agents", "2", "--launch", "ssh"])
        .arg("--target")
        .arg(dir.path().join("x.dat"))
        .arg("--hosts")
        .arg(&hosts)
        .env("SPINDLE_STORE", &store)
        .env("SPINDLE_SSH", &ssh)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(&db, "SELECT count(*) FROM agents WHERE state = 'running'", "2");
    let lines = command_lines();
    let ssh_clients: Vec<&String> =
        lines.iter().filter(|l| l.starts_with("ssh -i") && l.contains("spindle agent --run")).collect();
    assert!(ssh_clients.len() >= 2, "the launcher's ssh clients are there to look at: {ssh_clients:?}");
    assert!(ssh_clients.iter().all(|l| l.contains("-o BatchMode=yes")), "{ssh_clients:?}");
    assert!(!lines.iter().any(|l| l.contains(&password)), "the store's password in no process's arguments");
    let done = finished(coordinator, "the coordinator over ssh");
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{err}\n{}", sshd.log());
    assert!(!err.contains(&password), "{err}");
    assert_eq!(rows(&db, "SELECT state FROM agent_runs")[0][0], "complete");
    assert_eq!(rows(&db, "SELECT count(*) FROM agents WHERE state = 'done'"), [["2"]]);
    assert_eq!(rows(&db, "SELECT status FROM runs WHERE point = 'all agents'"), [["complete"]]);

    // 127.0.0.2 is this machine too, but sshd listens on 127.0.0.1 only: its port is closed.
    std::fs::write(&hosts, "root@127.0.0.1\nroot@127.0.0.2\n").unwrap();
    let out = spindle_process()
        .current_dir(dir.path())
        .args(["io", "--engine", "null", "--duration", "3s", "--size", "1M", "--agents", "2", "--launch", "ssh"])
        .args(["--ready-timeout", "10m", "--target", "y.dat", "--hosts"])
        .arg(&hosts)
        .env("SPINDLE_STORE", &store)
        .env("SPINDLE_SSH", &ssh)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = finished(out, "the coordinator with a host it cannot reach");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "nothing was measured: {err}");
    assert!(err.contains("agent 1 (root@127.0.0.2) exited before the start"), "the host named: {err}");
    assert!(err.contains("nothing was measured") && !err.contains("not ready after"), "before the timeout: {err}");
    assert!(!err.contains(&password), "{err}");
    let second = rows(&db, "SELECT state FROM agent_runs ORDER BY id DESC LIMIT 1");
    assert_eq!(second, [["aborted"]]);
    assert_eq!(rows(&db, "SELECT count(*) FROM runs WHERE point LIKE 'agent %'"), [["2"]], "only the first run's");
}

#[test]
fn agents_whose_coordinator_is_gone_stop_and_say_so() {
    let Some(db) = TestDb::create(&POSTGRES, "agents_orphan") else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = db.url();
    let (mut coordinator, printed) = emitting_coordinator(&store, dir.path(), "2", &["--ready-timeout", "10m"]);
    let run = run_of(&printed);
    let mut first = agent(&store, dir.path(), run, Some("0")).stderr(Stdio::piped()).spawn().unwrap();
    wait_for(&db, "SELECT state FROM agents WHERE idx = 0", "ready");
    coordinator.kill().unwrap();
    let _ = coordinator.wait();
    assert!(!first.wait().unwrap().success(), "the agent stopped instead of waiting ten minutes");
    let state = rows(&db, "SELECT state, note FROM agent_runs");
    assert_eq!(state[0][0], "aborted", "{state:?}");
    assert!(state[0][1].contains("coordinator"), "{state:?}");
    assert_eq!(rows(&db, "SELECT count(*) FROM runs")[0][0], "0", "nothing saved as measured");
}
