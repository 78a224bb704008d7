//! The values of flags several commands take, each checked in one place so the error naming
//! the flag reads the same wherever it is given.

use crate::args::VerdictArgs;
use crate::origin::Setting;
use crate::plan;
use crate::usage::UsageError;
use spindle_analysis::compare::DEFAULT_THRESHOLD_PCT;
use spindle_db::managed::ManagedEngine;

/// `--threshold PERCENT`: above 0, below 100.
pub fn threshold_of(args: &VerdictArgs) -> Result<f64, UsageError> {
    let Some(t) = &args.threshold else { return Ok(DEFAULT_THRESHOLD_PCT) };
    t.trim()
        .trim_end_matches('%')
        .parse::<f64>()
        .ok()
        .filter(|x| *x > 0.0 && *x < 100.0)
        .ok_or_else(|| UsageError::flag("--threshold", t, "a percentage above 0 and below 100, e.g. 5"))
}

/// More rounds than this is a typo.
const MAX_ROUNDS: u64 = 1000;

/// `--rounds N`: pairs need two rounds at least.
pub fn rounds_of(text: &Option<String>, default: u32) -> Result<u32, UsageError> {
    let Some(t) = text else { return Ok(default) };
    let n: u64 = t.trim().parse().map_err(|_| UsageError::flag("--rounds", t, "a whole number of rounds, e.g. 5"))?;
    if n < 2 {
        return Err(UsageError::flag(
            "--rounds",
            t,
            "at least 2: the test is on the differences between rounds, and one round's difference cannot be told \
             from noise",
        ));
    }
    if n > MAX_ROUNDS {
        return Err(UsageError::flag("--rounds", t, format_args!("at most {MAX_ROUNDS}")));
    }
    Ok(n as u32)
}

/// `--engine`.
pub fn engine_of(text: &str) -> Result<ManagedEngine, UsageError> {
    ManagedEngine::parse(text).ok_or_else(|| UsageError::flag("--engine", text, "spindle manages postgres and mariadb"))
}

/// `--read-ratio`: the percent of calls that are GetAccount [default: 50].
pub fn read_pct_of(text: &Option<String>) -> Result<u8, UsageError> {
    match text {
        None => Ok(50),
        Some(t) => t
            .trim()
            .parse::<u8>()
            .ok()
            .filter(|p| *p <= 100)
            .ok_or_else(|| UsageError::flag("--read-ratio", t, "a percentage from 0 to 100")),
    }
}

/// `--sessions 100,500,800` [default: 8].
pub fn sessions_of(text: &Option<String>) -> Result<Vec<u32>, UsageError> {
    Setting::flag("--sessions", text).map_or(Ok(vec![8]), |s| plan::sessions_of(&s))
}

/// A run's verification id as `--id` gives it: hex, as reports print it.
pub fn parse_id(text: &str) -> Result<u64, UsageError> {
    u64::from_str_radix(text.trim().trim_start_matches("0x"), 16)
        .map_err(|_| UsageError::flag("--id", text, "not a run id (16 hex digits, as the run printed it)"))
}
