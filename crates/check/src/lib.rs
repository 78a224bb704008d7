//! `spindle check` as a library: the main job. A check is planned before any I/O (every
//! mistake a usage error naming the flag or directory), then for each directory the battery
//! (page reads to the knee, commits, checkpoint-like writes, read-ahead-like reads, a verified
//! pass, the log test on a database) through the one runner, every step an ordinary stored
//! run in the directory's check group; the evidence judged once by the findings rules; and the
//! views of that one answer: the terminal summary, the `--json` document, the HTML report.
//!
//! plan -> battery -> evidence -> findings -> views. The command line only turns its flags
//! into a [`CheckInput`] and prints what [`view`] makes of the [`Answer`].

mod answer;
mod battery;
mod check;
mod dirs;
mod evidence;
mod lock;
mod placement;
mod plan;
mod report;
mod run;
mod since;
mod summaries;
pub mod view;

pub use answer::Answer;
pub use battery::Budget;
pub use check::{Checked, run};
pub use dirs::sharing_a_device;
pub use evidence::gather;
pub use placement::Answer as LayoutsAnswer;
pub use plan::{CheckInput, CheckPlan, plan};
pub use since::{Since, since};
pub use summaries::group_summary;
