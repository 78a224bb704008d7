//! The durability log: what the writer says about each write, kept somewhere the crash does
//! not reach (a file on another volume, or `spindle durability listen` on another machine).
//! A header names the run, then one line per event, in order:
//! `W <generation> <slot>` before a write is issued (it is in flight from then on) and
//! `A <generation>` once a flush has returned after it: every write up to that generation is
//! acknowledged. A log cut anywhere (the writer's machine went down mid-line) still reads: its
//! complete lines are the events that were said.

use std::collections::HashMap;
use std::fmt;

/// The first word of every durability log.
pub const MAGIC: &str = "spindle-durability";

/// What the log is of: the run and the target its writes went to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The run's id, stamped into every sector it writes.
    pub run: u64,
    /// Bytes each write covers; writes go to whole, aligned slots of this size.
    pub block: u64,
    /// Bytes of the target the writes cover.
    pub size: u64,
    /// The target as the writer named it (for the reader; a snapshot may live elsewhere).
    pub target: String,
}

impl Header {
    /// Slots writes can go to.
    pub fn slots(&self) -> u64 {
        self.size / self.block
    }

    /// The header line, newline included. The target comes last, so it may hold spaces.
    pub fn line(&self) -> String {
        format!("{MAGIC} v2 run={:016x} block={} size={} target={}\n", self.run, self.block, self.size, self.target)
    }

    fn parse(line: &str) -> Result<Header, LogError> {
        let bad = |why: &str| LogError::Header(why.to_string());
        let rest = line
            .strip_prefix(MAGIC)
            .ok_or_else(|| bad("not a durability log (it does not start with \"spindle-durability\")"))?;
        // Version 2 came with the second stamp format (`verify::stamp`): a version 1 log's
        // target holds stamps this spindle cannot check, so its writes would all read as lost.
        let rest = rest.strip_prefix(" v2 ").ok_or_else(|| bad("a version of the log this spindle does not read (written by an earlier spindle, whose stamps it no longer checks)"))?;
        let (fields, target) = rest.split_once(" target=").ok_or_else(|| bad("no target"))?;
        let mut run = None;
        let mut block = None;
        let mut size = None;
        for field in fields.split(' ') {
            match field.split_once('=') {
                Some(("run", v)) => run = u64::from_str_radix(v, 16).ok(),
                Some(("block", v)) => block = v.parse::<u64>().ok(),
                Some(("size", v)) => size = v.parse::<u64>().ok(),
                _ => return Err(bad(&format!("unknown field {field:?}"))),
            }
        }
        let (Some(run), Some(block), Some(size)) = (run, block, size) else {
            return Err(bad("run, block or size missing or not a number"));
        };
        if block == 0 || block % 512 != 0 || size < block {
            return Err(bad("block size not a multiple of 512, or larger than the target"));
        }
        Ok(Header { run, block, size, target: target.to_string() })
    }
}

/// One event the writer said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Write `generation` to `slot` is about to be issued.
    Issued { generation: u64, slot: u64 },
    /// A flush returned: every write up to `generation` is durable, if the storage keeps its word.
    Acknowledged { generation: u64 },
    /// The writer stopped on its own (its duration ended or it was asked to stop).
    Ended,
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Issued { generation, slot } => writeln!(f, "W {generation} {slot}"),
            Event::Acknowledged { generation } => writeln!(f, "A {generation}"),
            Event::Ended => writeln!(f, "E"),
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LogError {
    #[error("{0}")]
    Header(String),
    #[error("line {line}: {why}")]
    Event { line: usize, why: String },
}

/// What the log says of one slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    /// The newest acknowledged generation written there (0: none).
    pub acked: u64,
    /// The newest generation issued there, acknowledged or not.
    pub issued: u64,
}

/// What a whole log says, folded per slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acknowledged {
    pub header: Header,
    /// The slots the log names: only those (a log is no larger than the writes it tells of,
    /// whatever the size its header claims).
    pub slots: HashMap<u64, Slot>,
    /// The newest generation acknowledged.
    pub last_acked: u64,
    /// The newest generation issued.
    pub last_issued: u64,
    /// Whether the writer said it ended on its own.
    pub ended: bool,
    /// Bytes at the end that are not a complete line (the log was cut there).
    pub cut_bytes: usize,
}

/// Reads a whole log. Lines after the header must be events, in order; a last line without
/// its newline is a cut and is left out, as it may be only part of what was said.
pub fn parse(text: &[u8]) -> Result<Acknowledged, LogError> {
    let (complete, cut) = match text.iter().rposition(|&b| b == b'\n') {
        Some(end) => (&text[..=end], text.len() - end - 1),
        None => (&text[..0], text.len()),
    };
    let mut lines = complete.split(|&b| b == b'\n');
    let first =
        lines.next().filter(|l| !l.is_empty()).ok_or_else(|| LogError::Header("empty: no header line".into()))?;
    let header = Header::parse(&String::from_utf8_lossy(first))?;
    let mut log =
        Acknowledged { slots: HashMap::new(), header, last_acked: 0, last_issued: 0, ended: false, cut_bytes: cut };
    // Writes issued but not yet acknowledged, oldest first.
    let mut in_flight: std::collections::VecDeque<(u64, u64)> = Default::default();
    for (i, line) in lines.enumerate() {
        if line.is_empty() {
            continue;
        }
        let event = parse_event(line, log.header.slots()).map_err(|why| LogError::Event { line: i + 2, why })?;
        match event {
            Event::Issued { generation, slot } => {
                if generation <= log.last_issued {
                    return Err(LogError::Event { line: i + 2, why: "generations out of order".into() });
                }
                log.last_issued = generation;
                log.slots.entry(slot).or_default().issued = generation;
                in_flight.push_back((generation, slot));
            }
            Event::Acknowledged { generation } => {
                if generation > log.last_issued || generation < log.last_acked {
                    return Err(LogError::Event { line: i + 2, why: "acknowledges a write never issued".into() });
                }
                log.last_acked = generation;
                while let Some(&(g, slot)) = in_flight.front().filter(|(g, _)| *g <= generation) {
                    log.slots.entry(slot).or_default().acked = g;
                    in_flight.pop_front();
                }
            }
            Event::Ended => log.ended = true,
        }
    }
    Ok(log)
}

fn parse_event(line: &[u8], slots: u64) -> Result<Event, String> {
    let text = std::str::from_utf8(line).map_err(|_| "not text".to_string())?;
    let mut words = text.split(' ');
    let number = |w: Option<&str>| -> Result<u64, String> {
        w.and_then(|w| w.parse::<u64>().ok()).ok_or_else(|| format!("{text:?} is not an event"))
    };
    let event = match words.next() {
        Some("W") => {
            let generation = number(words.next())?;
            let slot = number(words.next())?;
            if slot >= slots {
                return Err(format!("slot {slot} is past the target's {slots}"));
            }
            Event::Issued { generation, slot }
        }
        Some("A") => Event::Acknowledged { generation: number(words.next())? },
        Some("E") => Event::Ended,
        _ => return Err(format!("{text:?} is not an event")),
    };
    if words.next().is_some() {
        return Err(format!("{text:?} is not an event"));
    }
    Ok(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header { run: 0xabc, block: 4096, size: 4096 * 8, target: "/dev/sdz with space".into() }
    }

    fn log_of(events: &[Event]) -> Vec<u8> {
        let mut text = header().line();
        for e in events {
            text.push_str(&e.to_string());
        }
        text.into_bytes()
    }

    #[test]
    fn a_flush_acknowledges_every_write_issued_before_it() {
        let text = log_of(&[
            Event::Issued { generation: 1, slot: 3 },
            Event::Issued { generation: 2, slot: 5 },
            Event::Acknowledged { generation: 2 },
            Event::Issued { generation: 3, slot: 3 },
        ]);
        let log = parse(&text).unwrap();
        assert_eq!(log.header, header());
        assert_eq!((log.slots[&3].acked, log.slots[&5].acked, log.slots[&3].issued), (1, 2, 3));
        assert_eq!((log.last_acked, log.last_issued, log.ended, log.cut_bytes), (2, 3, false, 0));
    }

    #[test]
    fn a_real_writers_log_reads() {
        let log = parse(include_bytes!("../../testdata/durability.log")).unwrap();
        assert_eq!((log.header.block, log.header.size, log.header.target.as_str()), (4096, 64 << 20, "d.dat"));
        assert_eq!((log.last_acked, log.last_issued, log.ended, log.cut_bytes), (20, 20, false, 0));
        assert_eq!(log.slots.values().filter(|s| s.acked > 0).count(), log.slots.len());
    }

    #[test]
    fn a_log_cut_mid_line_keeps_its_complete_lines() {
        let mut text = log_of(&[Event::Issued { generation: 1, slot: 0 }, Event::Acknowledged { generation: 1 }]);
        text.extend_from_slice(b"W 2 ");
        let log = parse(&text).unwrap();
        assert_eq!((log.slots[&0].acked, log.cut_bytes), (1, 4));
        // Cut inside the header: nothing can be said.
        assert!(matches!(parse(&text[..10]), Err(LogError::Header(_))));
    }

    #[test]
    fn events_that_cannot_be_are_refused_with_their_line() {
        let bad = [
            (vec![Event::Acknowledged { generation: 1 }], "never issued"),
            (vec![Event::Issued { generation: 2, slot: 0 }, Event::Issued { generation: 1, slot: 1 }], "out of order"),
            (vec![Event::Issued { generation: 1, slot: 8 }], "past the target"),
        ];
        for (events, why) in bad {
            let err = parse(&log_of(&events)).unwrap_err();
            assert!(err.to_string().contains(why), "{err}");
        }
        let mut text = header().line().into_bytes();
        text.extend_from_slice(b"X 1\n");
        assert_eq!(parse(&text).unwrap_err(), LogError::Event { line: 2, why: "\"X 1\" is not an event".into() });
        assert!(parse(b"hello\n").unwrap_err().to_string().contains("not a durability log"));
    }
}
