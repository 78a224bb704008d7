//! What the runner tells whoever watches it: progress while a step runs, notes and warnings,
//! and each run as it is saved. The command line implements it on stderr (a live line on
//! terminals only); a web page or an agent can implement it otherwise.

use crate::experiment::Finished;
use spindle_io::run::Progress;
use spindle_model::RunRecord;

/// `Sync`: a step's progress thread ticks it while the step runs.
pub trait Observer: Sync {
    /// What spindle is doing (`reusing test file ...`).
    fn note(&self, message: &str);
    /// Something the user should know that does not stop the work.
    fn warn(&self, message: &str);
    /// Something that failed; the work around it is kept.
    fn error(&self, message: &str);
    /// Once a second while a step measures.
    fn tick(&self, progress: &Progress);
    /// A bar for something filled or loaded: `done` of `total`.
    fn fill(&self, what: &str, done: u64, total: u64);
    /// The step about to run, on the live line.
    fn announce(&self, what: &str);
    /// Ends the live line.
    fn finish_line(&self);
    /// A run was measured and saved: the `saved`th run saved (from 0), of a plan of `steps`
    /// steps (its own step is `run.step`).
    fn saved(&self, run: &Finished, saved: usize, steps: usize);
    /// A run was measured but could not be saved: its figures are shown even so.
    fn unsaved(&self, record: &RunRecord);
}
