//! An access profile as a workload to replay: a spindle spec file that drives each disk's
//! mix at the rate the disk did, or IOMeter access specifications. A workload also comes from
//! an IOMeter .icf file's access specification, as it is.

use super::{AccessProfile, DeviceProfile, MeanBetween, SizeShare};
use spindle_formats::icf::{self, AccessLine, AccessSpec};
use spindle_model::units::{Reading, format_rate, format_size};
use std::fmt::Write;

/// io_uring's largest queue: the most outstanding I/Os one thread can keep.
const MAX_DEPTH: f64 = 32768.0;

/// A workload to write, whichever file it came from.
pub struct Workload {
    /// The disk or access specification it describes.
    pub name: String,
    /// `(size, share of all I/Os in percent, read %, random %)`.
    pub lines: Vec<(u64, f64, u32, u32)>,
    pub outstanding: f64,
    /// The I/Os a second the disk did, which a replay keeps (`None`: the file gives no rate).
    pub rate: Option<f64>,
    /// A database log, as far as the counters tell: replayed as sequential writes, each flushed.
    pub log: bool,
    /// Where the figures come from, for the file's comments.
    pub note: String,
    /// What the replay issues that the counters did not show (sizes between the classes).
    pub cautions: Vec<String>,
}

/// The profiles as workloads, one a disk: each disk's busy samples' profile where `busy` (the
/// queue filter was asked for, as seed 002 used it), else all its samples'.
pub fn workloads(profiles: &[DeviceProfile], busy: bool, min_queue: f64) -> Vec<Workload> {
    profiles
        .iter()
        .filter_map(|p| {
            let (a, which) = match (&p.busy, &p.all) {
                (Some(b), _) if busy => (b, format!("{} samples with queue > {}", b.samples, min_queue)),
                (_, Some(a)) => (a, format!("all {} samples", a.samples)),
                _ => return None,
            };
            Some(workload_of(&p.device, a, format!("{}: {which}: {}", p.device, line(a))))
        })
        .collect()
}

impl Workload {
    /// An IOMeter access specification as it is (its outstanding I/Os are IOMeter's to set).
    pub fn of_icf(s: &AccessSpec) -> Workload {
        Workload {
            name: s.name.clone(),
            lines: s.lines.iter().map(|l| (l.size, l.pct as f64, l.reads, l.random)).collect(),
            outstanding: 1.0,
            rate: None,
            log: false,
            note: format!(
                "IOMeter access specification {:?} (outstanding I/Os are set per worker in IOMeter: set depth)",
                s.name
            ),
            cautions: Vec::new(),
        }
    }
}

/// A disk's profile as a workload: its read and write classes as one mix.
pub fn workload_of(device: &str, a: &AccessProfile, note: String) -> Workload {
    let log = a.looks_like_log();
    // Counters cannot tell random from sequential: random is assumed, but for a log.
    let random = if log { 0 } else { 100 };
    let mut lines = Vec::new();
    for (classes, share, read) in [(&a.reads, a.read_pct, 100), (&a.writes, 100.0 - a.read_pct, 0)] {
        for c in classes {
            lines.push((c.bytes, share * c.pct / 100.0, read, random));
        }
    }
    Workload {
        name: device.to_string(),
        lines,
        outstanding: a.outstanding,
        rate: Some(a.iops),
        log,
        note,
        cautions: cautions(a),
    }
}

/// What a replay of `p` issues that its counters did not show: for each direction whose
/// samples' mean sizes lie between the classes, that they do and what it means.
pub fn cautions(p: &AccessProfile) -> Vec<String> {
    [("reads", &p.reads_between), ("writes", &p.writes_between)]
        .into_iter()
        .filter_map(|(direction, b)| b.as_ref().map(|b| between_text(direction, b)))
        .collect()
}

/// `32.3KiB`, `700B`: a mean size, to a tenth of a KiB.
fn mean_size(bytes: f64) -> String {
    if bytes < 1024.0 { format!("{bytes:.0}B") } else { format!("{:.1}KiB", bytes / 1024.0) }
}

/// Samples whose mean size no class makes, in words: which sizes could make that mean, that a
/// mean alone cannot tell them apart, and what the replay will issue instead.
fn between_text(direction: &str, b: &MeanBetween) -> String {
    let seen = if b.low_bytes == b.high_bytes {
        mean_size(b.mean_bytes)
    } else {
        format!("{} to {}, {} over them", mean_size(b.low_bytes), mean_size(b.high_bytes), mean_size(b.mean_bytes))
    };
    let makers = match b.mix_of {
        Some([small, large]) => {
            let alone = if b.alone.contains(&small) && b.alone.contains(&large) {
                "; both sizes other samples saw on their own"
            } else {
                ""
            };
            format!(
                "a mix such as {} and {} {direction} ({:.0}% of them {}{alone}) makes it, as do other mixes and \
                 {direction} of that one size, and ",
                format_size(small),
                format_size(large),
                b.larger_pct,
                format_size(large)
            )
        }
        None => String::new(),
    };
    let replayed: Vec<String> = b.replayed_as.iter().map(|&c| format_size(c)).collect();
    let (sizes, verb) = match (replayed.len(), direction) {
        (1, "reads") => ("a size", "read"),
        (1, _) => ("a size", "written"),
        (_, "reads") => ("sizes", "read"),
        _ => ("sizes", "written"),
    };
    format!(
        "{direction}: {:.0}% of them came in samples whose mean size ({seen}) is no size named here: {makers}a mean \
         alone cannot tell them apart; the replay issues {} {direction} for them, {sizes} perhaps never {verb}",
        b.pct,
        replayed.join(" or ")
    )
}

/// A workload as an IOMeter access specification.
pub fn access_spec(w: &Workload) -> AccessSpec {
    let shares = icf::percent_shares(&w.lines.iter().map(|l| l.1).collect::<Vec<_>>());
    AccessSpec {
        name: format!("spindle {}", w.name),
        lines: w
            .lines
            .iter()
            .zip(shares)
            .filter(|(_, pct)| *pct > 0)
            .map(|(&(size, _, reads, random), pct)| AccessLine {
                size,
                pct,
                reads,
                random,
                delay: 0,
                burst: 1,
                align: 0,
                reply: 0,
            })
            .collect(),
    }
}

fn shares(s: &[SizeShare]) -> String {
    s.iter().map(|c| format!("{} {:.0}%", format_size(c.bytes), c.pct)).collect::<Vec<_>>().join(", ")
}

/// A profile in a line: its rate, its reads and writes by size, its outstanding I/Os.
pub fn line(p: &AccessProfile) -> String {
    format!(
        "{} I/Os a second, reads {:.0}% ({}), writes {:.0}% ({}), {:.1} outstanding{}",
        format_rate(p.iops, Reading::Table),
        p.read_pct,
        shares(&p.reads),
        100.0 - p.read_pct,
        shares(&p.writes),
        p.outstanding,
        if p.looks_like_log() { format!("; {LOG_ASSUMED}") } else { String::new() }
    )
}

/// The workloads as a spec file: one target each, all driven at once, each at the rate its
/// disk did (unless `flat_out`): unpaced, a replay would measure what the disk can do, not what
/// the recorded work asked of it.
pub fn spec_toml(workloads: &[Workload], source: &str, flat_out: bool) -> String {
    let mut out = format!("# spindle characterize {source}\n");
    let _ = writeln!(out, "duration = \"60s\"\n");
    for w in workloads {
        let _ = writeln!(out, "# {}", w.note);
        if w.log {
            let _ = writeln!(out, "# {LOG_ASSUMED}");
        }
        for caution in &w.cautions {
            let _ = writeln!(out, "# {caution}");
        }
        // Weights in hundredths of a percent of all I/Os, so small classes keep their share.
        let mix: Vec<String> = w
            .lines
            .iter()
            .filter_map(|&(size, share, read, random)| {
                let weight = (share * 100.0).round() as u64;
                (weight > 0).then(|| format!("{}:{weight}:{read}:{random}", format_size(size)))
            })
            .collect();
        let name: String = w.name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        let _ = writeln!(out, "[[target]]\npath = \"characterized-{name}.dat\"\nsize = \"1G\"");
        let _ = writeln!(out, "mix = \"{}\"", mix.join(","));
        let _ = writeln!(out, "threads = 1\ndepth = {}", w.outstanding.round().clamp(1.0, MAX_DEPTH));
        match w.rate {
            Some(rate) if !flat_out => {
                let _ = writeln!(
                    out,
                    "rate = {}   # the recorded I/Os a second (--flat-out leaves it out)",
                    rate.round().max(1.0)
                );
            }
            _ => {}
        }
        if w.log {
            let _ = writeln!(out, "fsync_every = 1");
        }
        out.push('\n');
    }
    out
}

/// What a replay assumes of a disk that looks like a log.
pub const LOG_ASSUMED: &str = "nearly all small writes, one or two at a time: taken for a database log, so replayed as sequential writes, each flushed (counters cannot tell either)";

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(read_pct: f64, reads: &[(u64, f64)], writes: &[(u64, f64)], outstanding: f64) -> AccessProfile {
        let shares = |c: &[(u64, f64)]| c.iter().map(|&(bytes, pct)| SizeShare { bytes, pct }).collect();
        AccessProfile {
            samples: 10,
            iops: 2606.4,
            read_pct,
            reads: shares(reads),
            writes: shares(writes),
            reads_between: None,
            writes_between: None,
            outstanding,
        }
    }

    #[test]
    fn a_replay_keeps_the_rate_and_a_log_is_written_in_order_and_flushed() {
        let data = workload_of("data", &profile(52.0, &[(16384, 100.0)], &[(32768, 100.0)], 9.6), "data".into());
        let redo = workload_of("redo", &profile(0.0, &[], &[(1024, 60.0), (2048, 40.0)], 1.2), "redo".into());
        let spec = spec_toml(&[data, redo], "log.csv", false);
        let targets: Vec<&str> = spec.split("[[target]]").skip(1).collect();
        assert!(targets[0].contains("rate = 2606") && !targets[0].contains("fsync_every"), "{spec}");
        assert!(targets[0].contains("16KiB:5200:100:100,32KiB:4800:0:100"), "data stays random: {spec}");
        assert!(targets[1].contains("1KiB:6000:0:0,2KiB:4000:0:0"), "the log is sequential: {spec}");
        assert!(targets[1].contains("fsync_every = 1") && spec.contains("taken for a database log"), "{spec}");
        let parsed: toml::Value = toml::from_str(&spec).unwrap();
        assert_eq!(parsed["target"][1]["rate"].as_integer(), Some(2606));
        assert!(
            !spec_toml(&[workload_of("d", &profile(50.0, &[(8192, 100.0)], &[], 2.0), "d".into())], "x", true)
                .contains("rate")
        );
    }
}
