//! Everything one check found, in one place: what the summary and `--json` both say.

use crate::battery::Budget;
use crate::since::Since;
use spindle_analysis::check_summary::StoppedEarly;
use spindle_analysis::findings::{Area, Evidence, Finding, Level};
use std::path::PathBuf;
use std::time::Duration;

pub struct Answer {
    pub evidence: Evidence,
    /// Worst first.
    pub findings: Vec<Finding>,
    pub verdicts: Vec<(Area, Level)>,
    /// Per directory (as given), its last check, if any.
    pub since: Vec<(String, Option<Since>)>,
    /// Directories on one physical device, said in words.
    pub shared: Vec<String>,
    pub budget: Budget,
    pub elapsed: Duration,
    /// The stored groups, one per directory checked.
    pub groups: Vec<i64>,
    pub report: Option<PathBuf>,
    /// Ended before its last step (Ctrl-C, a full disk, a step that failed): the findings
    /// cover the steps measured.
    pub stopped: Option<StoppedEarly>,
    /// Two directories: data and log on one volume or two.
    pub layouts: Option<crate::placement::Answer>,
}

impl Answer {
    /// Whether any finding is a problem (what `--strict` fails on).
    pub fn has_problems(&self) -> bool {
        self.findings.iter().any(|f| f.level == Level::Problem)
    }
}
