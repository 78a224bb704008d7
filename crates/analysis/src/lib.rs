//! What spindle concludes from measured runs: statistics (Welch's and paired t-tests, Student
//! t), comparisons of two sets of runs with verdicts, a sweep's curve and knee, the log test's
//! optimum, and the characterization of a counter log ("Optimizing tempdb and log disk
//! performance"). Everything here is pure: records and tables in, answers
//! out, so the CLI, reports and a later web UI draw the same conclusions from the same data.

pub mod characterize;
pub mod check_summary;
pub mod compare;
pub mod curve;
pub mod findings;
pub mod group_summary;
pub mod log_optimum;
pub mod over_time;
pub mod spread;
pub mod stats;
