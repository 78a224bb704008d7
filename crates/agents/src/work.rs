//! What the agents of a run measure, stored with the run as JSON (and hashed, so every agent
//! is known to run the same thing): an I/O job, which every agent runs whole on its own
//! files, or Database Hammer, whose sessions are split among the agents. Each agent turns it
//! into its share, a workload the runner measures as any other.

use serde::{Deserialize, Serialize};
use spindle_db::DbUrl;
use spindle_db::hammer::RunPlan;
use spindle_model::RunRecord;
use spindle_model::spec::JobSpec;
use spindle_runner::workload::Workload;
use spindle_runner::workload::database::Database;
use spindle_runner::workload::hammer::Hammer;
use spindle_runner::workload::io::IoJob;
use std::collections::BTreeMap;
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Work {
    /// An I/O job: each agent runs all of it, on its own test files (devices are shared).
    Io { job: JobSpec },
    /// Database Hammer on a table loaded beforehand: `sessions` in all, split among the agents.
    Hammer {
        /// The database's URL without its password: each agent takes the password from its
        /// own environment (PGPASSWORD, MYSQL_PWD), never from the store.
        db: String,
        sessions: u32,
        read_pct: u8,
        warmup_ns: u64,
        duration_ns: u64,
        think_ns: u64,
        /// Calls a second over all sessions of all agents.
        rate: Option<f64>,
    },
}

/// What the store holds for a run's agents (its `spec`, hashed): the work, and the user's
/// labels (`--label` given to the coordinator), which each agent's share carries as the merged
/// run does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stored {
    #[serde(flatten)]
    pub work: Work,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
}

/// Agent `index`'s part of `total` sessions among `agents`: as even as it goes, the first
/// agents taking one more each when they do not divide.
pub fn sessions_of(total: u32, agents: u32, index: u32) -> u32 {
    total / agents + u32::from(index < total % agents)
}

impl Work {
    /// The database URL a Hammer run's store copy holds: the password left out.
    pub fn db_without_password(url: &DbUrl) -> String {
        let mut bare = url.clone();
        bare.password = None;
        bare.to_string()
    }

    /// How long each agent was asked to measure.
    pub fn duration(&self) -> Duration {
        match self {
            Work::Io { job } => Duration::from_nanos(job.duration_ns),
            Work::Hammer { duration_ns, .. } => Duration::from_nanos(*duration_ns),
        }
    }

    /// The warm-up each agent runs before its window, from the common start.
    pub fn warmup(&self) -> Duration {
        match self {
            Work::Io { job } => Duration::from_nanos(job.warmup_ns),
            Work::Hammer { warmup_ns, .. } => Duration::from_nanos(*warmup_ns),
        }
    }

    /// The directories the test files go in, each once, as asked (none for Hammer): what a
    /// Job mounts a volume at.
    pub fn target_dirs(&self) -> Vec<PathBuf> {
        let Work::Io { job } = self else { return Vec::new() };
        let mut dirs: Vec<PathBuf> = Vec::new();
        for t in &job.targets {
            let dir = t.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
            if !dirs.iter().any(|d| d == dir) {
                dirs.push(dir.to_path_buf());
            }
        }
        dirs
    }

    /// The variable the database's clients read its password from, for Hammer on a server.
    pub fn password_var(&self) -> Option<&'static str> {
        let Work::Hammer { db, .. } = self else { return None };
        spindle_db::parse_url(db).ok()?.engine.password_var()
    }

    /// How many agents the work can take: Hammer needs a session for each.
    pub fn most_agents(&self) -> Option<u32> {
        match self {
            Work::Io { .. } => None,
            Work::Hammer { sessions, .. } => Some(*sessions),
        }
    }

    /// Agent `index`'s share, as a workload; `None` when this agent has nothing to do.
    /// `db_url` reads a Hammer run's URL as the user's clients do (the password is each host's).
    pub fn share(
        &self,
        index: u32,
        agents: u32,
        db_url: &dyn Fn(&str) -> anyhow::Result<DbUrl>,
    ) -> anyhow::Result<Box<dyn Workload>> {
        match self {
            Work::Io { job } => {
                let mut job = job.clone();
                agent_paths(&mut job, index);
                Ok(Box::new(IoJob::new(job, Vec::new())))
            }
            Work::Hammer { db, sessions, read_pct, warmup_ns, duration_ns, think_ns, rate } => {
                let url = db_url(db)?;
                let mine = sessions_of(*sessions, agents, index);
                let plan = RunPlan {
                    sessions: mine,
                    read_pct: *read_pct,
                    rows: 0,
                    warmup: Duration::from_nanos(*warmup_ns),
                    duration: Duration::from_nanos(*duration_ns),
                    think: Duration::from_nanos(*think_ns),
                    rate_per_session: None,
                    start: None,
                };
                let rate = rate.map(|r| r * f64::from(mine) / f64::from(*sessions));
                Ok(Box::new(Hammer::new(Database::at(url, None), None, vec![plan], rate)))
            }
        }
    }

    /// The I/O job's test files, prepared by the runner (none for Hammer).
    pub fn io_job(&self, index: u32) -> Option<JobSpec> {
        match self {
            Work::Io { job } => {
                let mut job = job.clone();
                agent_paths(&mut job, index);
                Some(job)
            }
            Work::Hammer { .. } => None,
        }
    }

    /// The merged run said as the whole work, not as agent 0's share: the paths asked for,
    /// the job or every agent's sessions.
    pub fn as_asked(&self, merged: &mut RunRecord) {
        match self {
            Work::Io { job } => {
                for (t, asked) in merged.targets.iter_mut().zip(&job.targets) {
                    t.path = asked.path.display().to_string();
                }
                if let spindle_model::KindData::Io { spec, .. } = &mut merged.details {
                    *spec = job.clone();
                }
            }
            Work::Hammer { sessions, rate, .. } => {
                if let spindle_model::KindData::Hammer { spec } = &mut merged.details {
                    spec.sessions = *sessions;
                    spec.rate_per_session = rate.map(|r| r / f64::from(*sessions));
                    if let Some(target) = merged.targets.first_mut() {
                        target.workload = spindle_db::hammer::workload_text(spec);
                    }
                }
            }
        }
    }
}

/// Each agent's own test files: `PATH.agentI`, so agents on one host (or on hosts sharing a
/// file system) never write one file. A device is every agent's (many hosts driving one SAN
/// volume are the point).
fn agent_paths(job: &mut JobSpec, index: u32) {
    for t in &mut job.targets {
        let device = std::fs::metadata(&t.path).is_ok_and(|m| m.file_type().is_block_device());
        if !device {
            let mut path = t.path.clone().into_os_string();
            path.push(format!(".agent{index}"));
            t.path = PathBuf::from(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_split_as_evenly_as_they_go_and_all_of_them() {
        for (total, agents) in [(1000, 4), (10, 3), (5, 5), (7, 2)] {
            let shares: Vec<u32> = (0..agents).map(|i| sessions_of(total, agents, i)).collect();
            assert_eq!(shares.iter().sum::<u32>(), total, "{total} over {agents}: {shares:?}");
            assert!(shares.iter().max().unwrap() - shares.iter().min().unwrap() <= 1, "{shares:?}");
        }
    }

    #[test]
    fn the_stored_spec_reads_back_with_its_labels() {
        let stored = Stored {
            work: Work::Hammer {
                db: "postgres://u@h/db".into(),
                sessions: 8,
                read_pct: 50,
                warmup_ns: 0,
                duration_ns: 1,
                think_ns: 0,
                rate: None,
            },
            labels: BTreeMap::from([("team".to_string(), "storage".to_string())]),
        };
        let text = serde_json::to_string(&stored).unwrap();
        assert_eq!(serde_json::from_str::<Stored>(&text).unwrap(), stored);
    }

    #[test]
    fn the_stored_url_has_no_password() {
        let url = spindle_db::parse_url("postgres://u:pw@h/db").unwrap();
        let bare = Work::db_without_password(&url);
        assert_eq!(bare, "postgres://u@h/db");
        assert!(spindle_db::parse_url(&bare).unwrap().password.is_none());
    }
}
