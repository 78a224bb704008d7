//! What `--agents N` and its flags asked for, as plain values (the command line parses the
//! flags), and the checks on them that need no flag parser.

use crate::launch::Launch;
use crate::work::Work;
use spindle_model::usage::UsageError;
use std::time::Duration;

/// The most agents one run takes.
const MOST: u32 = 1024;

pub struct Request {
    pub agents: u32,
    pub launch: Launch,
    pub hosts: Vec<String>,
    pub emit: bool,
    pub ready_timeout: Duration,
    /// `--image`: the image a Kubernetes Job's pods run (required for `--launch k8s`).
    pub image: Option<String>,
    /// `--volume-claim`: the PersistentVolumeClaim a Job mounts at the targets' directories
    /// (an emptyDir, the node's own disk, when none).
    pub volume_claim: Option<String>,
}

impl Request {
    /// `--agents N`'s number.
    pub fn agents_of(text: &str) -> Result<u32, UsageError> {
        text.parse()
            .ok()
            .filter(|n| (1..=MOST).contains(n))
            .ok_or_else(|| UsageError::flag("--agents", text, format!("a number of agents, 1 to {MOST}")))
    }

    /// Refuses more agents than `work` can share among them.
    pub fn fits(&self, work: &Work) -> Result<(), UsageError> {
        match work.most_agents().filter(|m| self.agents > *m) {
            Some(most) => Err(UsageError::flag(
                "--agents",
                self.agents.to_string(),
                format!("more agents than the {most} sessions to share among them"),
            )),
            None => Ok(()),
        }
    }

    /// How the agents were started, as the coordinator says while it waits for them.
    pub(crate) fn launch_said(&self) -> &'static str {
        match (self.emit, self.launch) {
            (true, _) => "by the commands printed",
            (false, Launch::Local) => "on this host",
            (false, Launch::Ssh) => "over ssh",
            (false, Launch::Slurm) => "by srun",
            (false, Launch::K8s) => "by a Job",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_number_of_agents_is_one_to_the_most() {
        assert_eq!(Request::agents_of("1"), Ok(1));
        assert_eq!(Request::agents_of("1024"), Ok(1024));
        for bad in ["0", "1025", "-1", "two", ""] {
            let e = Request::agents_of(bad).unwrap_err().to_string();
            assert_eq!(e, format!("--agents {bad}: a number of agents, 1 to 1024"));
        }
    }
}
