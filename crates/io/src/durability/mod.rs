//! The durability check (`spindle durability write|listen|verify`), after Brad Fitzpatrick's
//! diskchecker: does storage keep every write it acknowledged with a flush, through a crash or
//! a power cut? The writer stamps each write as `--verify` does and tells a log kept elsewhere
//! what it issued and what each flush acknowledged; after the crash, the target is checked
//! against the log. Flushes too fast for the device are a hint of a volatile cache, worded by
//! spindle-analysis (`findings::flush_hints`) from the median flush the writer reports.

pub mod check;
pub mod keeper;
pub mod log;
pub mod write;
