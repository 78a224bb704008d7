//! `spindle characterize FILE`: a counter log to an access specification (seed 002's method,
//! in spindle-counters), printed as a summary and written as a spec file that replays it, or
//! as IOMeter access specifications. An IOMeter .icf file is read too, and converted.

use crate::args::CharacterizeArgs;
use crate::usage::UsageError;
use crate::{Outcome, output};
use spindle_analysis::characterize::{
    AccessProfile, Characterizer, CounterNames, DeviceProfile, MeanBetween, Options, SizeShare,
};
use spindle_formats::ParseError;
use spindle_formats::icf::{self, AccessLine, AccessSpec};
use spindle_formats::perfmon::TimeRange;
use spindle_formats::stream::RowSink;
use spindle_model::units::format_size;
use std::fmt::Write;

mod parallel;

/// io_uring's largest queue: the most outstanding I/Os one thread can keep.
const MAX_DEPTH: f64 = 32768.0;

/// A workload to write, whichever file it came from.
struct Workload {
    /// The disk or access specification it describes.
    name: String,
    /// `(size, share of all I/Os in percent, read %, random %)`.
    lines: Vec<(u64, f64, u32, u32)>,
    outstanding: f64,
    /// The I/Os a second the disk did, which a replay keeps (`None`: the file gives no rate).
    rate: Option<f64>,
    /// A database log, as far as the counters tell: replayed as sequential writes, each flushed.
    log: bool,
    /// Where the figures come from, for the file's comments.
    note: String,
    /// What the replay issues that the counters did not show (sizes between the classes).
    cautions: Vec<String>,
}

pub fn run(args: &CharacterizeArgs) -> anyhow::Result<Outcome> {
    let shown = args.file.display().to_string();
    // Where the result goes is checked before the log is read: a mistake there costs nothing.
    if let Some(path) = &args.output {
        output::check_output(path, &[&args.file])?;
        if !args.force && path.exists() {
            return Err(UsageError::flag(
                "-o",
                path.display().to_string(),
                "the file exists; pass --force to replace it",
            )
            .into());
        }
    }
    // Counter logs run to gigabytes (a month of one-second samples): they are read as a stream,
    // a line at a time. An IOMeter .icf file is small, and read whole.
    let input = crate::input_file::TextStream::open(&args.file, "counter log")?;
    let (workloads, summary) =
        if String::from_utf8_lossy(input.head()).trim_start_matches('\u{feff}').starts_with("Version ") {
            let bytes = input.read_whole(64 << 20)?;
            from_icf(args, &String::from_utf8_lossy(&bytes), &shown)?
        } else {
            from_counter_log(args, input, &shown)?
        };
    let mut summary = summary;
    if let Some(path) = &args.output {
        let is_icf = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("icf"));
        let content = if is_icf {
            icf::write_icf(&workloads.iter().map(access_spec).collect::<Vec<_>>())
        } else {
            spec_toml(&workloads, &shown, args.flat_out)
        };
        output::write_whole(path, content.as_bytes(), args.force)?;
        let p = path.display();
        let how =
            if is_icf { "load it in IOMeter".to_string() } else { format!("replay it with: spindle io --spec {p}") };
        if !args.json {
            let _ = writeln!(summary, "written to {p}; {how}");
        }
    }
    if args.json { output::write_stdout(summary.as_bytes()) } else { output::write_text(summary.as_bytes()) }?;
    Ok(Outcome::Success)
}

/// Where the log's reader hands its samples: those in the --from/--to range go on to the
/// method; the rest is counted.
struct Feed {
    method: Characterizer,
    range: Result<Option<TimeRange>, ParseError>,
    /// Samples handed to the method.
    rows: usize,
    skipped: usize,
    /// The first few skipped lines, to name them.
    first_skipped: Vec<usize>,
    /// Why reading stops: a bound or a sample time that is not a timestamp.
    stop: Option<ParseError>,
}

impl RowSink for Feed {
    fn columns(&mut self, columns: &[String]) {
        self.method.columns(columns);
    }

    fn row(&mut self, time: &str, values: &[Option<f64>]) {
        if self.stop.is_some() {
            return;
        }
        match &self.range {
            Ok(None) => {}
            Ok(Some(range)) => match range.keeps(time) {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => {
                    self.stop = Some(e);
                    return;
                }
            },
            // A bound that is no time, named once the log is known to be one.
            Err(e) => {
                self.stop = Some(ParseError(e.0.clone()));
                return;
            }
        }
        self.rows += 1;
        self.method.row(values);
    }

    fn skipped(&mut self, line: usize) {
        // Past a stop, as for rows: the rest of a run parsed ahead is not the log read.
        if self.stop.is_some() {
            return;
        }
        self.skipped += 1;
        if self.first_skipped.len() < 5 {
            self.first_skipped.push(line);
        }
    }
}

fn from_counter_log(
    args: &CharacterizeArgs,
    input: crate::input_file::TextStream,
    shown: &str,
) -> anyhow::Result<(Vec<Workload>, String)> {
    let number = |flag: &'static str, v: &Option<String>, default: f64, max: f64| -> Result<f64, UsageError> {
        match v {
            None => Ok(default),
            Some(t) => t
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| (0.0..=max).contains(x))
                .ok_or_else(|| UsageError::flag(flag, t, format_args!("write a number from 0 to {max}"))),
        }
    };
    if args.access.is_some() {
        return Err(UsageError::at(
            crate::origin::Origin::Flag("--access"),
            format_args!("{shown} is a counter log, not an IOMeter .icf file"),
        )
        .into());
    }
    let opts = Options {
        device: args.device.clone(),
        object: args.object.clone(),
        names: counter_names(&args.counters)?,
        min_queue: number("--min-queue", &args.min_queue, 2.0, 1e9)?,
        coverage_pct: number("--coverage", &args.coverage, 80.0, 100.0)?,
    };
    // The log is read once, in runs of lines parsed on other threads; each sample is folded
    // into the method's sums, in the log's order, and forgotten.
    let mut feed = Feed {
        method: Characterizer::new(opts.clone()),
        range: TimeRange::new(args.from.as_deref(), args.to.as_deref()),
        rows: 0,
        skipped: 0,
        first_skipped: Vec::new(),
        stop: None,
    };
    let reader = parallel::read(input, shown, &mut feed)?;
    let out_of_range = |e: ParseError| {
        let flag = if args.from.is_some() { "--from/--to" } else { "--to" };
        UsageError::at(crate::origin::Origin::Flag(flag), format_args!("{shown}: {e}"))
    };
    if let Some(e) = feed.stop.take() {
        return Err(out_of_range(e).into());
    }
    reader.finish(&mut feed).map_err(|e| UsageError::file(shown, e))?;
    if let Some(e) = feed.stop.take().or(feed.range.err()) {
        return Err(out_of_range(e).into());
    }
    if feed.rows == 0 {
        return Err(UsageError::file(shown, "the log has no samples (in the --from/--to range, if given)").into());
    }
    let profiles = feed.method.finish().map_err(|e| UsageError::file(shown, e))?;
    if profiles.iter().all(|p| p.all.is_none()) {
        let impossible: usize = profiles.iter().map(|p| p.impossible).sum();
        if impossible > 0 {
            return Err(UsageError::file(
                shown,
                format_args!("no usable sample: {impossible} hold values beyond any disk (over a billion I/Os a second, a GiB an I/O or a million outstanding); is the log corrupt?"),
            )
            .into());
        }
        return Err(UsageError::file(shown, "no sample shows any disk I/O").into());
    }
    // Given explicitly, the queue filter chooses what is written, as seed 002 used it.
    let busy = args.min_queue.is_some();
    let workloads = profiles
        .iter()
        .filter_map(|p| {
            let (a, which) = match (&p.busy, &p.all) {
                (Some(b), _) if busy => (b, format!("{} samples with queue > {}", b.samples, opts.min_queue)),
                (_, Some(a)) => (a, format!("all {} samples", a.samples)),
                _ => return None,
            };
            Some(workload_of(&p.device, a, format!("{}: {which}: {}", p.device, line(a))))
        })
        .collect();
    let summary = if args.json {
        let mut t = serde_json::to_string_pretty(&profiles)?;
        t.push('\n');
        t
    } else {
        summary(&profiles, feed.skipped, &feed.first_skipped, opts.min_queue)
    };
    Ok((workloads, summary))
}

/// `--counters`: five names, or five 1-based positions.
fn counter_names(text: &Option<String>) -> Result<CounterNames, UsageError> {
    let Some(text) = text else { return Ok(CounterNames::English) };
    let items: Vec<String> = text.split(',').map(|s| s.trim().to_string()).collect();
    let Ok(items) = <[String; 5]>::try_from(items) else {
        return Err(UsageError::flag(
            "--counters",
            text,
            "give five names or positions, for Disk Reads/sec, Disk Writes/sec, Avg. Disk Bytes/Read, Avg. Disk Bytes/Write, Avg. Disk Queue Length",
        ));
    };
    if items.iter().any(String::is_empty) {
        return Err(UsageError::flag("--counters", text, "an empty name"));
    }
    let positions: Option<Vec<usize>> = items.iter().map(|i| i.parse().ok().filter(|p| *p > 0)).collect();
    Ok(match positions.and_then(|p| <[usize; 5]>::try_from(p).ok()) {
        Some(p) => CounterNames::Positions(p),
        None => CounterNames::Named(items),
    })
}

fn from_icf(args: &CharacterizeArgs, text: &str, shown: &str) -> anyhow::Result<(Vec<Workload>, String)> {
    let specs = icf::parse_icf(text).map_err(|e| UsageError::file(shown, e))?;
    let names = || specs.iter().map(|s| format!("{:?}", s.name)).collect::<Vec<_>>().join(", ");
    let chosen: Vec<&AccessSpec> =
        match &args.access {
            Some(name) => vec![specs.iter().find(|s| &s.name == name).ok_or_else(|| {
                UsageError::flag("--access", name, format_args!("not in {shown}; it has: {}", names()))
            })?],
            None => specs.iter().collect(),
        };
    let writes_toml =
        args.output.as_ref().is_some_and(|p| !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("icf")));
    if writes_toml && chosen.len() > 1 {
        return Err(UsageError::file(
            shown,
            format_args!("{} access specifications; choose one with --access NAME: {}", chosen.len(), names()),
        )
        .into());
    }
    let mut summary = String::new();
    let workloads = chosen
        .iter()
        .map(|s| {
            let mix: Vec<String> =
                s.lines.iter().map(|l| format!("{}:{}:{}:{}", format_size(l.size), l.pct, l.reads, l.random)).collect();
            let _ = writeln!(summary, "{:?}: --mix {}", s.name, mix.join(","));
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
        })
        .collect();
    Ok((workloads, summary))
}

/// A disk's profile as a workload: its read and write classes as one mix.
fn workload_of(device: &str, a: &AccessProfile, note: String) -> Workload {
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
fn cautions(p: &AccessProfile) -> Vec<String> {
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

fn access_spec(w: &Workload) -> AccessSpec {
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

fn line(p: &AccessProfile) -> String {
    format!(
        "{} I/Os a second, reads {:.0}% ({}), writes {:.0}% ({}), {:.1} outstanding{}",
        spindle_report::view::rate_text(p.iops),
        p.read_pct,
        shares(&p.reads),
        100.0 - p.read_pct,
        shares(&p.writes),
        p.outstanding,
        if p.looks_like_log() { format!("; {LOG_ASSUMED}") } else { String::new() }
    )
}

fn summary(profiles: &[DeviceProfile], skipped: usize, first_skipped: &[usize], min_queue: f64) -> String {
    let mut out = String::new();
    for p in profiles {
        let _ = writeln!(out, "device '{}':", p.device);
        if p.impossible > 0 {
            let _ = writeln!(
                out,
                "  {} samples left out: a value beyond any disk (over a billion I/Os a second, a GiB an I/O or a million outstanding)",
                p.impossible
            );
        }
        match &p.all {
            Some(a) => profile_lines(&mut out, &format!("all {} samples", a.samples), a),
            None => {
                let _ = writeln!(out, "  no sample shows I/O");
            }
        }
        match &p.busy {
            Some(b) => profile_lines(&mut out, &format!("{} samples with queue > {min_queue}", b.samples), b),
            None => {
                let _ = writeln!(out, "  no sample with queue > {min_queue}");
            }
        }
    }
    if skipped > 0 {
        let first: Vec<String> = first_skipped.iter().map(|l| l.to_string()).collect();
        let _ = writeln!(out, "{skipped} malformed rows skipped (lines {}...)", first.join(", "));
    }
    out
}

/// A profile's line, and under it what the replay will issue that the log did not show.
fn profile_lines(out: &mut String, head: &str, a: &AccessProfile) {
    let _ = writeln!(out, "  {head}: {}", line(a));
    for caution in cautions(a) {
        let _ = writeln!(out, "    {caution}");
    }
}

/// The workloads as a spec file: one target each, all driven at once, each at the rate its
/// disk did (unless `flat_out`): unpaced, a replay would measure what the disk can do, not what
/// the recorded work asked of it.
fn spec_toml(workloads: &[Workload], source: &str, flat_out: bool) -> String {
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
const LOG_ASSUMED: &str = "nearly all small writes, one or two at a time: taken for a database log, so replayed as sequential writes, each flushed (counters cannot tell either)";

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
