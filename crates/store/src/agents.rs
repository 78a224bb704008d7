//! One run measured by many agents, coordinated through the store they all save into: no
//! daemon and no port of spindle's own. A PostgreSQL store only (its advisory locks and its
//! one clock are what many hosts share):
//!
//! - `agent_runs`: the run to be measured (the job, its hash, the spindle version every agent
//!   must be, how many agents) and its state: waiting for agents, started at an instant of
//!   the server's clock, then complete, partial (an agent was lost) or aborted.
//! - `agents`: one row per agent that joined, with its host, its clock's offset from the
//!   server's and the round trip that was measured on, its state, its last heartbeat, when
//!   it started and the run its share was saved as.
//! - An agent's lease is a session advisory lock on (run, index), held by its connection for
//!   its whole life: the server frees it the moment the agent's process or host goes, so the
//!   coordinator tells a lost agent from the locks held (`leases_held`), and a heartbeat
//!   older than a few seconds tells one whose host vanished without closing its connection.
//!
//! The tables are the schema's (version 4) on SQLite too, so both backends keep one layout;
//! an SQLite store refuses the coordination itself (`needs_server`).

use crate::backend::Dialect;
use crate::{Store, StoreError};

/// The coordinator's lease's second key: -1, which no agent's index is; `leases_held` reads
/// it back as `COORDINATOR`.
const COORDINATOR_KEY: i64 = -1;

/// The coordinator among the leases `leases_held` lists.
pub const COORDINATOR: u32 = u32::MAX;

/// Where a run of many agents is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// Created; agents are joining and preparing.
    Waiting,
    /// Every agent was ready: they start (or started) at `start_at_ns`.
    Started,
    /// Every agent finished and the merged run is saved.
    Complete,
    /// An agent was lost or failed after the start: what was measured is kept, marked so.
    Partial,
    /// Stopped before the start (an agent missing at the barrier, refused, or Ctrl-C).
    Aborted,
}

/// Where one agent is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentState {
    /// Joined: its lease taken and its clock measured.
    Joined,
    /// Prepared (files laid out), waiting for the start.
    Ready,
    /// Measuring.
    Running,
    /// Its share saved.
    Done,
    /// It stopped with an error (said in its note).
    Failed,
    /// Its lease or heartbeat went: the coordinator marked it lost.
    Lost,
}

macro_rules! names {
    ($ty:ident { $($variant:ident => $name:literal),* $(,)? }) => {
        impl $ty {
            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => $name),* }
            }

            pub fn parse(name: &str) -> Option<$ty> {
                match name { $($name => Some($ty::$variant),)* _ => None }
            }
        }
    };
}

names!(RunState { Waiting => "waiting", Started => "started", Complete => "complete", Partial => "partial", Aborted => "aborted" });
names!(AgentState { Joined => "joined", Ready => "ready", Running => "running", Done => "done", Failed => "failed", Lost => "lost" });

impl RunState {
    /// Whether the run is over, one way or another: agents still measuring stop.
    pub fn is_over(self) -> bool {
        matches!(self, RunState::Complete | RunState::Partial | RunState::Aborted)
    }
}

/// A run of many agents, as its row holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentRun {
    pub id: i64,
    pub agents: u32,
    /// The job every agent runs (JSON of the model's `JobSpec`).
    pub spec: String,
    /// SHA-256 of `spec`: an agent that read another job is refused.
    pub spec_hash: String,
    pub spindle_version: String,
    pub state: RunState,
    /// The common start, nanoseconds since 1970 on the server's clock.
    pub start_at_ns: Option<i64>,
    /// The group the agents' shares and the merged run are saved in.
    pub group_id: i64,
    /// Why it is partial or aborted.
    pub note: Option<String>,
}

/// An agent as its row holds it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentRow {
    pub index: u32,
    pub hostname: String,
    pub pid: i64,
    pub spindle_version: String,
    /// Its clock minus the server's, nanoseconds.
    pub offset_ns: i64,
    pub rtt_ns: i64,
    pub state: Option<AgentState>,
    /// Its last heartbeat, nanoseconds since 1970 on the server's clock.
    pub heartbeat_ns: i64,
    /// When it started measuring, on the server's clock.
    pub started_ns: Option<i64>,
    /// Its share, saved as this run.
    pub run_id: Option<i64>,
    pub note: Option<String>,
}

/// What joining a run found wrong: each is the agent's to report (exit 2), nothing changed.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum JoinError {
    #[error("there is no run {0} of agents in this store")]
    NoRun(i64),
    #[error("run {run} has {agents} agents (indexes 0 to {last}); index {index} is not one of them", last = agents.saturating_sub(1))]
    Index { run: i64, index: u32, agents: u32 },
    #[error("agent {index} of run {run} is already taken by another agent")]
    Taken { run: i64, index: u32 },
    #[error(
        "run {run} was made by spindle {theirs}; this agent is {ours}: every agent of a run must be the same version"
    )]
    Version { run: i64, theirs: String, ours: String },
    #[error("run {run} is {state}: an agent joins only a run still waiting for its agents")]
    NotWaiting { run: i64, state: &'static str },
}

impl Store {
    /// Refuses coordination on a store that is not on a PostgreSQL server.
    fn needs_server(&self) -> Result<(), StoreError> {
        match self.conn.dialect() {
            Dialect::Postgres => Ok(()),
            Dialect::Sqlite => Err(self.conn.error(
                "a run of several agents is coordinated through a store on a PostgreSQL server (--store postgres://...): this store is a file",
            )),
        }
    }

    /// Creates a run for `agents` agents of `spec` (its hash, the version), saved in `group`.
    pub fn agent_run_new(
        &self,
        agents: u32,
        spec: &str,
        spec_hash: &str,
        group: i64,
        created_at: &str,
    ) -> Result<i64, StoreError> {
        self.needs_server()?;
        let id = self.conn.query_first(
            "INSERT INTO agent_runs (created_at, agents, spec, spec_hash, spindle_version, state, group_id) \
             VALUES (?1, ?2, ?3, ?4, ?5, 'waiting', ?6) RETURNING id",
            &[
                created_at.into(),
                i64::from(agents).into(),
                spec.into(),
                spec_hash.into(),
                env!("CARGO_PKG_VERSION").into(),
                group.into(),
            ],
            |r| r.int(0),
        )?;
        id.ok_or_else(|| self.conn.error("a run of agents was given no id"))
    }

    pub fn agent_run(&self, id: i64) -> Result<Option<AgentRun>, StoreError> {
        self.needs_server()?;
        self.conn.query_first(
            "SELECT id, agents, spec, spec_hash, spindle_version, state, start_at_ns, group_id, note \
             FROM agent_runs WHERE id = ?1",
            &[id.into()],
            |r| {
                Ok(AgentRun {
                    id: r.int(0)?,
                    agents: r.int(1)? as u32,
                    spec: r.text(2)?,
                    spec_hash: r.text(3)?,
                    spindle_version: r.text(4)?,
                    state: RunState::parse(&r.text(5)?).unwrap_or(RunState::Aborted),
                    start_at_ns: r.opt_int(6)?,
                    group_id: r.int(7)?,
                    note: r.opt_text(8)?,
                })
            },
        )
    }

    /// Moves the run from `from` to `to` with a note; `false` when it was not in `from`
    /// (another coordinator, or an agent, moved it first).
    pub fn agent_run_move(
        &self,
        id: i64,
        from: RunState,
        to: RunState,
        note: Option<&str>,
    ) -> Result<bool, StoreError> {
        self.needs_server()?;
        let n = self.conn.execute(
            "UPDATE agent_runs SET state = ?3, note = COALESCE(?4, note) WHERE id = ?1 AND state = ?2",
            &[id.into(), from.name().into(), to.name().into(), note.into()],
        )?;
        Ok(n == 1)
    }

    /// Starts a waiting run at `lead_ns` after the server's now; returns the instant (server
    /// clock), or `None` when the run was no longer waiting.
    pub fn agent_run_start(&self, id: i64, lead_ns: i64) -> Result<Option<i64>, StoreError> {
        self.needs_server()?;
        let at = self.server_now_ns()? + lead_ns;
        let n = self.conn.execute(
            "UPDATE agent_runs SET state = 'started', start_at_ns = ?2 WHERE id = ?1 AND state = 'waiting'",
            &[id.into(), at.into()],
        )?;
        Ok((n == 1).then_some(at))
    }

    /// The server's clock now, nanoseconds since 1970 (to the microsecond it keeps).
    pub fn server_now_ns(&self) -> Result<i64, StoreError> {
        self.needs_server()?;
        let us = self.conn.query_first(
            "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS bigint)",
            &[],
            |r| r.int(0),
        )?;
        Ok(us.ok_or_else(|| self.conn.error("the server gave no time"))? * 1000)
    }

    /// Joins run `run` as agent `index`: checks the run, takes the agent's lease (held by
    /// this connection until it closes) and adds its row. Nothing is changed when it is refused.
    pub fn agent_join(&self, run: i64, me: &AgentRow) -> Result<Result<AgentRun, JoinError>, StoreError> {
        self.needs_server()?;
        let Some(found) = self.agent_run(run)? else { return Ok(Err(JoinError::NoRun(run))) };
        let index = me.index;
        if index >= found.agents {
            return Ok(Err(JoinError::Index { run, index, agents: found.agents }));
        }
        if found.spindle_version != me.spindle_version {
            return Ok(Err(JoinError::Version {
                run,
                theirs: found.spindle_version,
                ours: me.spindle_version.clone(),
            }));
        }
        if found.state != RunState::Waiting {
            return Ok(Err(JoinError::NotWaiting { run, state: found.state.name() }));
        }
        let leased = self.conn.query_first(
            "SELECT pg_try_advisory_lock(CAST(?1 AS bigint)::int, CAST(?2 AS bigint)::int)",
            &[run.into(), i64::from(index).into()],
            |r| r.int(0),
        )?;
        // A row left by an agent that died before the start is taken over with its lease.
        if leased != Some(1) {
            return Ok(Err(JoinError::Taken { run, index }));
        }
        self.conn.execute(
            "INSERT INTO agents (run_id, idx, hostname, pid, spindle_version, offset_ns, rtt_ns, state, heartbeat_ns) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'joined', ?8) \
             ON CONFLICT (run_id, idx) DO UPDATE SET hostname = EXCLUDED.hostname, pid = EXCLUDED.pid, \
             offset_ns = EXCLUDED.offset_ns, rtt_ns = EXCLUDED.rtt_ns, state = 'joined', \
             heartbeat_ns = EXCLUDED.heartbeat_ns, note = NULL",
            &[
                run.into(),
                i64::from(index).into(),
                me.hostname.as_str().into(),
                me.pid.into(),
                me.spindle_version.as_str().into(),
                me.offset_ns.into(),
                me.rtt_ns.into(),
                self.server_now_ns()?.into(),
            ],
        )?;
        Ok(Ok(found))
    }

    /// The agent's heartbeat (server clock), with its state when it changed.
    pub fn agent_beat(&self, run: i64, index: u32, state: Option<AgentState>) -> Result<(), StoreError> {
        self.needs_server()?;
        self.conn.execute(
            "UPDATE agents SET heartbeat_ns = CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS bigint) * 1000, \
             state = COALESCE(?3, state) WHERE run_id = ?1 AND idx = ?2",
            &[run.into(), i64::from(index).into(), state.map(AgentState::name).into()],
        )?;
        Ok(())
    }

    /// What the agent did: when it started (server clock), its saved share, a note. An agent
    /// the coordinator marked lost stays lost: the run went on without it.
    pub fn agent_report(
        &self,
        run: i64,
        index: u32,
        state: AgentState,
        started_ns: Option<i64>,
        run_id: Option<i64>,
        note: Option<&str>,
    ) -> Result<(), StoreError> {
        self.needs_server()?;
        self.conn.execute(
            "UPDATE agents SET state = ?3, started_ns = COALESCE(?4, started_ns), run_saved = COALESCE(?5, run_saved), \
             note = COALESCE(?6, note) WHERE run_id = ?1 AND idx = ?2 AND state <> 'lost'",
            &[run.into(), i64::from(index).into(), state.name().into(), started_ns.into(), run_id.into(), note.into()],
        )?;
        Ok(())
    }

    /// Every agent that joined `run`, by index.
    pub fn agents_of(&self, run: i64) -> Result<Vec<AgentRow>, StoreError> {
        self.needs_server()?;
        self.conn.query(
            "SELECT idx, hostname, pid, spindle_version, offset_ns, rtt_ns, state, heartbeat_ns, started_ns, run_saved, note \
             FROM agents WHERE run_id = ?1 ORDER BY idx",
            &[run.into()],
            |r| {
                Ok(AgentRow {
                    index: r.int(0)? as u32,
                    hostname: r.text(1)?,
                    pid: r.int(2)?,
                    spindle_version: r.text(3)?,
                    offset_ns: r.int(4)?,
                    rtt_ns: r.int(5)?,
                    state: AgentState::parse(&r.text(6)?),
                    heartbeat_ns: r.int(7)?,
                    started_ns: r.opt_int(8)?,
                    run_id: r.opt_int(9)?,
                    note: r.opt_text(10)?,
                })
            },
        )
    }

    /// The coordinator's lease on `run` (the spindle that made it, for as long as its
    /// connection lives): agents that no longer see it stop, as nothing would start, watch or
    /// merge their run. `false` when another holds it.
    pub fn coordinator_lease(&self, run: i64) -> Result<bool, StoreError> {
        self.needs_server()?;
        let leased = self.conn.query_first(
            "SELECT pg_try_advisory_lock(CAST(?1 AS bigint)::int, ?2)",
            &[run.into(), COORDINATOR_KEY.into()],
            |r| r.int(0),
        )?;
        Ok(leased == Some(1))
    }

    /// The indexes of `run`'s agents whose lease is held now: an agent missing here is gone.
    /// The coordinator's lease, when held, is among them as `COORDINATOR`.
    pub fn leases_held(&self, run: i64) -> Result<Vec<u32>, StoreError> {
        self.needs_server()?;
        self.conn.query(
            "SELECT CAST(objid AS bigint) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 \
             AND granted AND CAST(classid AS bigint) = ?1 \
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY 1",
            &[run.into()],
            |r| Ok(r.int(0)? as u32),
        )
    }

    /// Marks agent `index` lost (its lease or heartbeat went), unless it had finished.
    pub fn agent_lost(&self, run: i64, index: u32, note: &str) -> Result<(), StoreError> {
        self.needs_server()?;
        self.conn.execute(
            "UPDATE agents SET state = 'lost', note = ?3 WHERE run_id = ?1 AND idx = ?2 AND state NOT IN ('done', 'failed')",
            &[run.into(), i64::from(index).into(), note.into()],
        )?;
        Ok(())
    }
}
