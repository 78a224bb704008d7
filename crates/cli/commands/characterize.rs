//! `spindle characterize FILE`: a counter log to an access specification (seed 002's method,
//! in spindle-analysis, the log read in parallel by spindle-formats), printed as a summary and
//! written as a spec file that replays it, or as IOMeter access specifications. An IOMeter .icf
//! file is read too, and converted. Here: the flags, the errors that name them, and printing.

use crate::args::CharacterizeArgs;
use crate::usage::UsageError;
use crate::{Outcome, output};
use spindle_analysis::characterize::feed::Feed;
use spindle_analysis::characterize::replay::{self, Workload, access_spec, cautions, line, spec_toml};
use spindle_analysis::characterize::{AccessProfile, CounterNames, DeviceProfile, Options};
use spindle_formats::ParseError;
use spindle_formats::icf::{self, AccessSpec};
use spindle_formats::parallel::ParallelReader;
use spindle_formats::perfmon::TimeRange;
use spindle_model::units::format_size;
use std::fmt::Write;

pub fn run(args: &CharacterizeArgs) -> anyhow::Result<Outcome> {
    let shown = args.file.display().to_string();
    // Where the result goes is checked before the log is read: a mistake there costs nothing.
    if let Some(path) = &args.output {
        output::check_output(path, &[&args.file])?;
        output::refuse_store(path, &crate::store::files(None), "-o")?;
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
    let mut feed = Feed::new(opts.clone(), TimeRange::new(args.from.as_deref(), args.to.as_deref()));
    let mut reader = ParallelReader::new();
    input.chunks(|chunk| Ok(reader.run(chunk, &mut feed).map_err(|e| UsageError::file(shown, e))?))?;
    let reader = reader.finish(&mut feed).map_err(|e| UsageError::file(shown, e))?;
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
    let workloads = replay::workloads(&profiles, args.min_queue.is_some(), opts.min_queue);
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
            Workload::of_icf(s)
        })
        .collect();
    Ok((workloads, summary))
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
