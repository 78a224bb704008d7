//! What the runner runs. A workload is readied once (`prepare`: test files, a loaded table, a
//! connection), then measured a step at a time (`measure`), each step at one of its points (a
//! session count, a transaction size; 0 when it has one), and undone at the end (`finish`).
//! Every step hands each run to the runner as soon as it is measured, so it is saved before the
//! next begins.

pub mod database;
pub mod hammer;
pub mod hammer_load;
pub mod io;
pub mod largeops;
pub mod logtest;

use crate::RunEnd;
use crate::observer::Observer;
use io::Files;
use spindle_clock::StartAt;
use spindle_model::RunRecord;
use spindle_model::group::Point;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What every step is given.
pub struct Context<'a> {
    /// Raised by Ctrl-C: the step ends early and says so.
    pub stop: &'static AtomicBool,
    pub observer: &'a dyn Observer,
    /// How often the counter sampler reads /proc (and the engine's counters).
    pub sample_interval: Duration,
    /// Test files, prepared once for every I/O workload of the experiment.
    pub files: &'a mut Files,
    /// Where an agent's share of a run starts: an instant it shares with the other agents
    /// (I/O jobs wait for it once their workers are ready); `None` starts at once.
    pub start: Option<Arc<StartAt>>,
}

/// One run, measured and recorded (its labels and command line are the runner's to add).
pub struct Measured {
    pub record: RunRecord,
    /// Which part of a step this is when a step makes several (a large operation, the load
    /// that readied a table); runs are compared within their part only.
    pub part: Option<String>,
    /// Its point when the step names none (`op=scan` for a large operation's run).
    pub point: Option<Point>,
    pub end: RunEnd,
}

impl Measured {
    pub fn new(record: RunRecord, end: RunEnd) -> Measured {
        Measured { record, part: None, point: None, end }
    }
}

/// Where a step's runs go, one by one.
pub type Sink<'s> = dyn FnMut(Measured) -> anyhow::Result<()> + 's;

/// An agent's share whose start was called off (the run of agents stopped before it began):
/// nothing was measured, and nothing is to be saved as if it had been.
pub fn started(cx: &Context<'_>) -> anyhow::Result<()> {
    match &cx.start {
        Some(start) if start.instant().is_none() => {
            anyhow::bail!("the run of agents was stopped before it started: nothing was measured")
        }
        _ => Ok(()),
    }
}

pub trait Workload {
    /// Readies the workload before its first step. What it measures on the way (the load of
    /// Hammer's table) goes to `sink`.
    fn prepare(&mut self, cx: &mut Context<'_>, sink: &mut Sink<'_>) -> anyhow::Result<()>;

    /// One measured step at `point`, each run handed to `sink` as it is measured; the end of
    /// the last (or the reason the step stopped).
    fn measure(&mut self, point: usize, cx: &mut Context<'_>, sink: &mut Sink<'_>) -> anyhow::Result<RunEnd>;

    /// Undoes what `prepare` made that is spindle's (a test table, a test file not kept).
    fn finish(&mut self, cx: &mut Context<'_>) -> anyhow::Result<()>;
}
