//! Starting the agents with what the hosts already have: local child processes, ssh, Slurm's
//! `srun`, or a Kubernetes Indexed Job (whose YAML is printed for `kubectl apply`). The
//! store's URL (which may hold a password) reaches an agent only through its environment
//! (`SPINDLE_STORE`: set for a child, read from stdin on the far side of ssh, a Secret in the
//! Job), never through its arguments, where `ps` on any host would show it.

use crate::k8s::{self, Pods};
use crate::request::Request;
use crate::work::Work;
use spindle_db::DbUrl;
use spindle_model::usage::UsageError;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};

/// How agents are started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launch {
    /// Child processes of this spindle, on this host.
    Local,
    /// `ssh HOST spindle agent ...`, round-robin over `--hosts`.
    Ssh,
    /// A Kubernetes Indexed Job (only printed: `--emit`).
    K8s,
    /// One `srun` of N tasks (the agent's index is its `SLURM_PROCID`).
    Slurm,
}

impl Launch {
    /// `--launch`'s value.
    pub fn parse(text: &str) -> Result<Launch, UsageError> {
        match text {
            "local" => Ok(Launch::Local),
            "ssh" => Ok(Launch::Ssh),
            "k8s" | "kubernetes" => Ok(Launch::K8s),
            "slurm" => Ok(Launch::Slurm),
            _ => Err(UsageError::flag("--launch", text, "one of local, ssh, k8s, slurm")),
        }
    }

    /// Whether the agents run on other hosts, whose files this spindle cannot see: their
    /// targets' directories are checked there, by each agent.
    pub fn remote(self) -> bool {
        self != Launch::Local
    }

    /// Refuses a launch spindle cannot do itself: a Kubernetes Job is only printed (`emit`).
    pub fn check(self, emit: bool) -> Result<(), UsageError> {
        if self == Launch::K8s && !emit {
            return Err(UsageError::flag(
                "--launch",
                "k8s",
                "spindle does not talk to a cluster: add --emit, and apply the Job it prints with kubectl",
            ));
        }
        Ok(())
    }
}

/// The hosts of a `--hosts` file (`path`, read as `bytes`): one per line (`host`,
/// `user@host`), blank lines and `#` comments skipped.
pub fn parse_hosts(path: &Path, bytes: &[u8]) -> Result<Vec<String>, UsageError> {
    let text = String::from_utf8_lossy(bytes);
    let mut hosts = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let host = line.split('#').next().unwrap_or("").trim();
        if host.is_empty() {
            continue;
        }
        if host.starts_with('-') || host.chars().any(|c| c.is_whitespace() || c == '\'' || c == '"') {
            return Err(UsageError::file(path, format!("line {}: {host:?} is not a host name", n + 1)));
        }
        hosts.push(host.to_string());
    }
    if hosts.is_empty() {
        return Err(UsageError::file(path, "names no host"));
    }
    Ok(hosts)
}

/// The variable that names the ssh program and its leading options, split on whitespace as
/// git splits `GIT_SSH_COMMAND` (`ssh -i KEY -p 2222`): how agents reach hosts that need a
/// key, a port or a jump host of their own without a `~/.ssh/config` entry.
const SSH_VARIABLE: &str = "SPINDLE_SSH";

/// The ssh program and its leading options: `SPINDLE_SSH`'s words, else `ssh`.
fn ssh_words(variable: Option<&str>) -> Vec<String> {
    let words: Vec<String> = variable.unwrap_or("").split_whitespace().map(str::to_string).collect();
    if words.is_empty() { vec!["ssh".to_string()] } else { words }
}

/// `ssh_words` of this process's `SPINDLE_SSH`.
fn ssh_of_environment() -> Vec<String> {
    ssh_words(std::env::var(SSH_VARIABLE).ok().as_deref())
}

/// The command an agent runs, as a shell on its host reads it. `SPINDLE_STORE` comes from its
/// environment.
fn agent_command(run: i64, index: Option<u32>) -> String {
    match index {
        Some(i) => format!("spindle agent --run {run} --index {i}"),
        None => format!("spindle agent --run {run}"),
    }
}

/// ssh's remote command: the store's URL read from stdin into the environment first.
fn ssh_remote(run: i64, index: u32) -> String {
    format!("IFS= read -r SPINDLE_STORE && export SPINDLE_STORE && exec {}", agent_command(run, Some(index)))
}

/// What `--emit` prints: the commands, or the Job, that start the agents of `run`.
pub fn emitted(request: &Request, run: i64, store: &DbUrl, work: &Work) -> String {
    let (dirs, passwords) = (work.target_dirs(), work.password_var().into_iter().collect::<Vec<_>>());
    let pods = Pods {
        image: request.image.as_deref().unwrap_or_default(),
        volume_claim: request.volume_claim.as_deref(),
        dirs: &dirs,
        passwords: &passwords,
    };
    emitted_with(request.launch, run, store, request.agents, &request.hosts, &ssh_of_environment(), &pods)
}

/// `emitted`, with ssh run as `ssh` says (`SPINDLE_SSH`'s words).
fn emitted_with(
    how: Launch,
    run: i64,
    store: &DbUrl,
    agents: u32,
    hosts: &[String],
    ssh: &[String],
    pods: &Pods,
) -> String {
    let (said, store) = store_of(store);
    let mut text = said;
    match how {
        Launch::Local => {
            for i in 0..agents {
                text.push_str(&format!("SPINDLE_STORE={store} {} &\n", agent_command(run, Some(i))));
            }
            text.push_str("wait\n");
        }
        Launch::Ssh => {
            text.push_str("# ssh hands the store's URL to each agent on stdin\n");
            let ssh: Vec<String> = ssh.iter().map(|w| spindle_model::shell::word(w)).collect();
            for i in 0..agents {
                let host = &hosts[i as usize % hosts.len()];
                text.push_str(&format!(
                    "printf '%s\\n' {store} | {} -o BatchMode=yes {host} '{}' &\n",
                    ssh.join(" "),
                    ssh_remote(run, i)
                ));
            }
            text.push_str("wait\n");
        }
        Launch::Slurm => text.push_str(&format!(
            "# srun passes the store's URL on in the environment\nSPINDLE_STORE={store} srun --ntasks={agents} --export=ALL {}\n",
            agent_command(run, None)
        )),
        Launch::K8s => return k8s::job(run, agents, pods),
    }
    text
}

/// The store the printed commands hand the agents, whatever the shell's `SPINDLE_STORE`
/// holds: its URL as a shell word when it has no password; else the shell's `SPINDLE_STORE`,
/// which must then be set (a password is never printed), or each command stops at once
/// rather than start an agent that cannot join. Also what the commands say of it first.
fn store_of(store: &DbUrl) -> (String, String) {
    if store.password.is_none() {
        return (
            format!("# the agents' store: {}\n", printable(store)),
            spindle_model::shell::word(&store.to_string()),
        );
    }
    let said = format!(
        "# the agents' store: {}, from SPINDLE_STORE here, which must hold it with its password (not printed)\n",
        printable(store)
    );
    (said, "\"${SPINDLE_STORE:?must hold the coordinator's store URL with its password}\"".to_string())
}

/// The store's URL (its password masked) with nothing that could end a comment line.
fn printable(store: &DbUrl) -> String {
    store.to_string().chars().map(|c| if c.is_control() { '?' } else { c }).collect()
}

/// ssh starting agent `index` of `run` on `host`, as `ssh` (`SPINDLE_SSH`'s words) says; the
/// store's URL goes on its stdin. Those options come first: ssh takes the first value it is
/// given for an option, so `SPINDLE_SSH` may set its own ConnectTimeout.
fn ssh_command(ssh: &[String], host: &str, run: i64, index: u32) -> Command {
    let mut command = Command::new(&ssh[0]);
    command.args(&ssh[1..]).args(["-o", "BatchMode=yes", "-o", "ConnectTimeout=10", host, &ssh_remote(run, index)]);
    command
}

/// The agents this spindle started, by index (one `srun` stands for them all).
#[derive(Default)]
pub struct Launched {
    children: Vec<(Option<u32>, String, Child)>,
}

impl Launched {
    /// Starts the agents `how` says, the store's URL in `store` (the text as given).
    /// `env`: what else the agents need in their environment (a database's password); for
    /// ssh it goes on stdin after the store's URL.
    pub fn start(
        how: Launch,
        run: i64,
        agents: u32,
        store: &str,
        env: &[(&'static str, String)],
        hosts: &[String],
    ) -> anyhow::Result<Launched> {
        let mut launched = Launched::default();
        match how {
            Launch::Local => {
                let exe = std::env::current_exe()?;
                for i in 0..agents {
                    let child = Command::new(&exe)
                        .args(["agent", "--run", &run.to_string(), "--index", &i.to_string()])
                        .env("SPINDLE_STORE", store)
                        .envs(env.iter().map(|(k, v)| (k, v)))
                        .env_remove("SPINDLE_SERVE_TOKEN")
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .spawn()
                        .map_err(|e| anyhow::anyhow!("cannot start agent {i}: {e}"))?;
                    launched.children.push((Some(i), "this host".into(), child));
                }
            }
            Launch::Ssh => {
                let ssh = ssh_of_environment();
                for i in 0..agents {
                    let host = hosts[i as usize % hosts.len()].clone();
                    let mut child = ssh_command(&ssh, &host, run, i)
                        .stdin(Stdio::piped())
                        .stdout(Stdio::null())
                        .spawn()
                        .map_err(|e| anyhow::anyhow!("cannot run {} for agent {i} on {host}: {e}", ssh[0]))?;
                    if let Some(mut stdin) = child.stdin.take() {
                        // A host that is gone closes the pipe: ssh's own exit says why.
                        let _ = writeln!(stdin, "{store}");
                    }
                    launched.children.push((Some(i), host, child));
                }
            }
            Launch::Slurm => {
                let child = Command::new("srun")
                    .arg(format!("--ntasks={agents}"))
                    .args(["--export=ALL", "spindle", "agent", "--run", &run.to_string()])
                    .env("SPINDLE_STORE", store)
                    .envs(env.iter().map(|(k, v)| (k, v)))
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .spawn()
                    .map_err(|e| anyhow::anyhow!("cannot run srun: {e}"))?;
                launched.children.push((None, "srun".into(), child));
            }
            // Only ever printed: refused with the same words as the flag.
            Launch::K8s => how.check(false)?,
        }
        Ok(launched)
    }

    /// A launched agent (its index, where, how it ended) that has exited, if any.
    pub fn exited(&mut self) -> Option<(Option<u32>, String, ExitStatus)> {
        let at = self.children.iter_mut().position(|(_, _, c)| matches!(c.try_wait(), Ok(Some(_))))?;
        let (index, host, mut child) = self.children.remove(at);
        let status = child.wait().ok()?;
        Some((index, host, status))
    }

    /// Ends the launched agents marked `lost` (and a launcher that stands for them all, srun,
    /// when any is): they are no part of the run any more, and one that hangs (stopped, or its
    /// host gone) would keep `wait` waiting for ever.
    pub fn end_lost(&mut self, lost: &[u32]) {
        if lost.is_empty() {
            return;
        }
        for (index, _, child) in &mut self.children {
            if index.is_none_or(|i| lost.contains(&i)) {
                let _ = child.kill();
            }
        }
    }

    /// Waits for every launched agent to end.
    pub fn wait(&mut self) {
        for (_, _, child) in &mut self.children {
            let _ = child.wait();
        }
        self.children.clear();
    }

    /// Ends the launched agents at once (a run aborted before its start).
    pub fn kill(&mut self) {
        for (_, _, child) in &mut self.children {
            let _ = child.kill();
        }
        self.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_PODS: Pods = Pods { image: "", volume_claim: None, dirs: &[], passwords: &[] };

    fn bare() -> DbUrl {
        spindle_db::parse_url("postgres://spindle@db.example:5432/results").unwrap()
    }

    #[test]
    fn printed_commands_hand_the_agents_this_store_whatever_the_shell_holds() {
        for how in [Launch::Local, Launch::Ssh, Launch::Slurm] {
            let text = emitted_with(how, 4, &bare(), 2, &["h".into()], &ssh_words(None), &NO_PODS);
            assert!(!text.contains("$SPINDLE_STORE"), "{how:?}: the URL itself, not the shell's:\n{text}");
            let commands = text.lines().filter(|l| !l.starts_with('#'));
            let handed = commands.filter(|l| l.contains("postgres://spindle@db.example:5432/results ")).count();
            assert!(handed >= 1, "{how:?}:\n{text}");
            // The agent reads it from its environment or stdin, never from its arguments.
            assert!(!text.contains("agent --store"), "{text}");
        }
        let secret = spindle_db::parse_url("postgres://spindle:sekrit@db.example/results").unwrap();
        for how in [Launch::Local, Launch::Ssh, Launch::Slurm] {
            let text = emitted_with(how, 4, &secret, 2, &["h".into()], &ssh_words(None), &NO_PODS);
            assert!(!text.contains("sekrit"), "{how:?}: no password printed:\n{text}");
            assert!(text.contains("${SPINDLE_STORE:?"), "{how:?}: stops when the shell has none:\n{text}");
        }
    }

    #[test]
    fn ssh_commands_go_round_the_hosts_with_the_url_on_stdin() {
        let text = emitted_with(Launch::Ssh, 3, &bare(), 3, &["a".into(), "b".into()], &ssh_words(None), &NO_PODS);
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("printf")).collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].contains(" a '") && lines[1].contains(" b '") && lines[2].contains(" a '"));
        assert!(lines[2].contains("--index 2") && lines[2].contains("read -r SPINDLE_STORE"));
    }

    #[test]
    fn spindle_ssh_names_the_program_and_its_first_options() {
        assert_eq!(ssh_words(None), ["ssh"]);
        assert_eq!(ssh_words(Some(" \t")), ["ssh"], "empty is the default");
        let ssh = ssh_words(Some("ssh -i /k/id  -p 2222\t-o StrictHostKeyChecking=no"));
        assert_eq!(ssh, ["ssh", "-i", "/k/id", "-p", "2222", "-o", "StrictHostKeyChecking=no"]);
        let run = ssh_command(&ssh, "root@h1", 5, 1);
        assert_eq!(run.get_program(), "ssh");
        let args: Vec<&str> = run.get_args().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(args[..6], ["-i", "/k/id", "-p", "2222", "-o", "StrictHostKeyChecking=no"], "its options first");
        assert_eq!(args[6..10], ["-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]);
        assert_eq!(args[10], "root@h1");
        assert!(args[11].ends_with("spindle agent --run 5 --index 1"));

        let text = emitted_with(
            Launch::Ssh,
            5,
            &bare(),
            2,
            &["h1".into()],
            &ssh_words(Some("/opt/my ssh's -p 2222")),
            &NO_PODS,
        );
        let first = text.lines().find(|l| l.starts_with("printf")).unwrap();
        assert!(first.contains("| /opt/my 'ssh'\\''s' -p 2222 -o BatchMode=yes h1 '"), "{first}");
    }

    #[test]
    fn a_hosts_file_is_read_and_a_bad_line_named() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("hosts");
        std::fs::write(&good, "# the SAN's clients\nh1\n\nroot@h2  # second\n").unwrap();
        let read = |p: &Path| parse_hosts(p, &std::fs::read(p).unwrap());
        assert_eq!(read(&good).unwrap(), ["h1", "root@h2"]);
        let bad = dir.path().join("bad");
        std::fs::write(&bad, "h1\n-oProxyCommand=x\n").unwrap();
        assert!(read(&bad).unwrap_err().to_string().contains("line 2"));
        std::fs::write(&bad, "# none\n").unwrap();
        assert!(read(&bad).unwrap_err().to_string().contains("names no host"));
    }
}
