//! Turning one setting's text into a value, with errors that name where it came from.

use crate::origin::{Origin, Setting};
use crate::usage::UsageError;
use spindle_model::spec::MixEntry;
use spindle_model::units::{parse_duration_ns, parse_size};
use std::fmt;

pub(super) fn bad(origin: &Origin, text: &str, why: impl fmt::Display) -> UsageError {
    UsageError::value(origin.clone(), text, why)
}

pub(super) const MAX_BLOCK: u64 = 64 << 20;
pub(super) const MAX_THREADS: u64 = 4096;
/// io_uring's largest submission queue.
pub(super) const MAX_DEPTH: u64 = 32768;

pub(super) fn size_of(s: &Setting) -> Result<u64, UsageError> {
    parse_size(&s.text).map_err(|e| bad(&s.origin, &s.text, e))
}

pub(super) fn count_of(s: &Setting, min: u64, max: u64, what: &str) -> Result<u64, UsageError> {
    let out_of_range = || bad(&s.origin, &s.text, format!("{what} must be a whole number between {min} and {max}"));
    let n: u64 = s.text.trim().parse().map_err(|_| out_of_range())?;
    if !(min..=max).contains(&n) {
        return Err(out_of_range());
    }
    Ok(n)
}

pub(super) fn percent_of(s: &Setting) -> Result<u8, UsageError> {
    Ok(count_of(s, 0, 100, "a percentage")? as u8)
}

pub(super) fn flag_of(s: &Setting) -> Result<bool, UsageError> {
    match s.text.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(bad(&s.origin, &s.text, "must be true or false")),
    }
}

pub(super) fn duration_of(s: &Setting) -> Result<u64, UsageError> {
    parse_duration_ns(&s.text).map_err(|e| bad(&s.origin, &s.text, e))
}

/// `64K:83,512:17`: sizes with weights, each entry optionally with its own read and random
/// percentages (`64K:136:100:100`), else the target's `read`/`random`.
pub(super) fn mix_of(s: &Setting, read_pct: u8, random_pct: u8) -> Result<Vec<MixEntry>, UsageError> {
    let mut mix = Vec::new();
    for part in s.text.split(',') {
        let fields: Vec<&str> = part.split(':').map(str::trim).collect();
        if !(2..=4).contains(&fields.len()) {
            return Err(bad(
                &s.origin,
                &s.text,
                format!("'{part}' should be SIZE:WEIGHT[:READ%[:RANDOM%]], e.g. 64K:83,512:17"),
            ));
        }
        let block = parse_size(fields[0]).map_err(|e| bad(&s.origin, &s.text, e))?;
        let number = |i: usize, what: &str, max: u64| -> Result<u64, UsageError> {
            let n: u64 = fields[i].parse().map_err(|_| {
                bad(&s.origin, &s.text, format!("{what} '{}' of {} must be a whole number", fields[i], fields[0]))
            })?;
            if n > max {
                return Err(bad(&s.origin, &s.text, format!("{what} {n} of {} is above {max}", fields[0])));
            }
            Ok(n)
        };
        let weight = number(1, "weight", u32::MAX as u64)? as u32;
        if weight == 0 {
            return Err(bad(&s.origin, &s.text, format!("weight of {} is 0; leave the size out instead", fields[0])));
        }
        let line_read = if fields.len() > 2 { number(2, "read percentage", 100)? as u8 } else { read_pct };
        let line_random = if fields.len() > 3 { number(3, "random percentage", 100)? as u8 } else { random_pct };
        let entry = MixEntry { block, weight, read_pct: line_read, random_pct: line_random };
        if mix.iter().any(|m: &MixEntry| (m.block, m.read_pct, m.random_pct) == (block, line_read, line_random)) {
            return Err(bad(&s.origin, &s.text, format!("{} appears twice with the same percentages", fields[0])));
        }
        mix.push(entry);
    }
    Ok(mix)
}
